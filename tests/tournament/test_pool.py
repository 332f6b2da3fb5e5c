"""The local pool: a worker that dies in the middle of a task loses nothing, and one killed
while it waits for a task stalls nothing."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from arena.tournament import pool, worker
from arena.tournament.config import Config, load_config
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

play_task = worker.play_task  # the real one, which the forked workers' stand-ins call
MARKER = "died.txt"  # where a worker notes that it died, so that the next try plays


def end_once(task: tuple[int, list[Pairing]]) -> tuple[int, list[str]]:
    """The first try of task 1 ends its worker in the middle of the task."""
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


def _config(tmp_path: Path, games: int = 16) -> Config:
    path = tmp_path / "pool.yaml"
    path.write_text(CONFIG.replace("games: 16", f"games: {games}")
                    + f"output: {tmp_path / 'out'}\n", encoding="utf-8")
    return load_config(path)


def _ids(lines: list[str]) -> list[str]:
    return sorted(line.split('"id":"', 1)[1].split('"', 1)[0] for line in lines)


def test_a_task_whose_worker_died_is_played_again_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = _config(tmp_path)
    pending = list(schedule_for(config))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(worker, "play_task", end_once)
    lines = list(pool.pool_results(_job_for(config, tmp_path / "logs"), pending, 2, ()))
    assert (tmp_path / MARKER).exists()  # a worker did die
    assert _ids(lines) == sorted(p.id for p in pending)  # each once


BUSY, FREED = "busy.txt", "freed.txt"  # the last task's worker has started it; may end it


def wait_for_the_idle_one_to_die(task: tuple[int, list[Pairing]]) -> tuple[int, list[str]]:
    """The last task holds its worker until the other worker, idle, has been killed."""
    index, _ = task
    if index == LAST:
        Path(BUSY).write_text(str(os.getpid()), encoding="utf-8")
        deadline = time.monotonic() + 120
        while not Path(FREED).exists() and time.monotonic() < deadline:
            time.sleep(0.01)
    return play_task(task)


LAST = 3  # the last task of a 4-game schedule, one game a task


def _kill_the_idle_worker() -> None:
    """Once the last task is being played, kill the other worker (idle: nothing is left to
    hand out), wait until it is gone, and let the last task end."""
    deadline = time.monotonic() + 120
    while not Path(BUSY).exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.5)  # the idle worker is back to reading its pipe
    busy = int(Path(BUSY).read_text(encoding="utf-8"))
    idle = [p for p in multiprocessing.active_children() if p.pid != busy]
    for process in idle:
        os.kill(process.pid or 0, signal.SIGKILL)
    for process in idle:
        process.join(60)
    Path(FREED).touch()


def test_a_worker_killed_while_it_waits_for_a_task_stalls_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """multiprocessing.Pool's workers wait for a task holding one shared lock: a worker
    killed then left the others, and the pool's close, waiting for ever."""
    config = _config(tmp_path, games=4)
    pending = list(schedule_for(config))
    assert len(pending) == LAST + 1
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(worker, "play_task", wait_for_the_idle_one_to_die)
    killer = threading.Thread(target=_kill_the_idle_worker, daemon=True)
    killer.start()
    lines: list[str] = []
    run = threading.Thread(target=lambda: lines.extend(pool.pool_results(
        _job_for(config, tmp_path / "logs"), pending, 2, ())), daemon=True)
    run.start()
    run.join(240)  # a loaded machine's room: the run itself takes about a second
    assert not run.is_alive(), "the pool never finished"
    assert (tmp_path / FREED).exists()  # the idle worker was killed
    assert _ids(lines) == sorted(p.id for p in pending)
