"""The local pool: a worker that dies in the middle of a task loses nothing, and one killed
while it waits for a task stalls nothing."""

from __future__ import annotations

import logging
import multiprocessing
import os
import re
import resource
import signal
import threading
import time
from collections import deque
from dataclasses import replace
from pathlib import Path
from typing import cast

import multiprocessing_logging
import pytest

from arena.errors import ArenaError
from arena.records import GameRecord
from arena.referee import Referee
from arena.tournament import pool, worker
from arena.tournament.config import Config, load_config
from arena.tournament.runner import _job_for, run_tournament, schedule_for, writing
from arena.tournament.schedule import Pairing
from arena.tournament.worker import Job

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


def test_ctrl_c_while_a_worker_is_forked_is_raised_after_the_fork() -> None:
    """Raised inside Python's fork hooks, Ctrl-C left logging's lock taken (the run then hung
    as it stopped); in a child not yet set up, it printed a traceback."""
    reached = False
    with pytest.raises(KeyboardInterrupt), pool.signals_held():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # the handler runs here, between bytecodes: it only notes it
        reached = True
    assert reached


def _close_every_descriptor(task: tuple[int, list[Pairing]]) -> tuple[int, list[str]]:
    """The first try of task 1 closes every descriptor of its worker (its pipe too), as a
    careless bot run in process might, and lives on for a while."""
    index, _ = task
    if index == 1 and _first_death():
        os.closerange(3, 4096)
        time.sleep(3)
        os._exit(0)
    return play_task(task)


def test_a_worker_whose_pipe_closed_is_replaced_without_spinning(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The parent used to read that closed pipe again and again, at full CPU, until the
    worker ended."""
    config = _config(tmp_path)
    pending = list(schedule_for(config))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(worker, "play_task", _close_every_descriptor)
    before = resource.getrusage(resource.RUSAGE_SELF)
    lines = list(pool.pool_results(_job_for(config, tmp_path / "logs"), pending, 2, ()))
    after = resource.getrusage(resource.RUSAGE_SELF)
    assert (tmp_path / MARKER).exists()
    assert _ids(lines) == sorted(p.id for p in pending)
    assert after.ru_utime - before.ru_utime < 1.5  # spinning for 3 s took about 3 s


def _interrupt_once(task: tuple[int, list[Pairing]]) -> tuple[int, list[str]]:
    """The first try of task 1 raises what is no Exception, as a bot run in process may."""
    index, _ = task
    if index == 1 and _first_death():
        raise KeyboardInterrupt
    return play_task(task)


def test_a_worker_ended_by_a_keyboard_interrupt_prints_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capfd: pytest.CaptureFixture[str]) -> None:
    config = _config(tmp_path)
    pending = list(schedule_for(config))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(worker, "play_task", _interrupt_once)
    lines = list(pool.pool_results(_job_for(config, tmp_path / "logs"), pending, 2, ()))
    assert (tmp_path / MARKER).exists()
    assert _ids(lines) == sorted(p.id for p in pending)
    assert "Traceback" not in capfd.readouterr().err


def test_no_worker_holds_the_results_folder_s_lock(tmp_path: Path) -> None:
    """A worker orphaned by kill -9 of its run held the lock, and the next run was refused,
    naming the dead run, until that worker ended."""
    folder = tmp_path / "results"
    with writing(folder):
        crew = pool.Crew(cast(Job, None), 2, ())
    try:
        crew.hand_out(deque([(0, []), (1, [])]))  # tasks of no game: once each worker has
        answers: list[object] = []  # answered, it is set up
        deadline = time.monotonic() + 120
        while len(answers) < 2 and time.monotonic() < deadline:
            answers += [answer for _, answer in crew.outcomes()]
        assert sorted(answers) == [(0, []), (1, [])]  # type: ignore[type-var]
        with writing(folder):  # the run has let go, its workers live on: a next run may
            pass  # start (BadInput, "another arena run is writing", if a worker held it)
    finally:
        crew.stop()


KILLER = "t0000-g005"  # the game that ends every worker that plays it
play_pairing = worker.play_pairing


def _end_at_the_killer(pairing: Pairing, job: Job | None = None) -> str:
    if pairing.id == KILLER:
        os._exit(9)
    return play_pairing(pairing, job)


def test_a_game_that_ends_its_workers_is_the_only_one_given_up(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A task holds several games; the whole task used to be blamed, and the games after the
    killer in it never played."""
    config = _config(tmp_path, games=64)
    pending = list(schedule_for(config))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(worker, "play_pairing", _end_at_the_killer)
    lines: list[str] = []
    with pytest.raises(ArenaError, match=f"^game {KILLER} ended the worker process that "
                       "played it 3 times"):
        lines.extend(pool.pool_results(_job_for(config, tmp_path / "logs"), pending, 2, ()))
    assert _ids(lines) == sorted(p.id for p in pending if p.id != KILLER)


real_play = Referee.play


def _arena_bug_at_the_killer(self: Referee) -> GameRecord:
    """An error of the arena itself (a bug a bot's answer reaches) in one game, each time
    it is played; the tries are counted in a file, as the pool's workers are processes."""
    if self.game_id == KILLER:
        with open(MARKER, "a", encoding="utf-8") as tries:
            tries.write("x")
        raise TypeError("a bug in the referee") from RuntimeError("\x1b[2Ja bot's words")
    return real_play(self)


@pytest.mark.parametrize("workers", [1, 2])
def test_an_error_of_the_arena_in_one_game_does_not_stop_the_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int) -> None:
    """Such an error stopped the whole run at once (a traceback, the games after it never
    played; a resume met the same game again); now the game is logged with its traceback,
    given up after its tries, and every other game is played and kept."""
    config = replace(_config(tmp_path), workers=workers)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(Referee, "play", _arena_bug_at_the_killer)
    tries = pool.ALLOWED_FAILURES if workers > 1 else 1
    with pytest.raises(ArenaError, match=re.escape(
            f"a game failed{f' {tries} times' if tries > 1 else ''} by an error of the arena "
            f"(game {KILLER}: TypeError: a bug in the referee), its traceback in arena.log; "
            "every other game is played and kept")):
        run_tournament(config, progress=False)
    records = (config.results_dir / "games.jsonl").read_text(encoding="utf-8").splitlines()
    assert _ids(records) == sorted(p.id for p in schedule_for(config) if p.id != KILLER)
    assert len((tmp_path / MARKER).read_text(encoding="utf-8")) == tries
    log = (config.results_dir / "arena.log").read_text(encoding="utf-8")
    assert f"game {KILLER} stopped by an error of the arena" in log
    assert "TypeError: a bug in the referee" in log and "Traceback" in log
    assert "RuntimeError: \\x1b[2Ja bot's words" in log and "\x1b" not in log  # escaped


def _stuck(task: tuple[int, list[Pairing]]) -> tuple[int, list[str]]:
    time.sleep(120)
    return task[0], []


def test_workers_that_do_not_stop_are_killed_at_one_deadline(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each worker told to stop had STOP_S seconds of its own: 4 stuck workers cost 4 x."""
    monkeypatch.setattr(worker, "play_task", _stuck)
    monkeypatch.setattr(pool, "STOP_S", 2.0)
    crew = pool.Crew(cast(Job, None), 4, ())
    crew.hand_out(deque((i, []) for i in range(4)))
    started = time.monotonic()
    crew.close()
    assert time.monotonic() - started < 6.0  # one deadline: 2 s, and the kills
    assert crew.workers == []


def _die_holding_the_log(pairing: Pairing, job: Job | None = None) -> str:
    """The first game played kills its worker while it holds the lock of the queue its log
    records go to, as a kill in the middle of a record's write does; every game logs."""
    if _first_death():
        for relay in logging.getLogger().handlers:
            if isinstance(relay, multiprocessing_logging.MultiProcessingHandler):
                relay.queue._wlock.acquire()
        os.kill(os.getpid(), signal.SIGKILL)
    logging.getLogger("arena.test").info("played %s", pairing.id)
    return play_pairing(pairing, job)


def test_a_worker_killed_while_it_logs_silences_no_other(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """All workers wrote to one queue behind one lock: once a worker died holding it, no
    later record of any worker reached arena.log (here none of 16 games), and each worker
    told to stop waited on that lock until it was killed, 30 s later."""
    config = _config(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(worker, "play_pairing", _die_holding_the_log)
    assert run_tournament(config, progress=False) == 16
    assert (tmp_path / MARKER).exists()  # a worker did die
    log = (config.results_dir / "arena.log").read_text(encoding="utf-8")
    assert sorted(set(re.findall(r"played (t\d{4}-g\d{3})", log))) == sorted(
        p.id for p in schedule_for(config))
