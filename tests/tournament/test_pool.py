"""The local pool: a worker that dies in the middle of a task loses nothing, whether it died
after saying on the board which task it played or just before."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from arena.tournament import pool, worker
from arena.tournament.config import load_config
from arena.tournament.runner import _job_for, schedule_for
from arena.tournament.schedule import Pairing

CONFIG = """\
name: pool
isolation: inprocess
variant: indian13
options:
  players: 2
bots:
  - name: random
    module: bots.random_bot:RandomBot
  - name: random-2
    module: bots.random_bot:RandomBot
format:
  games: 16
seed: 3
"""

play_task = worker.play_task  # the real one, which the forked workers' stand-in calls
MARKER = "died.txt"  # where a worker notes that it died, so that the next try plays


def end_after_saying(task: tuple[int, list[Pairing]]) -> tuple[int, list[str]]:
    """The first try of task 1 ends its worker once the board names the task."""
    index, _ = task
    if index == 1 and _first_death():
        assert worker._board is not None
        worker._board.playing[worker._slot] = index
        os._exit(9)
    return play_task(task)


def end_before_saying(task: tuple[int, list[Pairing]]) -> tuple[int, list[str]]:
    """The first try of task 1 ends its worker before the board names it."""
    index, _ = task
    if index == 1 and _first_death():
        os._exit(9)
    return play_task(task)


def _first_death() -> bool:
    try:
        os.close(os.open(MARKER, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


@pytest.mark.parametrize("stand_in", [end_after_saying, end_before_saying])
def test_a_task_whose_worker_died_is_played_again_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stand_in: Any) -> None:
    path = tmp_path / "pool.yaml"
    path.write_text(CONFIG + f"output: {tmp_path / 'out'}\n", encoding="utf-8")
    config = load_config(path)
    pending = list(schedule_for(config))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(pool, "play_task", stand_in)
    monkeypatch.setattr(pool, "STRAY_S", 1.0)
    lines = list(pool.pool_results(_job_for(config, tmp_path / "logs"), pending, 2, ()))
    assert (tmp_path / MARKER).exists()  # a worker did die
    ids = [line.split('"id":"', 1)[1].split('"', 1)[0] for line in lines]
    assert sorted(ids) == sorted(p.id for p in pending)  # each once
