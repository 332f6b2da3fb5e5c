"""A worker's side of a tournament: the job it was given, its bot processes kept across
games, and one pairing played (the local pool and the Dask workers both play through it)."""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import signal
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.util import Finalize
from pathlib import Path
from typing import IO, Any

import msgspec

from arena.errors import ArenaError, BadInput, logged_lines
from arena.referee import Clock, FaultPolicy, Referee
from arena.seats.bot import BotSpec
from arena.seats.make import Isolation, Seat, make_seat
from arena.seats.sandbox import harden_self
from arena.seats.seat import Limits
from arena.tournament.logs import Relay, use_relays
from arena.tournament.schedule import Pairing
from arena.variants import find_variant


@dataclass(frozen=True, slots=True)
class Job:
    """What a worker needs to play any pairing of this tournament."""

    variant: str
    options: dict[str, Any]
    bots: dict[str, BotSpec]
    clock: Clock
    faults: FaultPolicy
    isolation: Isolation
    limits: Limits
    logs: Path
    results: tuple[Path, ...]  # the results folders, which its bots see empty
    unsaved: Path | None = None  # where a pool's workers keep each finished game at once


_job: Job | None = None
_seats: dict[tuple[str, int], Seat] = {}  # this worker's bot processes, kept across games
_unsaved: IO[bytes] | None = None  # this worker's file of finished games (Job.unsaved)
_parent = 0  # the run that started this pool worker
log = logging.getLogger("arena.tournament.worker")


def serve(pipe: Connection, others: list[Connection], parent_only: list[int], job: Job,
          cpu: int | None, relays: list[Relay]) -> None:
    """A pool worker's life: tasks from its own pipe, played, their lines sent back, until
    the pipe says stop (None) or closes with the run (each game played is kept then, by
    :func:`keep_unsaved`). It first closes what only the parent may hold, and logs through
    relays of its own."""
    use_relays(relays)
    for other in others:
        other.close()
    for fd in parent_only:
        with contextlib.suppress(OSError):
            os.close(fd)
    init_worker(job, cpu)
    with contextlib.suppress(EOFError, OSError):
        while (task := pipe.recv()) is not None:
            pipe.send(_outcome(task))


def _outcome(task: tuple[int, list[Pairing]]
             ) -> tuple[int, list[str] | GameFailed] | Exception:
    """A task's lines, or the error that stopped it, in a form the parent can read. What is
    no Exception (a KeyboardInterrupt raised by a bot run in process: this worker ignores
    Ctrl-C) ends the worker quietly, as os._exit would; the pool plays its task again."""
    try:
        return play_task(task)
    except GameFailed as failed:  # the pool plays the task's games again, one a task
        return task[0], failed
    except Exception as error:
        try:
            pickle.dumps(error)
        except Exception:
            return ArenaError(f"a worker failed: {type(error).__name__}: {error}")
        return error
    except BaseException:
        os._exit(1)


def init_worker(job: Job, cpu: int | None = None) -> None:
    """Set up a pool worker: its job and, given a ``cpu``, the one CPU it and the bots it
    starts keep to (see :func:`keep_to_one_cpu`)."""
    global _job
    _job = job
    for sig in (signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)  # the parent decides how to stop
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the pool's stop (the parent's own
    # SIGTERM handler, or its ignoring SIGTERM, inherited by the fork, would not end it)
    harden_self()
    global _parent
    _parent = os.getppid()
    if cpu is not None:
        keep_to_one_cpu(cpu)
    Finalize(None, close_seats, exitpriority=10)


def keep_to_one_cpu(cpu: int) -> None:
    """Keep this worker, and the bot processes it starts (they inherit it), to one CPU (the
    pool's pick_cpu). A game's referee and bots run one after another, and on one CPU they
    wake each other without crossing cores (bench/README.md: 13-18% more isolated games a
    second with 2 workers on 2 cores)."""
    with contextlib.suppress(OSError):  # a CPU taken away meanwhile: run unpinned
        os.sched_setaffinity(0, {cpu})


def close_seats() -> None:
    """Stop this worker's bot processes."""
    for seat in _seats.values():
        seat.close()
    _seats.clear()


def _seat(job: Job, name: str, copy: int) -> Seat:
    key = (name, copy)
    if key not in _seats:
        _seats[key] = make_seat(job.bots[name], isolation=job.isolation, limits=job.limits,
                                stderr_dir=job.logs, hide=job.results)
    return _seats[key]


class GameFailed(ArenaError):
    """An error of the arena itself stopped one game: the run goes on without it (a bug
    a bot's answer reaches must not end a tournament), and says so at its end."""

    game: str = ""  # the game's id
    trace: str = ""  # the error's traceback, for the log of a run whose worker is remote


def play_pairing(pairing: Pairing, job: Job | None = None) -> str:
    """Play one pairing on this worker's seats and return its record as a JSON line; an
    unexpected error is logged with its traceback and raised as :class:`GameFailed`, the
    worker's bots closed (the next game starts them afresh)."""
    job = job or _job
    assert job is not None
    seats = [_seat(job, n, pairing.seats[:i].count(n)) for i, n in enumerate(pairing.seats)]
    try:
        record = Referee(find_variant(job.variant), seats, pairing.seats, seed=pairing.seed,
                         options=job.options, clock=job.clock, faults=job.faults,
                         game_id=pairing.id).play()
    except BadInput:
        raise  # the config's own problem, the same for every game: the run stops
    except Exception as error:
        trace = traceback.format_exc()
        log.error("game %s stopped by an error of the arena; its bots are started again\n%s",
                  pairing.id, logged_lines(trace))  # a bot's words may be in its messages
        close_seats()
        failed = GameFailed(f"game {pairing.id}: {type(error).__name__}: {one_line(error)}")
        failed.game, failed.trace = pairing.id, trace  # pickled with it: BaseException
        # keeps __dict__
        raise failed from None
    return msgspec.structs.replace(record, dup_set=pairing.dup_set).to_json() + "\n"


def failed_text(errors: list[str], *, tries: int = 1) -> str:
    """What a run says of the games errors of the arena stopped (:class:`GameFailed`)."""
    games = "a game" if len(errors) == 1 else f"{len(errors)} games"
    times = f" {tries} times" if tries > 1 else ""
    return (f"{games} failed{times} by an error of the arena ({errors[0]}), its traceback in "
            "arena.log")


def one_line(error: BaseException) -> str:
    """An error's text on one short line, for the arena's one-line errors."""
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= 300 else text[:300].rpartition(" ")[0] + " ..."


def play_task(task: tuple[int, list[Pairing]]) -> tuple[int, list[str]]:
    """Play a pool's task, a few pairings (fewer round trips to the parent), in turn."""
    index, pairings = task
    lines = []
    for pairing in pairings:
        lines.append(play_pairing(pairing))
        keep_unsaved(lines[-1])
        if os.getppid() != _parent:  # the run was killed outright: what is played is kept
            os._exit(0)  # (sooner than at its next read of the pipe)
    return index, lines


def keep_unsaved(line: str) -> None:
    """Append a finished game's line to this worker's own file at once: the pool hands
    a task's lines back only when the whole task is done, and a run stopped (or killed)
    before then must not lose the games already played (runner.save_unsaved)."""
    global _unsaved
    if _job is None or _job.unsaved is None:
        return
    with contextlib.suppress(OSError):  # a full disk: the parent's own write will say so
        if _unsaved is None:
            _job.unsaved.mkdir(parents=True, exist_ok=True)
            _unsaved = (_job.unsaved / f"{os.getpid()}.jsonl").open("ab", buffering=0)
        _unsaved.write(line.encode())
