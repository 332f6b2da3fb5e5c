"""With a worker for every CPU, each worker of the local pool, and the bots it starts, keep
to one CPU (``affinity``).

A game's referee and its bots run one after another, so on one CPU they wake each other
without crossing cores; the workers take the CPUs this process may use in turn.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections import Counter, deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest
from conftest import writable_by_bots

from arena.errors import BadInput
from arena.tournament import runner
from arena.tournament.config import load_config
from arena.tournament.pool import Crew, pick_cpu
from arena.tournament.runner import run_tournament
from arena.tournament.worker import Job

BOTS = Path(__file__).parents[1] / "bots"
CPUS = sorted(os.sched_getaffinity(0))


def _config(folder: Path, affinity: str | None) -> Path:
    report = writable_by_bots(folder / "notes.jsonl")
    config = folder / "cpus.yaml"
    line = "" if affinity is None else f"affinity: {affinity}\n"
    config.write_text(f"""\
name: cpus
variant: indian13
options: {{players: 2, draw_cap: 4}}
bots:
  - name: reporter
    module: {BOTS / 'cpu_reporter.py'}:CpuReporter
    params: {{report: {report}}}
    write: [{report}]
  - name: random
    module: bots.random_bot:RandomBot
format: {{games: 8}}
workers: {len(CPUS)}
{line}output: {folder / 'results'}
""", "utf-8")
    return config


def _cpus_seen(folder: Path, affinity: str | None) -> list[list[int]]:
    assert run_tournament(load_config(_config(folder, affinity)), progress=False) == 8
    notes = (folder / "notes.jsonl").read_text("utf-8").splitlines()
    return [json.loads(line)["cpus"] for line in notes]


@pytest.mark.skipif(len(CPUS) < 2, reason="needs two CPUs to keep workers apart")
def test_by_default_each_bot_of_a_pool_runs_on_one_of_the_cpus_given(tmp_path: Path) -> None:
    check, *games = _cpus_seen(tmp_path, None)
    assert check == CPUS  # the start-up check, from this process, before the pool
    assert len(games) == 8  # every game started, in either worker
    assert all(len(cpus) == 1 and cpus[0] in CPUS for cpus in games)


@pytest.mark.skipif(len(CPUS) < 2, reason="needs two CPUs to tell")
def test_affinity_false_leaves_the_bots_every_cpu(tmp_path: Path) -> None:
    assert _cpus_seen(tmp_path, "false") == [CPUS] * 9  # the start-up check, then 8 games


@pytest.mark.skipif(len(CPUS) < 2, reason="needs two CPUs to keep workers apart")
def test_the_workers_take_the_cpus_in_turn() -> None:
    cpus = (0, 1, 3)
    assert [pick_cpu(cpus, turn, Counter()) for turn in range(4)] == [0, 1, 3, 0]
    assert pick_cpu((), 0, Counter()) is None  # nothing pinned


def test_affinity_must_be_true_or_false(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match=r"cpus.yaml:\d+: affinity: expected true or false, "
                                       r"got 'yes please'"):
        load_config(_config(tmp_path, "yes please"))


def test_where_the_system_cannot_say_which_cpus_the_pool_is_not_pinned(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert runner._cpus() == tuple(CPUS)
    monkeypatch.delattr(os, "sched_getaffinity")  # as on systems other than Linux
    assert runner._cpus() == ()
    assert runner._pins(len(CPUS)) == ()


def test_only_a_worker_for_every_cpu_is_pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "_cpus", lambda: (0, 1, 2, 3))
    assert runner._pins(4) == runner._pins(6) == (0, 1, 2, 3)
    assert runner._pins(2) == ()  # CPUs to spare: the kernel may move a worker off a busy one
    monkeypatch.setattr(runner, "_cpus", lambda: (5,))
    assert runner._pins(2) == ()  # one CPU: nothing to choose


def _pinned(pid: int) -> set[int] | None:
    """The one CPU a process keeps to, once it does."""
    cpus = os.sched_getaffinity(pid)
    return cpus if len(cpus) == 1 else None


def _wait_for(what: Callable[[], Any], timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while not (found := what()):
        assert time.monotonic() < deadline, "not in time"
        time.sleep(0.02)
    return found


@pytest.mark.skipif(len(CPUS) < 2, reason="needs two CPUs to keep workers apart")
def test_a_worker_started_in_place_of_a_dead_one_takes_its_cpu() -> None:
    cpus = tuple(CPUS[:2])
    crew = Crew(cast(Job, None), 2, cpus)  # idle workers: no task, so no job, is needed
    try:
        first, second = crew.workers
        assert _wait_for(lambda: _pinned(first.process.pid or 0)) == {cpus[0]}
        assert _wait_for(lambda: _pinned(second.process.pid or 0)) == {cpus[1]}
        os.kill(second.process.pid or 0, signal.SIGKILL)  # the one started in its place
        # would, in turn, take the first CPU, where the other worker already is
        _wait_for(lambda: any(outcome is None for _, outcome in crew.outcomes()))
        crew.hand_out(deque([(0, []), (1, [])]))  # more than the idle one takes: a worker
        # is started in its place
        third = crew.workers[-1]
        assert crew.started == 3 and third.cpu == cpus[1]
        assert _wait_for(lambda: _pinned(third.process.pid or 0)) == {cpus[1]}
    finally:
        crew.stop()
