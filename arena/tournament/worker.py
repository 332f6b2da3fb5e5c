"""A worker's side of a tournament: the job it was given, its bot processes kept across
games, and one pairing played (the local pool and the Dask workers both play through it)."""

from __future__ import annotations

import contextlib
import os
import signal
from dataclasses import dataclass
from multiprocessing.util import Finalize
from pathlib import Path
from typing import Any

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


_job: Job | None = None
_seats: dict[tuple[str, int], Seat] = {}  # this worker's bot processes, kept across games


def init_worker(job: Job, cpus: tuple[int, ...] = (), turns: Any = None) -> None:
    """Set up a pool worker: its job, and, given ``cpus`` and a shared counter of
    ``turns``, the one CPU it and the bots it starts keep to (see :func:`keep_to_one_cpu`)."""
    global _job
    _job = job
    for sig in (signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)  # the parent decides how to stop
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the pool's terminate (the parent's
    # own SIGTERM handler, inherited by the fork, would not end a worker)
    harden_self()
    if turns is not None:  # the pool pins its workers (runner._pins)
        with turns.get_lock():
            turn, turns.value = turns.value, turns.value + 1
        keep_to_one_cpu(cpus, turn)
    Finalize(None, close_seats, exitpriority=10)


def keep_to_one_cpu(cpus: tuple[int, ...], turn: int) -> None:
    """Keep this worker, and the bot processes it starts (they inherit it), to one CPU, the
    workers taking the CPUs in turn: a game's referee and bots run one after another, and
    on one CPU they wake each other without crossing cores (bench/README.md: 13-18% more
    isolated games a second with 2 workers on 2 cores)."""
    with contextlib.suppress(OSError):  # a CPU taken away meanwhile: run unpinned
        os.sched_setaffinity(0, {cpus[turn % len(cpus)]})


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
