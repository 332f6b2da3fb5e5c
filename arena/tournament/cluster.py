"""Games on a Dask cluster: pairings go to the workers in batches, record lines come back to
this process (the driver), which alone writes them (runner.py).

Dask is imported only when a run names a cluster. What travels to a worker with each batch is
a :class:`Ticket`: the job (variant, options, bots' specs, clock, faults, isolation, limits),
the SHA-256 of every bot source file and the batch's pairings; never the results folder.
Each worker checks the bots' files against those hashes before its first game, and plays
every game through :func:`arena.tournament.worker.play_pairing`, as a local worker does.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import hashlib
import importlib
import logging
import secrets
import shutil
import sys
import tempfile
import threading
import time
import traceback
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from arena.errors import ArenaError, BadInput, logged_lines
from arena.seats import confine
from arena.seats.bot import ARENA_ROOT, BotSpec
from arena.seats.sandbox import harden_self
from arena.tournament.pool import deaf_to_ctrl_c
from arena.tournament.schedule import Pairing
from arena.tournament.worker import (
    GameFailed,
    Job,
    close_seats,
    failed_text,
    one_line,
    play_pairing,
)
from arena.variants import find_variant

log = logging.getLogger("arena.tournament.cluster")
EXTRA = "pip install 'rummy-arena[cluster]' (from a checkout: pip install -e '.[cluster]')"
TARGET_S = 1.0  # a batch's play time, against a task's cost of a few ms (bench/README.md)
MAX_BATCH = 64  # games in one batch at most, however fast they are
IN_FLIGHT = 2  # batches out per worker thread: one playing, one waiting to start
IDLE_CLOSE_S = 120.0  # a worker stops a run's bots after this long without a batch
ENDING_S = 20.0  # how long a stopping run waits for the workers to end its bots
WATCH_S = 5.0  # while no batch comes back, how often the driver counts the workers
POLL_S = 0.1  # how long a waiting driver naps between looks (as Dask's own wait does)
LOG_LINES = 1000  # of a batch's arena log lines, those relayed to the driver's arena.log
LOST = "scheduler-connection-lost"  # Dask's reason for futures cancelled by a lost scheduler
DASK_LOGGERS = ("distributed", "tornado", "bokeh")  # their console lines go to arena.log
IN_ARENA = "<arena>/"  # a source file of the installed arena (a built-in bot), by its path in it


@dataclass(frozen=True, slots=True)
class BotSources:
    """A bot's source files (:func:`source_name`) and the SHA-256 the driver read of each."""

    bot: str
    files: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Ticket:
    """What a worker needs to play this run's games, and to check it plays the driver's."""

    job: Job
    run: str  # drawn for each arena run: a worker stops the bots of an earlier run
    tournament: str  # names the worker's folder of bot logs
    variant_version: str
    sources: tuple[BotSources, ...]


@dataclass(frozen=True, slots=True)
class WorkerCheck:
    """A worker's answer to a ticket: whether it may play, and whether it confines bots."""

    worker: str
    problem: str | None  # one line: why it must not play (a bot's file differs, ...)
    unconfined: str | None  # why it cannot confine bots (it plays them unconfined)


@dataclass(frozen=True, slots=True)
class Batch:
    """A finished batch: its games' record lines by id, and what the driver reports."""

    worker: str
    games: tuple[tuple[str, str], ...]  # (game id, record line)
    seconds: float  # spent playing, for the size of the next batches
    problem: str | None
    unconfined: str | None
    log: tuple[tuple[str, int, str], ...] = ()  # (logger, level, message) of the arena's


# --------------------------------------------------------------------------- the driver


def cluster_results(address: str, job: Job, pending: list[Pairing], *, tournament: str,
                    done: int, total: int) -> Iterator[str]:
    """Record lines as the cluster's batches finish, each game's once (a batch retried after
    its worker died may bring games again); the same lines a local pool gives."""
    if not pending:
        return
    ticket = _ticket(job, tournament)
    with _dask_logs_in_arena_log():
        dispatch = _Dispatch(_connect(address), ticket, pending, address=address, done=done,
                             total=total)
        try:
            dispatch.check_workers()
            yield from dispatch.lines()
        except BaseException:  # stopped: a second Ctrl-C left the run's bots to idle out
            with deaf_to_ctrl_c():
                dispatch.close()
            raise
        dispatch.close()


def _dask() -> Any:
    """Dask's ``distributed`` module (its API is untyped), or a one-line error naming the
    extra that installs it."""
    try:
        return importlib.import_module("distributed")
    except ImportError as exc:
        raise BadInput(f"playing on a cluster needs Dask: {EXTRA}") from exc


def _connect(address: str) -> Any:
    """A client of the scheduler at ``address``; none answering is a one-line error."""
    try:
        return _dask().Client(address, set_as_default=False)
    except Exception as exc:  # Dask's own: a TLS address without TLS set up is a TypeError
        why = one_line(exc)
        _drop_quietly(exc)
    raise BadInput(f"no Dask scheduler answers at {address} ({why}); start one "
                   "(docs/cluster.md) or check the address")


def _drop_quietly(error: BaseException) -> None:
    """Collect the half-made client an error holds now, its failing close logged: left to
    the interpreter's exit, Dask printed its traceback under the arena's one-line error."""
    traceback.clear_frames(error.__traceback__)
    error.__traceback__ = None
    hook = sys.unraisablehook
    sys.unraisablehook = lambda failed: log.debug("closing a client that never connected: "
                                                   "%s", failed.exc_value)
    try:
        gc.collect()
    finally:
        sys.unraisablehook = hook


def _ticket(job: Job, tournament: str) -> Ticket:
    """The job as the workers get it: the results folders as absolute paths (their bots see
    them empty), and each bot file's hash, read as bytes (nothing of a bot runs here)."""
    sources = []
    for name, spec in job.bots.items():
        try:
            files = tuple((source_name(f), file_digest(f)) for f in spec.source_files())
        except OSError as exc:
            raise BadInput(f"bot {name!r}: cannot read its source ({exc})") from exc
        sources.append(BotSources(name, files))
    hidden = tuple(p.absolute() for p in job.results)
    return Ticket(replace(job, results=hidden), secrets.token_hex(8), tournament,
                  find_variant(job.variant).version, tuple(sources))


def source_name(path: Path) -> str:
    """A bot source file as a ticket names it: by its path inside the installed arena for a
    built-in bot (each machine installs arena where it likes), else by its absolute path,
    the same on every machine (the shared folder)."""
    path = path.absolute()
    with contextlib.suppress(ValueError):
        return IN_ARENA + path.relative_to(ARENA_ROOT).as_posix()
    return str(path)


def source_path(name: str) -> Path:
    """Where a file a ticket names is on this machine."""
    return ARENA_ROOT / name.removeprefix(IN_ARENA) if name.startswith(IN_ARENA) else Path(name)


def file_digest(path: Path) -> str:
    """The SHA-256 of a file's bytes."""
    with path.open("rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


class _Dispatch:
    """One run's traffic with the cluster: batches out, record lines back, each id once."""

    def __init__(self, client: Any, ticket: Ticket, pending: list[Pairing], *,
                 address: str, done: int, total: int) -> None:
        self.client = client
        self.ticket = ticket
        self.address = address
        self.done = done
        self.total = total
        self.queue = deque(pending)
        self.wanted = {p.id for p in pending}
        self.written: set[str] = set()
        self.flying: dict[Any, tuple[str, ...]] = {}  # each batch's future: its game ids
        self.finished = _dask().as_completed([], loop=client.loop)
        self.seconds = 0.0  # play time of the batches back, over
        self.timed = 0  # their games
        self.warned: set[str] = set()
        self.idle = False  # said that the cluster has no workers (until one comes)
        self.sent = 0

    def check_workers(self) -> None:
        """Check the workers there now before any game is played (a worker that joins
        later checks its first batch)."""
        try:
            checks: Mapping[str, WorkerCheck] = self.client.run(check_worker, self.ticket)
        except (OSError, TimeoutError) as exc:
            raise self.gone() from exc
        log.info("playing on the cluster at %s: %d workers checked", self.address, len(checks))
        self.note(list(checks.values()))

    def note(self, checks: list[WorkerCheck]) -> None:
        """Stop at a worker whose bots' files are not the driver's; name once each worker
        that cannot confine bots."""
        for check in checks:
            if check.problem is not None:
                raise BadInput(check.problem)
        new = [c for c in checks if c.unconfined and c.worker not in self.warned]
        if new:
            self.warned.update(c.worker for c in new)
            _warn(unconfined_line(new))

    def lines(self) -> Iterator[str]:
        """The record lines of the batches as they finish, new ids only."""
        self.refill()
        while self.flying:
            batch = self.next_batch()
            self.refill()
            for game, line in batch.games:
                if game in self.wanted and game not in self.written:
                    self.written.add(game)
                    yield line

    def refill(self) -> None:
        """Keep every worker thread of the cluster busy, with one batch more waiting."""
        try:
            threads = self.threads()
            slots = IN_FLIGHT * max(1, threads)
            while self.queue and len(self.flying) < slots:
                size = self.batch_size(slots)
                batch = tuple(self.queue.popleft() for _ in range(min(size, len(self.queue))))
                future = self.client.submit(play_batch, self.ticket, batch, pure=False,
                                            key=f"arena-games-{self.ticket.run}-{self.sent}")
                self.sent += 1
                self.flying[future] = tuple(p.id for p in batch)
                self.finished.add(future)
        except (OSError, TimeoutError) as exc:
            raise self.gone() from exc

    def threads(self) -> int:
        """The worker threads of the cluster now; say once when there are none (at the start,
        or every worker gone mid-run), and in arena.log when one has come since."""
        threads = int(sum(self.client.nthreads().values()))
        if not threads and not self.idle:
            _warn(f"the cluster at {self.address} has no workers: its games wait for one to "
                  "join")
        elif threads and self.idle:
            log.info("the cluster at %s has workers again: its games go on", self.address)
        self.idle = not threads
        return threads

    def wait_for_batch(self) -> Any:
        """The next finished batch's future, counting the workers every ``WATCH_S`` while
        none comes back: the batches of workers that all died wait, silent, for a new one."""
        counted = time.monotonic()
        woken = getattr(self.finished, "thread_condition", None)  # notified as one finishes
        while not self.finished.has_ready() and not self.finished.is_empty():
            if woken is None:
                time.sleep(POLL_S)
            else:
                with woken:
                    woken.wait(timeout=POLL_S)
            if time.monotonic() - counted >= WATCH_S:
                self.threads()
                counted = time.monotonic()
        return next(self.finished)

    def batch_size(self, slots: int) -> int:
        """One game until a batch has come back; then as many as play in about
        ``TARGET_S``, but no more than spread what is left over every slot."""
        if not self.timed:
            return 1
        per_game = max(self.seconds / self.timed, 1e-6)
        share = -(-len(self.queue) // slots)
        return max(1, min(MAX_BATCH, int(TARGET_S / per_game), share))

    def next_batch(self) -> Batch:
        """The next batch to finish, checked; an error of the cluster stops the run."""
        try:
            future = self.wait_for_batch()
        except (OSError, TimeoutError) as exc:
            raise self.gone() from exc
        ids = self.flying.pop(future)
        try:
            batch: Batch = future.result()
        except (OSError, TimeoutError) as exc:
            raise self.gone() from exc
        except Exception as exc:  # a Dask error, or what the batch raised on its worker
            if future.status == "cancelled":
                raise self.gone() if getattr(exc, "reason", LOST) == LOST else \
                    ArenaError(f"{_games(ids)} cancelled on the cluster ({exc})") from exc
            raise self.failed(exc, ids) from exc
        self.note([WorkerCheck(batch.worker, batch.problem, batch.unconfined)])
        self.relay(batch)
        self.seconds += batch.seconds
        self.timed += len(batch.games)
        return batch

    def relay(self, batch: Batch) -> None:
        """The batch's log lines into this run's arena.log, each naming its worker."""
        log.info("%d games from worker %s in %.2f s", len(batch.games), batch.worker,
                 batch.seconds)
        for name, level, message in batch.log:
            logging.getLogger(name).log(level, "%s [worker %s]", message, batch.worker)

    def failed(self, error: BaseException, ids: tuple[str, ...]) -> ArenaError:
        """A one-line error for a batch that raised on its worker, or killed its workers."""
        if isinstance(error, _dask().KilledWorker):
            return ArenaError(f"{_games(ids)} ended every worker process that played them "
                              f"({one_line(error)}); see the workers' logs")
        if isinstance(error, GameFailed):
            log.error("%s\n%s", error, logged_lines(error.trace))
            return ArenaError(f"{failed_text([str(error)])}; every game written before is "
                              "kept")
        if isinstance(error, ArenaError):
            return error
        log.error("%s failed on the cluster", _games(ids), exc_info=error)
        return ArenaError(f"{_games(ids)} failed on the cluster: {type(error).__name__}: "
                          f"{one_line(error)}")

    def gone(self) -> ArenaError:
        """The error of a cluster that went away: every game written so far is kept."""
        return ArenaError(f"the cluster at {self.address} went away after "
                          f"{self.done + len(self.written)} of {self.total} games; run the "
                          "same command again to resume")

    def close(self) -> None:
        """Take back what is still out, let the workers stop this run's bots, disconnect."""
        ending = threading.Thread(target=self._end_bots, daemon=True, name="arena-end-run")
        ending.start()
        ending.join(ENDING_S)  # a frozen worker or scheduler never answers: Ctrl-C hung here
        with contextlib.suppress(Exception):
            self.client.close(timeout=10)

    def _end_bots(self) -> None:
        """Cancel the games still out and have every worker end this run's bots (a worker
        left behind ends them itself after IDLE_CLOSE_S)."""
        with contextlib.suppress(Exception):
            if self.client.status == "running":
                self.client.cancel(list(self.flying))
                self.client.run(end_run, self.ticket.run, on_error="ignore")


def unconfined_line(checks: list[WorkerCheck]) -> str:
    """One warning naming the workers that play bots unconfined, and why."""
    named = ", ".join(f"{c.worker} ({c.unconfined})" for c in checks)
    return (f"bots run unconfined on worker{'s' if len(checks) > 1 else ''} {named}: they "
            "can read those machines' files and signal their processes; run only bots you "
            "trust")


def _warn(text: str) -> None:
    """A warning on the console, once, and in arena.log."""
    log.warning(text)
    print(f"arena: warning: {text}", file=sys.stderr, flush=True)


def _games(ids: tuple[str, ...]) -> str:
    """A batch's games, named by its first and last id for messages."""
    return f"games {ids[0]} to {ids[-1]}" if len(ids) > 1 else f"game {ids[0]}"


@contextlib.contextmanager
def _dask_logs_in_arena_log() -> Iterator[None]:
    """Dask's log lines go to arena.log (through the root logger) while the run lasts, not
    to the console, where each of the arena's errors is one line."""
    _dask()
    saved = []
    for name, logger in list(logging.root.manager.loggerDict.items()):
        if isinstance(logger, logging.Logger) and name.split(".")[0] in DASK_LOGGERS:
            console = [h for h in logger.handlers if type(h) is logging.StreamHandler]
            saved.append((logger, console, logger.propagate))
            for handler in console:
                logger.removeHandler(handler)
            logger.propagate = True
    try:
        yield
    finally:
        for logger, console, propagate in saved:
            for handler in console:
                logger.addHandler(handler)
            logger.propagate = propagate


# --------------------------------------------------------------------------- the workers


def check_worker(ticket: Ticket, dask_worker: Any = None) -> WorkerCheck:
    """Run by the driver on each worker before the first game (``Client.run``): are the
    bots' files the driver's, and can this machine confine bots?"""
    return _HERE.check(ticket, str(dask_worker.address) if dask_worker else "?")


def play_batch(ticket: Ticket, pairings: tuple[Pairing, ...]) -> Batch:
    """A Dask task: play the pairings on this worker's seats, as a local worker plays them,
    once this worker's check of the ticket has passed."""
    return _HERE.play(ticket, pairings, str(_dask().get_worker().address))


def end_run(run: str) -> None:
    """Stop the bots of a run that ended, in a thread of its own (``Client.run`` calls this
    on the worker's event loop, which must not wait for them)."""
    threading.Thread(target=_HERE.leave_run, args=(run,), daemon=True).start()


class _Worker:
    """This worker process's part in the runs: the seats of one run at a time, one batch at
    a time (the seats are this process's), each run's ticket checked once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.run: str | None = None
        self.job: Job | None = None
        self.checks: dict[str, WorkerCheck] = {}
        self.imported: dict[str, tuple[tuple[str, str], ...]] = {}  # in-process targets
        self.stamp = 0  # batches played: the idle timer of an older one does nothing
        self.idle: threading.Timer | None = None
        self.exiting = False

    def check(self, ticket: Ticket, worker: str) -> WorkerCheck:
        """This worker's check of the ticket, made once per run."""
        if ticket.run not in self.checks:
            self.checks = {ticket.run: checked(ticket, worker, self.imported)}
        return self.checks[ticket.run]

    def play(self, ticket: Ticket, pairings: tuple[Pairing, ...], worker: str) -> Batch:
        """Play a batch on this run's seats, or say why this worker must not."""
        with self.lock:
            check = self.check(ticket, worker)
            if check.problem is not None:
                return Batch(worker, (), 0.0, check.problem, check.unconfined)
            job = self.enter(ticket)
            start = time.perf_counter()
            with _kept_logs() as kept:
                games = tuple((p.id, play_pairing(p, job)) for p in pairings)
            seconds = time.perf_counter() - start
            self.wait_for_more()
        return Batch(worker, games, seconds, None, check.unconfined, tuple(kept.lines))

    def enter(self, ticket: Ticket) -> Job:
        """The job of the ticket's run, the seats of any other run stopped first."""
        if self.run != ticket.run or self.job is None:
            close_seats()
            harden_self()  # as a local worker: bots may not read this process's memory
            if not self.exiting:
                atexit.register(close_seats)
                self.exiting = True
            self.run, self.job = ticket.run, _worker_job(ticket)
            if ticket.job.isolation == "inprocess":
                bots = ticket.job.bots
                self.imported.update({bots[s.bot].target: s.files for s in ticket.sources
                                      if bots[s.bot].command is None})
        return self.job

    def wait_for_more(self) -> None:
        """Arm the idle timer again: no batch for a while, and this run's bots stop."""
        self.stamp += 1
        if self.idle is not None:
            self.idle.cancel()
        self.idle = threading.Timer(IDLE_CLOSE_S, self.leave_idle, (self.stamp,))
        self.idle.daemon = True
        self.idle.start()

    def leave_idle(self, stamp: int) -> None:
        """Stop the bots when no batch came since ``stamp`` (the driver may be gone)."""
        if self.lock.acquire(blocking=False):
            try:
                if self.stamp == stamp:
                    self.leave()
            finally:
                self.lock.release()

    def leave_run(self, run: str) -> None:
        """Stop the bots of ``run`` if they are this worker's (a later run's are kept)."""
        with self.lock:
            if self.run == run:
                self.leave()

    def leave(self) -> None:
        """Stop this worker's bots and forget the run: the next batch starts afresh."""
        close_seats()
        self.run = self.job = None


def checked(ticket: Ticket, worker: str,
            imported: Mapping[str, tuple[tuple[str, str], ...]]) -> WorkerCheck:
    """What this worker says of a ticket: the first reason it must not play, if any (its
    arena's variant version, then each bot's files), and why it cannot confine bots."""
    inprocess = ticket.job.isolation == "inprocess"
    problems = (source_problem(s, ticket.job.bots[s.bot], worker,
                               imported if inprocess else {}) for s in ticket.sources)
    problem = _version_problem(ticket, worker) or next(filter(None, problems), None)
    uses_processes = not inprocess or any(b.command for b in ticket.job.bots.values())
    return WorkerCheck(worker, problem, confine.problem() if uses_processes else None)


def _version_problem(ticket: Ticket, worker: str) -> str | None:
    """A worker whose arena plays other rules than the driver's would give other games."""
    try:
        here = find_variant(ticket.job.variant).version
    except BadInput:
        here = "no such variant"
    if here == ticket.variant_version:
        return None
    return (f"worker {worker} plays {here}, the driver {ticket.variant_version}: install the "
            "same arena on every machine")


def source_problem(sources: BotSources, spec: BotSpec, worker: str,
                   imported: Mapping[str, tuple[tuple[str, str], ...]]) -> str | None:
    """Why this worker must not play a bot: one of its files is missing or differs from
    the driver's, the worker finds the bot elsewhere, or (in process) it imported an older
    version in an earlier run. Files are read as bytes; nothing of the bot runs."""
    name = f"bot {sources.bot!r}"
    for source, digest in sources.files:
        path = source_path(source)
        try:
            found = file_digest(path)
        except OSError as exc:
            return (f"{name}: {path} is missing on worker {worker} ({exc.strerror or exc}); "
                    "every machine needs the shared folder at the same path")
        if found != digest:
            return (f"{name}: {path} differs on worker {worker} (SHA-256 {found[:12]}, the "
                    f"driver's {digest[:12]}); the shared folder must hold the same files "
                    "on every machine")
    try:
        here = sorted(source_name(f) for f in spec.source_files())
    except (BadInput, OSError) as exc:
        return f"{name}: worker {worker} cannot find it ({one_line(exc)})"
    there = sorted(source for source, _ in sources.files)
    if here != there:
        return (f"{name}: worker {worker} finds it in {', '.join(here) or 'nothing'}, the "
                f"driver in {', '.join(there) or 'nothing'}; start the workers in the "
                "driver's folder, with its PYTHONPATH")
    if spec.command is not None and shutil.which(spec.command[0]) is None \
            and not Path(spec.command[0]).is_file():
        return f"{name}: program {spec.command[0]!r} not found on worker {worker}"
    if imported.get(spec.target, sources.files) != sources.files:
        return (f"{name}: worker {worker} imported an older version of "
                f"{source_path(there[0])} in an earlier run (isolation: inprocess); restart "
                "that worker")
    return None


def _worker_job(ticket: Ticket) -> Job:
    """The ticket's job with this machine's folder for the bots' stderr logs, which its
    bots see empty too."""
    logs = Path(tempfile.gettempdir()) / "arena-logs" / ticket.tournament
    return replace(ticket.job, logs=logs, results=(*ticket.job.results, logs))


class _Kept(logging.Handler):
    """The arena's log lines of one batch (faults, restarts), for the driver's arena.log."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[tuple[str, int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        """Keep a line (up to ``LOG_LINES`` a batch: a bot decides how many faults)."""
        if len(self.lines) < LOG_LINES:
            self.lines.append((record.name, record.levelno, record.getMessage()))


@contextlib.contextmanager
def _kept_logs() -> Iterator[_Kept]:
    """Keep the arena's log lines while a batch plays, as a local run's arena.log would."""
    arena, kept = logging.getLogger("arena"), _Kept()
    level = arena.level
    arena.setLevel(logging.INFO)
    arena.addHandler(kept)
    try:
        yield kept
    finally:
        arena.removeHandler(kept)
        arena.setLevel(level)


_HERE = _Worker()
