"""Runs a tournament: the schedule's pairings on a process pool, each record kept on disk.

Records are appended to ``games.jsonl`` by this (parent) process only, one whole line per
finished game, flushed at once; a run that is stopped, even by SIGKILL, resumes by skipping
the game ids already there. Ratings are computed afterwards from the file alone.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import fcntl
import json
import logging
import os
import secrets
import shutil
import socket
import sys
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

import yaml
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from arena import safe_yaml
from arena.errors import ArenaError, BadInput, counted, shown
from arena.records import GameRecord, drop_torn_tail, read_games
from arena.seats.bot import BotSpec
from arena.seats.startup import check_bots_start
from arena.tournament.config import SEED, Config
from arena.tournament.logs import start_logging, stop_logging
from arena.tournament.pool import PARENT_ONLY, deaf_to_ctrl_c, pool_results, signals_held
from arena.tournament.results import check_results_folder
from arena.tournament.schedule import Pairing, Schedule, make_schedule
from arena.tournament.worker import GameFailed, Job, close_seats, failed_text, play_pairing

log = logging.getLogger("arena.tournament.runner")
CONFIG_FILE = "config.yaml"  # what decided a results folder's games, for the resume
MIXED = "mixed"  # config.yaml's list of the bots whose code changed while the games played
LOCK = "arena.lock"  # held by the arena run writing the folder
UNSAVED = "unsaved"  # the pool workers' finished games, until this process has written them


def schedule_for(config: Config) -> Schedule:
    """The config's schedule (its seed settled first: without one, tables are shown for 0)."""
    return make_schedule([b.name for b in config.bots], players=config.players,
                         kind=config.format.type, candidate=config.format.candidate,
                         games_per_table=config.games_per_table,
                         duplicate=config.format.duplicate,
                         seed=0 if config.seed is None else config.seed,
                         teams=config.game.team_labels(config.options))


@contextlib.contextmanager
def writing(folder: Path) -> Iterator[None]:
    """Hold the results folder's lock: one ``arena run`` writes a tournament at a time (a
    second one would play and record every game again). The lock dies with its process."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock = (folder / LOCK).open("a+", encoding="utf-8")
    except OSError as exc:
        raise BadInput(f"{folder}: cannot write the results folder ({exc.strerror})") from exc
    with lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            holder = lock.read().strip() or "another process"
            raise BadInput(f"{folder}: another arena run is writing this tournament "
                           f"({holder}); wait for it, or stop it first") from None
        lock.seek(0)
        lock.truncate()
        lock.write(f"pid {os.getpid()} on {socket.gethostname()}, since "
                   f"{time.strftime('%Y-%m-%d %H:%M:%S')}\n")
        lock.flush()
        PARENT_ONLY.add(lock.fileno())  # a worker orphaned by kill -9 must not hold it
        try:
            yield
        finally:
            PARENT_ONLY.discard(lock.fileno())


def stored_identity(stored: Path, folder: Path) -> dict[str, Any] | None:
    """What ``config.yaml`` says of the tournament, or a one-line error that keeps the games
    (never the advice to start over: --fresh would delete them and the contest seed)."""
    if not stored.exists():
        return None
    try:
        previous = safe_yaml.load_stored(stored)
    except (OSError, safe_yaml.BadYaml) as exc:
        previous = exc
    if not isinstance(previous, dict) or "identity_hash" not in previous:
        why = " ".join(str(previous or "").split())[:80] or "empty"
        raise BadInput(f"{stored}: unreadable or torn ({why}); the "
                       f"games in {folder / 'games.jsonl'} are kept: restore this file, or "
                       "move the folder aside to start a new tournament")
    return previous


def prepare_results(config: Config, *, fresh: bool) -> tuple[Config, set[str]]:
    """Create or check the results folder (its lock held); return the config with its seed
    settled, and the ids of games already played."""
    folder = config.results_dir
    stored = folder / CONFIG_FILE
    previous = stored_identity(stored, folder)
    if fresh and folder.exists():
        start_over(folder)
        previous = None
    refuse_mixed(previous, folder)
    if config.seed is None:
        config = settle_seed(config, previous)
    if previous is not None and previous.get("identity_hash") != config.identity_hash():
        changed = changes(previous.get("identity", {}), config.identity())
        raise BadInput(f"{folder}: made by a different config (changed: "
                       f"{'; '.join(changed) or 'unknown'}); run again with --fresh "
                       "to start over, or change the name")
    games = folder / "games.jsonl"
    # a damaged line refuses the run before a write
    held = read_games(games, actions=False)
    done = {r.id for r in held}
    schedule = schedule_for(config)
    _refuse_unscheduled(games, done, schedule)
    refuse_unlike(games, held, schedule, config)
    try:
        store_identity(config, stored)
        drop_torn_tail(games)
    except OSError as exc:  # a full disk: nothing is played, nothing lost
        raise ArenaError(f"{folder}: cannot write the results folder ({exc.strerror or exc})"
                         ) from None
    with open_records(games) as out:  # games a run killed outright had not written yet
        save_unsaved(config, games, out, done)
    return config, done


def changes(before: Any, now: dict[str, Any]) -> list[str]:
    """What differs between the identity stored with the games and this config's, named
    down to the bot: "bots" alone sent the organiser looking through every bot."""
    before = before if isinstance(before, dict) else {}
    return [f"bots ({_bots_changed(before['bots'], value)})"
            if key == "bots" and isinstance(before.get(key), list) else
            _what_changed(key, before.get(key), value)
            for key, value in now.items() if before.get(key) != value]


def _what_changed(key: str, before: Any, now: Any) -> str:
    """``format.games 20 before, 2 now``: "format" alone read as the --format option, and
    hid that an earlier run's --games had made the difference."""
    if isinstance(before, dict) and isinstance(now, dict):
        return ", ".join(_what_changed(f"{key}.{k}", before.get(k), now.get(k))
                         for k in {**before, **now} if before.get(k) != now.get(k))
    if key == "seed" or isinstance(now, dict | list):  # a seed is not for the console
        return key
    return f"{key} {shown(before)} before, {shown(now)} now"


def _bots_changed(before: list[Any], now: list[dict[str, Any]]) -> str:
    was = {b.get("name"): b for b in before if isinstance(b, dict)}
    names = [b["name"] for b in now]
    parts = [f"{name} added" for name in names if name not in was]
    parts += [f"{name} removed" for name in was if name not in names]
    for bot in now:
        old = was.get(bot["name"])
        if old is not None and old != bot:
            fields = [k for k in bot if old.get(k) != bot[k]] + [k for k in old if k not in bot]
            parts.append(f"{bot['name']}'s {', '.join(fields)}")
    return ", ".join(parts) or "their order"


def _refuse_unscheduled(games: Path, done: set[str], schedule: Schedule) -> None:
    """BadInput, before anything is written, for a game the schedule does not hold (added by
    hand, or from another tournament): the run's leaderboard would count it."""
    ids = [p.id for p in schedule]
    unscheduled = done - set(ids)
    if not unscheduled:
        return
    number, game = _first_line_of(games, unscheduled)
    span = f"{ids[0]} to {ids[-1]}" if ids else "none"
    raise BadInput(f"{games}:{number}: game {shown(game)} is not one of this tournament's "
                   f"games ({span}); expected only the games its config schedules: move the "
                   "line or the file aside, or run with --fresh to start over")


def refuse_unlike(games: Path, held: Sequence[GameRecord], schedule: Iterable[Pairing],
                  config: Config) -> None:
    """BadInput for a game of a scheduled id that this config would not have played as
    recorded (its bots, seed, set, variant or options differ: copied from another
    tournament, or edited), which the leaderboard would count as this one's."""
    pairings = {p.id: p for p in schedule}
    version, options = config.game.version, dict(config.options)
    for record in held:
        differs = _unlike(record, pairings[record.id], version, options)
        if differs is not None:
            number, _ = _first_line_of(games, {record.id})
            raise BadInput(f"{games}:{number}: game {shown(record.id)} is not as this "
                           f"tournament plays it ({differs}); expected only the games its "
                           "config schedules (an arena older than 2026-12-07 scheduled other "
                           "games at tables of 3 or more, and without duplicate deals): move the "
                           "line or the file aside, or run with --fresh to start over")


def _unlike(record: GameRecord, pairing: Pairing, version: str,
            options: dict[str, Any]) -> str | None:
    """What of a record differs from the game its pairing plays, or None."""
    bots = tuple(s.bot for s in record.seats)
    if bots != pairing.seats:
        return f"its bots: {shown(bots)}, the config's {shown(pairing.seats)}"
    if record.seed != pairing.seed:
        return "its seed: another"
    if record.dup_set != pairing.dup_set:
        return f"its duplicate set: {shown(record.dup_set)}, the config's {shown(pairing.dup_set)}"
    if record.variant != version:
        return f"its variant: {shown(record.variant)}, the config's {shown(version)}"
    for key in {**options, **record.options}:
        if record.options.get(key) != options.get(key):
            return (f"its option {key}: {shown(record.options.get(key))}, the config's "
                    f"{shown(options.get(key))}")
    return None


def _first_line_of(games: Path, ids: set[str]) -> tuple[int, str]:
    """The first line of ``games`` holding a record of one of ``ids``, and that id."""
    with games.open("rb") as lines:
        for number, line in enumerate(lines, 1):
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if isinstance(record, dict) and record.get("id") in ids:
                    return number, record["id"]
    return 0, min(ids)  # not found again: the file changed meanwhile


def start_over(folder: Path) -> None:
    """--fresh: delete the earlier results; one that may not go (immutable, a folder of
    another user's) is bad input about that file."""
    for name in ("games.jsonl", "arena.log", "arena.log.1", "config.yaml", "report.html"):
        try:
            (folder / name).unlink(missing_ok=True)
        except OSError as exc:
            raise BadInput(f"{folder / name}: cannot delete it for --fresh "
                           f"({exc.strerror or exc}); expected a results folder this user "
                           "may change") from exc
    shutil.rmtree(folder / "logs", ignore_errors=True)
    shutil.rmtree(folder / UNSAVED, ignore_errors=True)


def unsaved_dir(config: Config) -> Path:
    """Where this config's pool workers keep their finished games: a folder of its identity,
    so that the workers of a run killed outright, still finishing their games, never add
    them to a --fresh run of another config (their clocks, their bots' code)."""
    return config.results_dir / UNSAVED / config.identity_hash()[:16]


def save_unsaved(config: Config, games: Path, out: IO[bytes], known: set[str]) -> int:
    """Append to ``games`` the finished games the pool's workers kept (worker.keep_unsaved)
    that are not there yet (``known``, updated), then drop their files (those of another
    config too); how many. A line cut short (a worker killed while writing it) or unreadable
    is not a finished game."""
    kept = 0
    for part in sorted(unsaved_dir(config).glob("*.jsonl")):
        for line in part.read_bytes().splitlines(keepends=True):
            game_id = _game_id(line)
            if game_id is None or game_id in known or not line.endswith(b"\n"):
                continue
            append_records(games, out, line)
            known.add(game_id)
            kept += 1
    if kept:
        os.fsync(out.fileno())
        log.info("%d finished games kept by the workers written to %s", kept, games)
    shutil.rmtree(config.results_dir / UNSAVED, ignore_errors=True)
    return kept


def _game_id(line: bytes) -> str | None:
    """The id of a record line, if the line is a whole record."""
    try:
        return GameRecord.from_json(line, actions=False).id
    except (ValueError, ArenaError):
        return None


def store_identity(config: Config, stored: Path, *, extra: dict[str, Any] | None = None
                   ) -> None:
    """Write what the resume checks (``config.yaml``, with ``extra`` sections such as an
    SPRT's settings), replaced whole, never torn."""
    stored.parent.mkdir(parents=True, exist_ok=True)
    record: dict[str, Any] = {"identity_hash": config.identity_hash(),
                              "identity": config.identity(), **(extra or {})}
    if config.anchor is not None:  # how to rate, not which games: outside the hash
        record["rating"] = {"anchor": {config.anchor[0]: config.anchor[1]}}
    commands = {b.name: list(b.command) for b in config.bots if b.command}
    if commands:  # what a command bot runs, for the report: outside the hash, which has
        record["commands"] = commands  # the bot's source (and older folders resume)
    _write_stored(stored, record)


def _write_stored(stored: Path, record: dict[str, Any]) -> None:
    """``config.yaml`` replaced whole, never torn."""
    partial = stored.with_name(stored.name + ".new")
    try:
        partial.write_text(yaml.safe_dump(record, sort_keys=False), encoding="utf-8")
        os.replace(partial, stored)
    finally:
        partial.unlink(missing_ok=True)  # written in vain (a full disk): not left behind


def mark_mixed(stored: Path, edited: Sequence[str]) -> None:
    """Note in ``config.yaml`` the bots whose code changed while their games were played:
    the next run refuses the folder even once the file is restored (it resumed, and an
    SPRT's "no verdict" became one)."""
    try:
        record = safe_yaml.load_stored(stored)
        if isinstance(record, dict):
            record[MIXED] = sorted({*record.get(MIXED, ()), *edited})
            _write_stored(stored, record)
    except (OSError, safe_yaml.BadYaml) as exc:  # the warning has been given all the same
        log.warning("%s: cannot note the mixed versions there (%s)", stored, exc)


def refuse_mixed(previous: dict[str, Any] | None, folder: Path) -> None:
    """BadInput for a folder whose games mix two versions of a bot's code (mark_mixed)."""
    mixed = (previous or {}).get(MIXED)
    if mixed:
        names = ", ".join(map(str, mixed)) if isinstance(mixed, list) else str(mixed)
        raise BadInput(f"{folder}: its games mix two versions of the code of {names}, "
                       "which changed while they were played; run again with --fresh to "
                       "play them all with one version")


def settle_seed(config: Config, previous: dict[str, Any] | None) -> Config:
    """A config without a seed resumes with the stored one, else draws a random 63-bit seed:
    a seed the bots could guess would let them rebuild every deal (docs/protocol.md)."""
    stored = (previous or {}).get("identity", {}).get("seed")
    if SEED.admits(stored):
        return replace(config, seed=stored)  # even when something else changed: the error
        # then names what did, not the seed (a new one was drawn, and named as changed)
    return replace(config, seed=secrets.randbits(63))


def check_config_bots(config: Config, names: Collection[str] | None = None) -> None:
    """Start the config's bots (or those ``names``) as its games will, before anything is
    written; BadInput, a line a bot, for each that cannot start."""
    check_bots_start([b for b in config.bots if names is None or b.name in names],
                     variant=config.game, options=config.options,
                     isolation=config.isolation, limits=config.limits,
                     hide=(config.output, config.results_dir))


OnGame = Callable[[GameRecord, int, int], None]  # a record, games done, games in all


def run_tournament(config: Config, *, fresh: bool = False, progress: bool = True,
                   on_game: OnGame | None = None) -> int:
    """Play every pending game of the config; return how many were played now. Every bot
    is started once first: one that cannot start stops the run before it writes anything.
    ``on_game`` is called with each record once it is on disk."""
    config = dataclasses.replace(config)  # checked again: code may change its options dict
    check_results_folder(config.results_dir, fresh=fresh)  # before any bot starts
    check_config_bots(config)
    with writing(config.results_dir):
        return _run(config, fresh=fresh, progress=progress, on_game=on_game)


def _run(config: Config, *, fresh: bool, progress: bool, on_game: OnGame | None) -> int:
    config, done = prepare_results(config, fresh=fresh)
    schedule = schedule_for(config)
    pending = [p for p in schedule if p.id not in done]
    handler = start_logging(config.results_dir)
    unsaved = unsaved_dir(config) if config.cluster is None else None
    job = replace(_job_for(config, config.results_dir / "logs"), unsaved=unsaved)
    where = (counted(config.workers, "worker") if config.cluster is None
             else f"the cluster at {config.cluster}")
    log.info("tournament %s: %d games, %d done, %d to play on %s, seed %d",
             config.name, len(schedule), len(done), len(pending), where, config.seed)
    played = 0
    games = config.results_dir / "games.jsonl"
    then = RESUME_FRESH if fresh else RESUME
    sources = source_hashes(config)  # as the run starts: a bot edited while it plays is told
    try:
        with open_records(games, then=then) as out, _progress(progress) as bar:
            task = bar.add_task("games", total=len(schedule), completed=len(done))
            try:
                for line in _backend(config, job, pending, done=len(done),
                                     total=len(schedule)):
                    with signals_held():  # a Ctrl-C between the two wrote it twice
                        append_records(games, out, line.encode(),
                                       sync=(played + 1) % 64 == 0, then=then)
                        done.add(_line_id(line))
                        played += 1
                    bar.advance(task)
                    if on_game is not None:
                        on_game(GameRecord.from_json(line), len(done), len(schedule))
            except RecordsChanged:  # the file is not this run's: its workers' games wait
                raise  # in unsaved/ for the next run, which writes them first
            except BaseException as exc:  # stopped: the workers are gone; what they
                if isinstance(exc, ArenaError):  # finished stays; why, in the log too
                    log.error("tournament %s stopped: %s", config.name, exc)
                with deaf_to_ctrl_c():
                    played += save_unsaved(config, games, out, done)
                raise
            shutil.rmtree(config.results_dir / UNSAVED, ignore_errors=True)  # all written
        log.info("tournament %s: %s played now, %d of %d done", config.name,
                 counted(played, "game"), len(done), len(schedule))
        _keep_identity(config)
        _warn_of_edits(config, sources)
    finally:
        stop_logging(handler)
    return played


def _keep_identity(config: Config) -> None:
    """Write config.yaml again if it went while the run played: without it the next run
    took any config, another clock or fault policy, for the games kept."""
    stored = config.results_dir / CONFIG_FILE
    if not stored.exists():
        log.warning("%s went while the run played: written again", stored)
        with contextlib.suppress(OSError):
            store_identity(config, stored)


def source_hashes(config: Config) -> dict[str, str]:
    """Each bot's source hash now (read from its files, nothing of it run); "" for a bot
    whose files cannot be read."""
    def hashed(bot: BotSpec) -> str:
        try:
            return bot.source_hash()
        except (BadInput, OSError):
            return ""
    return {b.name: hashed(b) for b in config.bots}


def _warn_of_edits(config: Config, before: dict[str, str]) -> None:
    """Say which bots' code changed while the run played: their games mix two versions
    (the next run of the folder refuses it, and asks for --fresh)."""
    edited = edited_bots(config, before)
    if edited:
        text = (f"the code of {', '.join(edited)} changed while this run played: "
                f"{'its' if len(edited) == 1 else 'their'} games mix the old and the new "
                "version (run again with --fresh to play them all with the new one)")
        log.warning(text)
        print(f"arena: warning: {text}", file=sys.stderr, flush=True)
        mark_mixed(config.results_dir / CONFIG_FILE, edited)


def edited_bots(config: Config, before: dict[str, str]) -> list[str]:
    """The bots whose code is not what :func:`source_hashes` read ``before``."""
    return [name for name, now in source_hashes(config).items() if now != before.get(name)]


def _line_id(line: str) -> str:
    """The id of a record line this arena wrote (``{"schema":N,"id":"..."``)."""
    return line.partition('"id":"')[2].partition('"')[0]


RESUME = ("every game finished before is kept there: make room and run the same command "
          "again to resume")
RESUME_FRESH = ("every game finished before is kept there: make room and run it again "
                "without --fresh to resume")  # with it, the games kept would be deleted


def open_records(games: Path, mode: str = "ab", *, then: str = RESUME) -> IO[bytes]:
    """A records file, opened to take whole lines, unbuffered: a write that fails (a full
    disk) leaves nothing behind to be written again when it is closed."""
    try:
        return games.open(mode, buffering=0)
    except OSError as exc:
        raise _unwritable(games, exc, then) from None


def append_records(games: Path, out: IO[bytes], data: bytes, *, sync: bool = False,
                   then: str = RESUME) -> None:
    """Append record lines at once (to disk now and then, for a power cut); a line cut
    short by a failed write is dropped by the resume (``drop_torn_tail``). A failure is
    one line that says what to do (``then``)."""
    _check_unchanged(games, out)
    try:
        while data:
            data = data[out.write(data) or 0:]
        if sync:
            os.fsync(out.fileno())
    except OSError as exc:
        raise _unwritable(games, exc, then) from None


class RecordsChanged(ArenaError):
    """The records file was deleted, cut or written by another program during the run."""


def _check_unchanged(games: Path, out: IO[bytes]) -> None:
    """RecordsChanged unless ``out`` is still the file at ``games``, as this run left it: the
    games written after a deletion went nowhere, and after a cut one was glued to the torn
    line, which then refused every resume."""
    status = os.fstat(out.fileno())
    if status.st_nlink == 0 or status.st_size != out.tell():
        raise RecordsChanged(f"{games} was deleted, cut short or written by another program "
                             "while this run played: nothing more is written there; run the "
                             "same command again to resume (the games this run finished "
                             "since are written first, or played again)")


def _unwritable(games: Path, exc: OSError, then: str) -> ArenaError:
    """What stopped the write, and what to do: room is the cure for a full disk only (an
    immutable or read-only file was told to make room)."""
    if exc.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        then = then.replace("make room and ", "make it writable and ")
    return ArenaError(f"cannot write {games}: {exc.strerror or exc}; {then}")


def _job_for(config: Config, logs: Path) -> Job:
    return Job(config.game.name, dict(config.options), {b.name: b for b in config.bots},
                config.clock, config.faults, config.isolation, config.limits, logs,
                (config.output, config.results_dir))


def play_pairings(config: Config, pairings: list[Pairing], *, logs: Path
                  ) -> Iterator[GameRecord]:
    """Play pairings made outside the config's schedule (an SPRT batch) on the config's
    workers; each record comes back, in the order of ``pairings``, as soon as it and every
    one before it are played (a stop loses only the games after the first still in play).
    Closing the iterator early stops the workers."""
    lines = _results(_job_for(config, logs), pairings, config.workers,
                     affinity=config.affinity)
    waiting: dict[str, GameRecord] = {}
    at = 0
    for line in lines:
        record = GameRecord.from_json(line)
        waiting[record.id] = record
        while at < len(pairings) and pairings[at].id in waiting:
            yield waiting.pop(pairings[at].id)
            at += 1


def _backend(config: Config, job: Job, pending: list[Pairing], *, done: int,
             total: int) -> Iterator[str]:
    """Record lines as games finish, from the config's Dask cluster when it names one (Dask is
    imported only then, docs/cluster.md), else from the local pool."""
    if config.cluster is None:
        return _results(job, pending, config.workers, affinity=config.affinity)
    from arena.tournament.cluster import cluster_results

    return cluster_results(config.cluster, job, pending, tournament=config.name, done=done,
                           total=total)


def _results(job: Job, pending: list[Pairing], workers: int, *,
             affinity: bool = True) -> Iterator[str]:
    """Record lines as games finish: in this process for one worker, else on a pool; when
    the workers are at least as many as the CPUs this process may use, each is kept to one
    of them (unless ``affinity`` is off)."""
    if workers == 1 or len(pending) <= 1:
        failed: list[str] = []
        try:
            for p in pending:
                try:
                    yield play_pairing(p, job)
                except GameFailed as error:  # logged; the run goes on without the game
                    failed.append(str(error))
        finally:
            with deaf_to_ctrl_c():
                close_seats()
        if failed:
            raise ArenaError(f"{failed_text(failed)}; every other game is played and kept")
        return
    yield from pool_results(job, pending, workers, _pins(workers) if affinity else ())


def _pins(workers: int) -> tuple[int, ...]:
    """The CPUs a pool's workers take in turn, one each; none when there are CPUs to spare
    (the kernel moves a worker off one that other work keeps busy, a pin would not) or but
    one."""
    cpus = _cpus()
    return cpus if 1 < len(cpus) <= workers else ()


def _cpus() -> tuple[int, ...]:
    """The CPUs this process may run on; none where the system cannot say (not Linux)."""
    allowed = getattr(os, "sched_getaffinity", None)
    return tuple(sorted(allowed(0))) if allowed is not None else ()


class _Rate(ProgressColumn):
    """Games per second since this run started."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:.1f} games/s" if speed else "... games/s")


def _progress(enabled: bool) -> Progress:
    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    _Rate(), TimeRemainingColumn(), disable=not enabled, transient=False,
                    refresh_per_second=4)
