"""A worker's side of a tournament: the job it was given, its bot processes kept across
games, and one pairing played (the local pool and the Dask workers both play through it)."""

from __future__ import annotations

import contextlib
import os
import signal
from collections import Counter
from dataclasses import dataclass
from multiprocessing.util import Finalize
from pathlib import Path
from typing import IO, Any

import msgspec

from arena.referee import Clock, FaultPolicy, Referee
from arena.seats.bot import BotSpec
from arena.seats.make import Isolation, Seat, make_seat
from arena.seats.sandbox import harden_self
from arena.seats.seat import Limits
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


SLOTS = 1024  # workers a pool may start, replacements included, before slots are reused


@dataclass(frozen=True, slots=True)
class Board:
    """Shared memory in which a pool's workers say who they are and which task each plays:
    a worker that dies takes its task with it, and the pool's parent must know which."""

    started: Any  # a shared int: the workers started so far, each taking the next slot
    pids: Any  # a shared int array of SLOTS: each slot's worker process id
    playing: Any  # a shared int array of SLOTS: the task its worker plays or played last

    @classmethod
    def new(cls, ctx: Any) -> Board:
        """A board in memory that the pool's forked workers share."""
        return cls(ctx.Value("i", 0), ctx.Array("i", SLOTS, lock=False),
                   ctx.Array("i", [-1] * SLOTS, lock=False))


_job: Job | None = None
_seats: dict[tuple[str, int], Seat] = {}  # this worker's bot processes, kept across games
_board: Board | None = None
_slot = 0  # this worker's slot on the board
_unsaved: IO[bytes] | None = None  # this worker's file of finished games (Job.unsaved)
_parent = 0  # the run that started this pool worker


def init_worker(job: Job, cpus: tuple[int, ...] = (), board: Board | None = None) -> None:
    """Set up a pool worker: its job, its slot on the ``board``, and, given ``cpus``, the
    one CPU it and the bots it starts keep to (see :func:`keep_to_one_cpu`)."""
    global _job
    _job = job
    for sig in (signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)  # the parent decides how to stop
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the pool's terminate (the parent's
    # own SIGTERM handler, or its ignoring SIGTERM, inherited by the fork, would not end it)
    harden_self()
    global _parent
    _parent = os.getppid()
    if board is not None:
        turn = _take_slot(board)
        if cpus:  # the pool pins its workers (runner._pins)
            keep_to_one_cpu(cpus, turn, _taken_cpus(board, turn))
    Finalize(None, close_seats, exitpriority=10)


def _take_slot(board: Board) -> int:
    """Take the next slot on the board, under this worker's process id; return its turn."""
    global _board, _slot
    with board.started.get_lock():
        turn: int = board.started.value
        board.started.value = turn + 1
    _board, _slot = board, turn % SLOTS
    board.playing[_slot] = -1
    board.pids[_slot] = os.getpid()
    return turn


def keep_to_one_cpu(cpus: tuple[int, ...], turn: int,
                    taken: Counter[int] | None = None) -> None:
    """Keep this worker, and the bot processes it starts (they inherit it), to one CPU: the
    one the fewest live workers keep to (``taken``), the workers taking the CPUs in turn
    on a tie, so that a worker started in place of one that died takes its CPU. A game's
    referee and bots run one after another, and on one CPU they wake each other without
    crossing cores (bench/README.md: 13-18% more isolated games a second with 2 workers on
    2 cores)."""
    taken = taken or Counter()
    cpu = min(cpus, key=lambda c: (taken[c], (cpus.index(c) - turn) % len(cpus)))
    with contextlib.suppress(OSError):  # a CPU taken away meanwhile: run unpinned
        os.sched_setaffinity(0, {cpu})


def _taken_cpus(board: Board, turn: int) -> Counter[int]:
    """How many of the workers started before this one, and still alive, keep to each CPU."""
    taken = Counter[int]()
    for slot in range(min(turn, SLOTS)):
        pid = board.pids[slot]
        with contextlib.suppress(OSError):  # gone (or not yet there): its CPU is free
            cpus = os.sched_getaffinity(pid) if pid else set()
            if len(cpus) == 1:
                taken.update(cpus)
    return taken


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


def play_pairing(pairing: Pairing, job: Job | None = None) -> str:
    """Play one pairing on this worker's seats and return its record as a JSON line."""
    job = job or _job
    assert job is not None
    seats = [_seat(job, n, pairing.seats[:i].count(n)) for i, n in enumerate(pairing.seats)]
    record = Referee(find_variant(job.variant), seats, pairing.seats, seed=pairing.seed,
                     options=job.options, clock=job.clock, faults=job.faults,
                     game_id=pairing.id).play()
    return msgspec.structs.replace(record, dup_set=pairing.dup_set).to_json() + "\n"


def play_task(task: tuple[int, list[Pairing]]) -> tuple[int, list[str]]:
    """Play a pool's task, a few pairings (fewer round trips to the parent), in turn; the
    board says which task this worker plays until it takes the next."""
    index, pairings = task
    if _board is not None:
        _board.playing[_slot] = index
    lines = []
    for pairing in pairings:
        lines.append(play_pairing(pairing))
        keep_unsaved(lines[-1])
        if os.getppid() != _parent:  # the run was killed outright: what is played is kept
            os._exit(0)  # (a parent-death signal would also end the workers the pool
            # starts from a thread of its own, when that thread ends, and while they wait
            # for a task: holding the pool's lock, which its terminate then waits for)
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
