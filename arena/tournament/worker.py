"""A worker's side of a tournament: the job it was given, its bot processes kept across
games, and one pairing played (the local pool and the Dask workers both play through it)."""

from __future__ import annotations

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


def init_worker(job: Job) -> None:
    global _job
    _job = job
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides how to stop
    harden_self()
    Finalize(None, close_seats, exitpriority=10)


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
