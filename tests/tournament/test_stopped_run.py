"""A run stopped or killed in the middle keeps every game its workers finished.

The pool hands a worker a few pairings at a time and returns their lines only when all of
them are played; each worker therefore also appends every finished game to a file of its
own (``results/<name>/unsaved``), which the run writes to ``games.jsonl`` when it is
stopped, and the next run when it was killed outright (README "Stopping and resuming").
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from arena.records import GameRecord, read_games
from arena.tournament import runner
from arena.tournament.config import load_config
from arena.tournament.runner import UNSAVED, run_tournament, schedule_for

COUNTING_BOT = """
    from bots.random_bot import RandomBot

    class Counting(RandomBot):
        \"\"\"Plays as random and notes each game it finishes.\"\"\"

        def __init__(self, path: str) -> None:
            super().__init__()
            self.path = path

        def end_game(self, totals):
            with open(self.path, "a") as out:
                out.write("x\\n")
    """
GAMES = 256  # 16 a task on 2 workers (pool.pool_results)


def tournament(tmp_path: Path) -> tuple[Path, Path]:
    """A config of a counting bot against random on 2 workers in process; its notes file."""
    (tmp_path / "counting.py").write_text(textwrap.dedent(COUNTING_BOT), "utf-8")
    ended = tmp_path / "ended.txt"
    config = tmp_path / "stop.yaml"
    config.write_text(textwrap.dedent(f"""\
        name: stop
        variant: indian13
        options: {{players: 2, draw_cap: 20}}
        isolation: inprocess
        bots:
          - {{name: counting, module: {tmp_path / 'counting.py'}:Counting,
              params: {{path: {ended}}}}}
          - {{name: random, module: random}}
        format: {{games: {GAMES // 2}}}
        workers: 2
        seed: 3
        output: {tmp_path / 'results'}
        """), "utf-8")
    return config, ended


def finished(ended: Path) -> int:
    return len(ended.read_text().splitlines()) if ended.exists() else 0


def wait_until(what: object, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not what():  # type: ignore[operator]
        assert time.monotonic() < deadline, "not in time"
        time.sleep(0.01)


def test_a_stopped_run_keeps_every_game_its_workers_finished(tmp_path: Path) -> None:
    """Stopped at its first record, once the workers have finished 20 more games: those
    games sat in their tasks (and the rest of the first task's lines in the pool's queue),
    and all but the game each worker was closing (at most 2) used to be lost."""
    path, ended = tournament(tmp_path)
    config = load_config(path)
    seen: list[int] = []

    def stop(record: GameRecord, done: int, total: int) -> None:
        wait_until(lambda: finished(ended) >= 21)
        seen.append(finished(ended))
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_tournament(config, progress=False, on_game=stop)
    ids = [r.id for r in read_games(config.results_dir / "games.jsonl", actions=False)]
    assert len(ids) == len(set(ids))
    assert len(ids) >= seen[0] - 2, (len(ids), seen)
    assert not (config.results_dir / UNSAVED).exists()
    played = run_tournament(config, progress=False)  # the resume plays only the rest
    assert played == len(schedule_for(config)) - len(ids)


def test_ctrl_c_landing_just_after_a_record_is_written_keeps_it_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C arriving the moment a record reaches games.jsonl, before the run has noted
    it, is held until it has: the run then wrote the same game again from its worker's
    file (a CI run read t0000-g003 twice)."""
    path, _ = tournament(tmp_path)
    config = load_config(path)
    written = runner.append_records
    calls = []

    def written_then_ctrl_c(*args: Any, **kwargs: Any) -> None:
        written(*args, **kwargs)
        calls.append(args)
        if len(calls) == 3:
            signal.raise_signal(signal.SIGINT)  # handled at Python's next instruction

    monkeypatch.setattr(runner, "append_records", written_then_ctrl_c)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            run_tournament(config, progress=False)
    finally:
        signal.signal(signal.SIGINT, previous)
    lines = (config.results_dir / "games.jsonl").read_bytes().splitlines()
    ids = [GameRecord.from_json(line, actions=False).id for line in lines]
    assert ids and len(ids) == len(set(ids)), ids
    played = run_tournament(config, progress=False)  # the resume plays only the rest
    assert played == len(schedule_for(config)) - len(ids)


def test_a_run_killed_outright_leaves_no_worker_and_its_games_are_kept(
        tmp_path: Path) -> None:
    """SIGKILL gives the arena no chance to write what its workers hold: each worker stops
    once the game it is playing is kept (they used to play their whole task on), and the
    next run writes the games they finished before it plays the rest. No worker prints a
    broken pipe (one handing a task's lines back to multiprocessing.Pool's dead parent
    used to)."""
    path, ended = tournament(tmp_path)
    config = load_config(path)
    arena = subprocess.Popen(
        [sys.executable, "-c", "from arena.cli.app import main; main()", "run", str(path)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: finished(ended) >= 40 or arena.poll() is not None)
    finally:
        os.kill(arena.pid, signal.SIGKILL)
        _, err = arena.communicate(timeout=60)
    assert "Traceback" not in err, err
    at_kill = finished(ended)
    time.sleep(1.0)
    assert finished(ended) <= at_kill + 2  # the games in play when it died, no more
    games = config.results_dir / "games.jsonl"
    written = {r.id for r in read_games(games, actions=False)} if games.exists() else set()
    kept = set()
    for part in (config.results_dir / UNSAVED).rglob("*.jsonl"):
        kept |= {GameRecord.from_json(line, actions=False).id
                 for line in part.read_bytes().splitlines(keepends=True)
                 if line.endswith(b"\n")}
    assert len(written | kept) >= finished(ended) - 2, (len(written), len(kept))
    played = run_tournament(config, progress=False)
    assert played == len(schedule_for(config)) - len(written | kept)
    assert not (config.results_dir / UNSAVED).exists()
