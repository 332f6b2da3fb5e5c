"""The tournament runner: records match the schedule, same games at any worker count, resume,
refusal of a changed config, torn lines, and stops by SIGKILL and Ctrl-C."""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import alive, children, cmdline, cpu_ticks, descendants

from arena.errors import BadInput
from arena.records import SCHEMA, read_games
from arena.tournament.config import Config, load_config
from arena.tournament.runner import UNSAVED, run_tournament, schedule_for

ROOT = Path(__file__).parents[2]
TIMES = ("time_mean_ms", "time_p95_ms", "time_max_ms")
ARENA = [sys.executable, "-c", "from arena.cli.app import main; main()"]
# The arena as a terminal starts it, with SIGINT raising KeyboardInterrupt, even where the tests
# run with SIGINT ignored (a background job of a non-interactive shell), which children
# inherit, and SIGHUP and SIGTERM not ignored (the tests may run under nohup, or as a job
# that ignores SIGTERM)
INTERRUPTIBLE_ARENA = [sys.executable, "-c", "import signal; "
                       "signal.signal(signal.SIGINT, signal.default_int_handler); "
                       "signal.signal(signal.SIGHUP, signal.SIG_DFL); "
                       "signal.signal(signal.SIGTERM, signal.SIG_DFL); "
                       "from arena.cli.app import main; main()"]
# The arena started under nohup: SIGHUP ignored
NOHUP_ARENA = [sys.executable, "-c", "import signal; "
               "signal.signal(signal.SIGHUP, signal.SIG_IGN); "
               "from arena.cli.app import main; main()"]


def full_disk_arena(limit: int) -> tuple[str, ...]:
    """The arena where no file may grow past ``limit`` bytes, as on a disk that fills up
    (Python ignores SIGXFSZ, so the write fails with EFBIG)."""
    return (sys.executable, "-c", "import resource; "
            f"resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit})); "
            "from arena.cli.app import main; main()")


# The same, with a second Ctrl-C landing just as the arena starts to stop its workers and bots
# (the pool's Crew.stop, the one-worker run's close_seats): the worst moment for one
TWICE_INTERRUPTED_ARENA = [
    sys.executable, "-c", "import os, signal; "
    "signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from arena.tournament import runner; from arena.tournament.pool import Crew; "
    "again = lambda stop: lambda *a, **k: (os.kill(os.getpid(), signal.SIGINT), stop(*a, **k)); "
    "Crew.stop, runner.close_seats = again(Crew.stop), again(runner.close_seats); "
    "from arena.cli.app import main; main()"]


def config_text(*, name: str = "tiny", games: int = 2, seed: int | None = 5, workers: int = 1,
                output: Path, third: str = "bots.random_bot:RandomBot",
                isolation: str = "inprocess") -> str:
    """A 2-seat round robin of 3 bots: 3 tables x ``games``; in-process bots unless told."""
    return f"""\
name: {name}
isolation: {isolation}
variant: indian13
options:
  players: 2
bots:
  - name: greedy
    module: bots.greedy:GreedyBot
  - name: random
    module: bots.random_bot:RandomBot
  - name: random-2
    module: {third}
format:
  games: {games}
{"" if seed is None else f"seed: {seed}"}
workers: {workers}
output: {output}
"""


def make_config(tmp_path: Path, file: str = "cfg.yaml", **kw: Any) -> Config:
    kw.setdefault("output", tmp_path / "out")
    path = tmp_path / file
    path.write_text(config_text(**kw), encoding="utf-8")
    return load_config(path)


RUN_CONFIG = "run.yaml"  # the config file of start_run


def start_run(tmp_path: Path, *, lines: int = 0, command: Sequence[str] = (),
              **kw: Any) -> tuple[Config, subprocess.Popen[str]]:
    """Write a config (:func:`make_config`, as ``RUN_CONFIG``), start ``arena run`` on it (as
    ``command`` starts it), and wait for ``lines`` finished games."""
    config = make_config(tmp_path, RUN_CONFIG, **kw)
    proc = start_arena("run", tmp_path / RUN_CONFIG, cwd=tmp_path,
                       command=tuple(command or INTERRUPTIBLE_ARENA))
    if lines:
        wait_for_lines(games_file(config), proc, lines)
    return config, proc


def games_file(config: Config) -> Path:
    return config.results_dir / "games.jsonl"


def ids_in(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text("utf-8").splitlines()]


def ids_in_lines(lines: list[str]) -> list[str]:
    return [json.loads(line)["id"] for line in lines]


def comparable(line: str) -> dict[str, Any]:
    """A record without the decision times, which are measured and vary run to run."""
    raw = json.loads(line)
    for seat in raw["seats"]:
        for key in TIMES:
            seat.pop(key)
    return dict(raw)


def by_id(path: Path) -> dict[str, dict[str, Any]]:
    records = [comparable(line) for line in path.read_text("utf-8").splitlines()]
    out = {r["id"]: r for r in records}
    assert len(out) == len(records), "duplicate ids"
    return out


def assert_complete(config: Config) -> None:
    """Every scheduled id exactly once, every line whole."""
    path = games_file(config)
    data = path.read_bytes()
    assert data.endswith(b"\n")
    for line in data.decode().splitlines():
        json.loads(line)
    ids = ids_in(path)
    assert Counter(ids) == Counter(p.id for p in schedule_for(config))


# ---------------------------------------------------------------- in process


def test_records_are_exactly_the_schedule(tmp_path: Path) -> None:
    config = make_config(tmp_path)
    schedule = schedule_for(config)
    assert run_tournament(config, progress=False) == len(schedule) == 6
    assert_complete(config)
    records = {r.id: r for r in read_games(games_file(config))}
    for p in schedule:
        record = records[p.id]
        assert [s.bot for s in record.seats] == list(p.seats)
        assert record.seed == p.seed
        assert record.dup_set == p.dup_set
        assert record.variant == "indian13/v1"
        assert record.schema == SCHEMA
    assert (config.results_dir / "config.yaml").is_file()
    log = (config.results_dir / "arena.log").read_text("utf-8")
    assert "to play on 1 worker, seed" in log  # "1 workers" read as a slip
    assert log.rstrip().endswith(f"tournament tiny: {len(schedule)} games played now, "
                                 f"{len(schedule)} of {len(schedule)} done")  # an end


def test_a_finished_run_leaves_no_logging_behind(tmp_path: Path) -> None:
    """Once a run returns, nothing of it writes into its folder any more: the relay that
    carried the workers' records into arena.log was closed (its thread ended), not left to
    reopen arena.log while the folder is copied or deleted, and it holds the run's lines."""
    config = make_config(tmp_path, workers=2)
    relays = {t for t in threading.enumerate() if t.name.startswith("mp-handler-")}
    assert run_tournament(config, progress=False) == 6
    assert {t for t in threading.enumerate() if t.name.startswith("mp-handler-")} <= relays
    assert "tournament" in (config.results_dir / "arena.log").read_text("utf-8")
    root = logging.getLogger()
    assert not [h for h in root.handlers if getattr(h, "baseFilename", "").startswith(
        str(config.results_dir))]


def test_same_games_at_one_and_two_workers_and_in_both_isolations(tmp_path: Path) -> None:
    runs = {}
    for workers, isolation in ((1, "inprocess"), (2, "inprocess"), (2, "process")):
        tag = f"{isolation}{workers}"
        config = make_config(tmp_path, f"{tag}.yaml", workers=workers, isolation=isolation,
                             output=tmp_path / tag)
        assert run_tournament(config, progress=False) == 6
        runs[tag] = by_id(games_file(config))
    assert runs["inprocess1"] == runs["inprocess2"] == runs["process2"]
    assert len(runs["inprocess1"]) == 6


def test_resume_plays_nothing_when_done(tmp_path: Path) -> None:
    config = make_config(tmp_path)
    run_tournament(config, progress=False)
    before = games_file(config).read_bytes()
    assert run_tournament(config, progress=False) == 0
    assert games_file(config).read_bytes() == before


def test_without_a_seed_each_run_draws_one_and_a_resume_keeps_it(tmp_path: Path) -> None:
    """A config with no seed gets a random 63-bit one, stored in results/<name>/config.yaml
    (out of the bots' sight): bots cannot guess the deals; a resume plays the same games."""
    first = make_config(tmp_path, seed=None)
    assert first.seed is None
    run_tournament(first, progress=False)
    stored = yaml.safe_load((first.results_dir / "config.yaml").read_text())
    seed = stored["identity"]["seed"]
    assert isinstance(seed, int) and seed.bit_length() > 32  # not a guessable small number
    lines = games_file(first).read_text().splitlines()
    games_file(first).write_text("\n".join(lines[:2]) + "\n")
    assert run_tournament(first, progress=False) == len(lines) - 2  # resumed, not refused
    assert by_id(games_file(first)) == {comparable(x)["id"]: comparable(x) for x in lines}
    other = make_config(tmp_path, seed=None, output=tmp_path / "other")
    run_tournament(other, progress=False)
    again = yaml.safe_load((other.results_dir / "config.yaml").read_text())
    assert again["identity"]["seed"] != seed


def test_resume_plays_only_missing_games(tmp_path: Path) -> None:
    config = make_config(tmp_path)
    run_tournament(config, progress=False)
    path = games_file(config)
    full = by_id(path)
    lines = path.read_text("utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:2]), encoding="utf-8")
    assert run_tournament(config, progress=False) == 4
    assert_complete(config)
    assert by_id(path) == full


@pytest.mark.parametrize(("change", "field"), [
    ({"seed": 6}, "seed"),
    ({"third": "bots.greedy:GreedyBot"}, "bots"),
    ({"games": 4}, "format"),
])
def test_changed_config_is_refused_until_fresh(tmp_path: Path, change: dict[str, Any],
                                               field: str) -> None:
    config = make_config(tmp_path)
    run_tournament(config, progress=False)
    before = games_file(config).read_bytes()
    changed = make_config(tmp_path, "changed.yaml", **change)
    with pytest.raises(BadInput, match="--fresh") as info:
        run_tournament(changed, progress=False)
    assert field in str(info.value)
    assert str(changed.results_dir) in str(info.value)
    assert games_file(config).read_bytes() == before  # nothing touched
    played = run_tournament(changed, fresh=True, progress=False)
    assert played == len(schedule_for(changed))
    assert_complete(changed)
    assert run_tournament(changed, progress=False) == 0


def test_a_drawn_seed_is_not_named_changed_when_the_format_is(tmp_path: Path) -> None:
    """Without seed: in the config, a run with another --games drew a new seed and said
    "changed: format; seed": the organiser had changed no seed. It names the key and both
    values ("format" alone read as the --format option)."""
    run_tournament(make_config(tmp_path, seed=None), progress=False)
    with pytest.raises(BadInput, match=r"\(changed: format.games 2 before, 4 now\); run "
                       "again with --fresh"):
        run_tournament(make_config(tmp_path, "more.yaml", seed=None, games=4), progress=False)


def test_a_different_worker_count_resumes(tmp_path: Path) -> None:
    config = make_config(tmp_path, workers=1)
    run_tournament(config, progress=False)
    assert run_tournament(make_config(tmp_path, "w2.yaml", workers=2), progress=False) == 0


def test_fresh_starts_over_with_the_same_config(tmp_path: Path) -> None:
    """Everything made of the earlier games goes with them: a report of the old games (or
    the log's rotated half) left beside the new ones said the wrong thing."""
    config = make_config(tmp_path)
    run_tournament(config, progress=False)
    first = by_id(games_file(config))
    for stale in ("report.html", "arena.log.1"):
        (config.results_dir / stale).write_text("of the earlier games", "utf-8")
    assert run_tournament(config, fresh=True, progress=False) == 6
    assert not any((config.results_dir / s).exists() for s in ("report.html", "arena.log.1"))
    assert_complete(config)
    assert by_id(games_file(config)) == first


def test_torn_last_line_is_dropped_and_replayed(tmp_path: Path) -> None:
    config = make_config(tmp_path)
    run_tournament(config, progress=False)
    path = games_file(config)
    full = by_id(path)
    lines = path.read_text("utf-8").splitlines(keepends=True)
    torn_id = json.loads(lines[-1])["id"]
    path.write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2], encoding="utf-8")
    assert [r.id for r in read_games(path)] == ids_in_lines(lines[:-1])  # readers skip it
    assert run_tournament(config, progress=False) == 1
    assert_complete(config)
    assert ids_in(path)[-1] == torn_id
    assert by_id(path) == full


def test_a_file_holding_only_a_torn_line_starts_over(tmp_path: Path) -> None:
    config = make_config(tmp_path)
    run_tournament(config, progress=False)
    path = games_file(config)
    full = by_id(path)
    first = path.read_text("utf-8").splitlines()[0]
    path.write_text(first[:40], encoding="utf-8")
    assert read_games(path) == []
    assert run_tournament(config, progress=False) == 6
    assert_complete(config)
    assert by_id(path) == full


BOT_SOURCE = """\
from arena.actions import Draw, Play


class Bot:
    def draw(self, view):
        return Draw("stock")

    def play(self, view):
        return Play(discard=view.drawn)
"""


def test_changed_bot_source_is_refused(tmp_path: Path) -> None:
    bot = tmp_path / "t_source_bot.py"
    bot.write_text(BOT_SOURCE, encoding="utf-8")
    config = make_config(tmp_path, third=f"{bot}:Bot")
    assert run_tournament(config, progress=False) == 6
    bot.write_text(BOT_SOURCE + "# version 2\n", encoding="utf-8")
    changed = make_config(tmp_path, "v2.yaml", third=f"{bot}:Bot")
    with pytest.raises(BadInput, match=r"changed: bots \(random-2's source\)\); .*--fresh"):
        run_tournament(changed, progress=False)  # which bot, and what of it


SPLIT_BOT = """\
from {module} import shed
from bots.random_bot import RandomBot


class Bot(RandomBot):
    def start_game(self, info):
        super().start_game(info)
        shed()
"""


def split_bot(folder: Path, module: str, shed: str = "pass") -> Path:
    """A bot in two files of its own folder, as the README allows: its class, and the
    module of its strategy (``shed``'s body; a module name of its own: bots in process
    share their modules' names)."""
    folder.mkdir(exist_ok=True)
    (folder / f"{module}.py").write_text(f"def shed():\n    {shed}\n", encoding="utf-8")
    bot = folder / "bot.py"
    bot.write_text(SPLIT_BOT.format(module=module), encoding="utf-8")
    return bot


def test_an_edited_module_of_the_bot_s_own_is_refused(tmp_path: Path) -> None:
    """Only the file the config names was hashed: an edit to the strategy module it imports
    mixed two versions of the bot in one results folder without a word."""
    bot = split_bot(tmp_path / "carol", "t_strategy_edited")
    config = make_config(tmp_path, third=f"{bot}:Bot")
    assert run_tournament(config, progress=False) == 6
    (tmp_path / "carol" / "t_strategy_edited.py").write_text("def shed():\n    return 2\n", "utf-8")
    changed = make_config(tmp_path, "v2.yaml", third=f"{bot}:Bot")
    with pytest.raises(BadInput, match=r"changed: bots \(random-2's source\)\); .*--fresh"):
        run_tournament(changed, progress=False)


def test_a_bot_edited_while_the_run_plays_is_warned_of(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A bot changed mid-run was used at once, and the run ended without a word: its games
    mixed two versions. Here the bot's own code edits its strategy module (in process it
    may), as a student editing their file during the contest would."""
    strategy = tmp_path / "carol" / "t_strategy_mid_run.py"
    edit = f"open({str(strategy)!r}, 'a').write('# v2\\n')"
    bot = split_bot(tmp_path / "carol", "t_strategy_mid_run", shed=edit)
    before = strategy.read_text("utf-8")
    config = make_config(tmp_path, third=f"{bot}:Bot")
    assert run_tournament(config, progress=False) == 6
    assert capsys.readouterr().err == (
        "arena: warning: the code of random-2 changed while this run played: its games "
        "mix the old and the new version (run again with --fresh to play them all with "
        "the new one)\n")
    assert "the code of random-2 changed" in (config.results_dir / "arena.log").read_text()
    strategy.write_text(before, "utf-8")  # restored: the next run resumed the mixed games
    with pytest.raises(BadInput, match=r"its games mix two versions of the code of random-2, "
                                       r"which changed while they were played; .*--fresh"):
        run_tournament(config, progress=False)


def test_records_replay_to_their_totals(tmp_path: Path) -> None:
    from arena.records import replay

    config = make_config(tmp_path)
    run_tournament(config, progress=False)
    for record in read_games(games_file(config)):
        game = replay(record)
        assert game.finished
        assert tuple(game.totals) == record.totals


# ---------------------------------------------------------------- as a process


def start_arena(*args: str | Path, cwd: Path,
                command: tuple[str, ...] = tuple(INTERRUPTIBLE_ARENA)) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([*command, *map(str, args)], cwd=cwd, env=env,
                            text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)


def wait_for_lines(path: Path, proc: subprocess.Popen[str], count: int,
                   timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_bytes().count(b"\n") >= count:
            return
        if proc.poll() is not None:
            pytest.fail(f"arena ended early ({proc.returncode}): {proc.communicate()}")
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    pytest.fail(f"no {count} lines in {path} after {timeout} s")


def whole_lines(path: Path) -> list[str]:
    data = path.read_text("utf-8")
    return data.splitlines(keepends=True) if data.endswith("\n") else \
        data.splitlines(keepends=True)[:-1]


def wait_until_gone(pids: set[int], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(alive(p) for p in pids):
            return
        time.sleep(0.1)
    left = {p: Path(f"/proc/{p}/cmdline").read_bytes() for p in pids if alive(p)}
    pytest.fail(f"processes left behind after the kill: {left}")


def finish(proc: subprocess.Popen[str], timeout: float) -> tuple[str, str]:
    """The arena's output once it has ended; past ``timeout``, it is killed and the test
    fails."""
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise


def run_cli(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([*ARENA, *map(str, args)], cwd=cwd, env=env, text=True,
                          capture_output=True, timeout=600, check=False)


@pytest.mark.slow
def test_sigkill_then_resume_keeps_every_game_once(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text(config_text(name="big", games=30, workers=2, output=tmp_path / "out",
                                isolation="process"), encoding="utf-8")
    config = load_config(path)
    total = len(schedule_for(config))
    games = games_file(config)
    finished: list[str] = []
    # kill -9 the process group (workers too), then only the parent, as a user would
    for more, group in ((8, True), (12, False)):
        proc = start_arena("run", path, cwd=tmp_path)
        wait_for_lines(games, proc, len(finished) + more)
        below = descendants(proc.pid)
        assert below, "no worker or bot process"
        if group:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        wait_until_gone(below)  # workers and their bot processes die with the run
        now = whole_lines(games)
        assert now[: len(finished)] == finished  # earlier records unchanged, byte for byte
        finished = now
        ids = ids_in_lines(finished)
        assert len(ids) == len(set(ids))
    assert len(finished) < total, "killed too late to test resume"
    kept = set(ids_in_lines(finished))  # and the games the workers kept, written first
    for part in (config.results_dir / UNSAVED).rglob("*.jsonl"):
        kept |= set(ids_in_lines([line for line in part.read_text("utf-8").splitlines(True)
                                  if line.endswith("\n")]))
    done = run_cli("run", path, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"big: {total} games ({total - len(kept)} played now)" in done.stdout
    assert_complete(config)
    final = games.read_text("utf-8").splitlines(keepends=True)
    assert final[: len(finished)] == finished


@pytest.mark.slow
def test_sigkill_resume_gives_the_same_games_as_one_uninterrupted_run(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text(config_text(name="big", games=10, workers=2, output=tmp_path / "out",
                                isolation="process"), encoding="utf-8")
    config = load_config(path)
    proc = start_arena("run", path, cwd=tmp_path)
    wait_for_lines(games_file(config), proc, 4)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    assert run_cli("run", path, cwd=tmp_path).returncode == 0
    assert_complete(config)
    reference = run_cli("run", path, "--out", tmp_path / "ref", "--workers", "1",
                        cwd=tmp_path)
    assert reference.returncode == 0, reference.stderr
    assert by_id(games_file(config)) == by_id(tmp_path / "ref" / "big" / "games.jsonl")


@pytest.mark.parametrize(("workers", "isolation", "command"), [
    (1, "inprocess", INTERRUPTIBLE_ARENA), (2, "process", INTERRUPTIBLE_ARENA),
    (1, "process", TWICE_INTERRUPTED_ARENA), (2, "process", TWICE_INTERRUPTED_ARENA)],
    ids=["1-inprocess", "2-process", "1-process-twice", "2-process-twice"])
def test_ctrl_c_stops_with_130_and_a_resume_hint(tmp_path: Path, workers: int,
                                                 isolation: str, command: list[str]) -> None:
    config, proc = start_run(tmp_path, name="stop", games=30, workers=workers,
                             isolation=isolation, command=command, lines=2)
    games = games_file(config)
    below = descendants(proc.pid)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = finish(proc, 60)
    assert proc.returncode == 130, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("arena: interrupted: every finished game is kept in ")
    assert "resume" in lines[0]
    assert str(games) in lines[0]
    data = games.read_bytes()
    assert data.endswith(b"\n")
    ids = ids_in(games)
    assert len(ids) == len(set(ids)) < len(schedule_for(config))
    wait_until_gone(below, timeout=30)  # no worker or bot process outlives the run


# The arena where processes start by "forkserver" unless told otherwise: Python 3.14's default
# on Linux
FORKSERVER_ARENA = (sys.executable, "-c", "import multiprocessing; "
                    "multiprocessing.set_start_method('forkserver'); "
                    "from arena.cli.app import main; main()")


def test_a_run_works_whatever_the_default_start_method(tmp_path: Path) -> None:
    """Where processes start by "forkserver" by default (Python 3.14 on Linux), the pool
    still forks its workers, and what the referee logs in a worker (here an in-process bot's
    illegal plays) still reaches arena.log."""
    bot = ROOT / "tests" / "bots" / "faulty_bots.py"
    config, proc = start_run(tmp_path, name="forkserver", workers=2, third=f"{bot}:IllegalPlay",
                             command=FORKSERVER_ARENA)
    _, err = finish(proc, 120)
    assert proc.returncode == 0, err
    assert len(ids_in(games_file(config))) == len(schedule_for(config)) == 6
    log = (config.results_dir / "arena.log").read_text("utf-8")
    assert "arena-worker-" in log and "(random-2) illegal" in log, log[-2000:]


def test_ctrl_c_while_the_bots_first_start_says_no_game_was_played(tmp_path: Path) -> None:
    bot = ROOT / "tests" / "bots" / "faulty_bots.py"
    _, proc = start_run(tmp_path, name="slow", isolation="process", third=f"{bot}:SlowStart")
    deadline = time.monotonic() + 120
    while not any(b"SlowStart" in cmdline(p) for p in descendants(proc.pid)):  # its start
        # is being checked
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = finish(proc, 60)
    assert proc.returncode == 130
    assert err.strip() == "arena: interrupted before any game was played"


@pytest.mark.parametrize(("stop", "workers"), [
    (signal.SIGTERM, 1), (signal.SIGTERM, 2), (signal.SIGHUP, 2)],
    ids=["SIGTERM-1", "SIGTERM-2", "SIGHUP-2"])
def test_sigterm_and_sighup_stop_the_run_as_ctrl_c_does(tmp_path: Path, stop: signal.Signals,
                                                        workers: int) -> None:
    config, proc = start_run(tmp_path, name="stop", games=30, workers=workers,
                             isolation="process", lines=2)
    games = games_file(config)
    below = descendants(proc.pid)
    os.kill(proc.pid, stop)  # the arena's own process alone, as `kill` and a closed terminal do
    out, err = finish(proc, 60)
    assert proc.returncode == 128 + stop, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err  # no worker's traceback of a broken pipe
    assert lines[0].startswith(f"arena: stopped by {stop.name}: every finished game is kept in ")
    assert "resume" in lines[0]
    assert games.read_bytes().endswith(b"\n")
    ids = ids_in(games)
    assert len(ids) == len(set(ids)) < len(schedule_for(config))
    wait_until_gone(below, timeout=30)  # no worker or bot process outlives the run


def test_a_fresh_run_stopped_says_to_resume_without_fresh(tmp_path: Path) -> None:
    """"Run the same command again to resume", after ``arena run --fresh``, deleted every
    game it said was kept."""
    config = make_config(tmp_path, RUN_CONFIG, name="fresh", games=30, workers=2,
                         isolation="process")
    proc = start_arena("run", tmp_path / RUN_CONFIG, "--fresh", cwd=tmp_path)
    wait_for_lines(games_file(config), proc, 2)
    os.kill(proc.pid, signal.SIGINT)
    _, err = finish(proc, 60)
    assert proc.returncode == 130, err
    assert err.strip() == (f"arena: interrupted: every finished game is kept in "
                           f"{games_file(config)}; run it again without --fresh to resume")
    kept = ids_in(games_file(config))
    assert run_cli("run", tmp_path / RUN_CONFIG, cwd=tmp_path).returncode == 0
    assert ids_in(games_file(config))[:len(kept)] == kept  # resumed, not started over
    assert_complete(config)


def test_a_bot_busy_in_a_loop_is_stopped_with_the_run(tmp_path: Path) -> None:
    """A bot's host left its confinement's PID 1 without its parent-death signal when it
    changed user (under a root arena, bots run as nobody): a worker stopped while its bot
    looped in a decision left that bot running, at full CPU, after the run had ended."""
    bot = ROOT / "tests" / "bots" / "adversarial.py"
    _, proc = start_run(tmp_path, name="busy", games=4, workers=2, isolation="process",
                        third=f"{bot}:InfiniteLoop")
    deadline = time.monotonic() + 120
    while not any(b"InfiniteLoop" in cmdline(p) and cpu_ticks(p) > 50
                  for p in descendants(proc.pid)):  # the loop has run for 0.5 s
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    below = descendants(proc.pid)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = finish(proc, 60)
    assert proc.returncode == 130, err
    wait_until_gone(below, timeout=30)


def test_a_run_under_nohup_plays_on_through_sighup(tmp_path: Path) -> None:
    config, proc = start_run(tmp_path, name="nohup", games=4, workers=2, command=NOHUP_ARENA,
                             lines=1)
    os.kill(proc.pid, signal.SIGHUP)
    _, err = finish(proc, 300)
    assert proc.returncode == 0, err
    assert_complete(config)


def test_a_full_disk_stops_the_run_in_one_line_and_the_resume_completes(tmp_path: Path) -> None:
    config, proc = start_run(tmp_path, name="full", games=20, workers=2,
                             command=full_disk_arena(40_000))
    games = games_file(config)
    out, err = finish(proc, 300)
    assert proc.returncode == 1, (out, err)
    assert err.strip() == (f"arena: error: cannot write {games}: File too large; every game "
                           "finished before is kept there: make room and run the same "
                           "command again to resume")
    kept = ids_in_lines(whole_lines(games))  # the line cut short is not one
    assert 0 < len(kept) == len(set(kept)) < len(schedule_for(config))
    assert run_cli("run", tmp_path / RUN_CONFIG, cwd=tmp_path).returncode == 0
    assert_complete(config)


def test_a_disk_full_before_the_first_game_stops_the_run_in_one_line(tmp_path: Path) -> None:
    _, proc = start_run(tmp_path, name="full", command=full_disk_arena(200))
    out, err = finish(proc, 300)
    folder = tmp_path / "out" / "full"
    assert proc.returncode == 1, (out, err)
    assert err.strip() == (f"arena: error: {folder}: cannot write the results folder "
                           "(File too large)")
    assert sorted(p.name for p in folder.iterdir()) == ["arena.lock"]  # no config.yaml.new


def test_a_full_disk_stops_an_sprt_in_one_line(tmp_path: Path) -> None:
    make_config(tmp_path, "full.yaml", name="full", workers=2)
    proc = start_arena("sprt", tmp_path / "full.yaml", "--candidate", "greedy", "--baseline",
                       "random", "--elo0", "990", "--elo1", "1000", "--max-games", "400",
                       cwd=tmp_path, command=full_disk_arena(40_000))
    out, err = finish(proc, 300)
    games = tmp_path / "out" / "full-sprt" / "games.jsonl"
    assert proc.returncode == 4, (out, err)  # no verdict: H0's 1 would read as one
    assert err.strip() == (f"arena: error: cannot write {games}: File too large; the games "
                           "played are kept there; make room and run the command again "
                           "(without --fresh) to resume the test")
    assert len(whole_lines(games)) >= 2


def pool_workers(arena: int) -> list[int]:
    """The arena's pool workers: its own children (below them, with isolated bots, come
    and go the bots' processes, one of which a kill could miss as it ended)."""
    return [p for p in children(arena) if b"resource_tracker" not in cmdline(p)]


def test_the_games_of_a_killed_worker_are_played_again(tmp_path: Path) -> None:
    config, proc = start_run(tmp_path, name="kill", games=30, workers=2, isolation="process",
                             lines=2)
    below = descendants(proc.pid)
    os.kill(pool_workers(proc.pid)[0], signal.SIGKILL)  # as the out-of-memory killer does
    out, err = finish(proc, 300)  # before, it waited for ever
    assert proc.returncode == 0, (out, err)
    assert_complete(config)  # every game once: none lost, none twice
    wait_until_gone(below, timeout=30)  # the dead worker's bots too
    log = (config.results_dir / "arena.log").read_text("utf-8")  # it said nothing of it
    assert re.search(r"a worker \(pid \d+, exit code [-\w]+\) ended during games t\d+-g",
                     log), log[-2000:]


def test_an_in_process_bot_that_ends_its_worker_stops_the_run_after_three_tries(
        tmp_path: Path) -> None:
    bot = ROOT / "tests" / "bots" / "faulty_bots.py"
    config, proc = start_run(tmp_path, name="ender", games=4, workers=2,
                             third=f"{bot}:ProcessEnder")
    out, err = finish(proc, 300)
    assert proc.returncode == 1, (out, err)
    its = sorted(p.id for p in schedule_for(config) if "random-2" in p.seats)
    assert err.strip() == (f"arena: error: {len(its)} games ({its[0]} to {its[-1]}) ended the "
                           "worker process that played them 3 times (killed, out of memory, "
                           "or a bot run in process that ended it); every other game is "
                           "played and kept")
    tables = [{s["bot"] for s in json.loads(line)["seats"]}
              for line in whole_lines(games_file(config))]
    assert tables == [{"greedy", "random"}] * 4  # every game without it was played


@pytest.mark.slow
def test_ctrl_c_then_resume_completes(tmp_path: Path) -> None:
    path = tmp_path / "stop.yaml"
    path.write_text(config_text(name="stop", games=20, workers=2, output=tmp_path / "out",
                                isolation="process"), encoding="utf-8")
    config = load_config(path)
    proc = start_arena("run", path, cwd=tmp_path)
    wait_for_lines(games_file(config), proc, 3)
    os.killpg(proc.pid, signal.SIGINT)
    proc.communicate(timeout=60)
    assert proc.returncode == 130
    before = games_file(config).read_text("utf-8")
    done = run_cli("run", path, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert_complete(config)
    assert games_file(config).read_text("utf-8").startswith(before)


def test_cli_run_twice_and_across_hash_seeds(tmp_path: Path) -> None:
    """Same config and seed give the same records in fresh interpreters, at 1 or 2 workers."""
    path = tmp_path / "cfg.yaml"
    path.write_text(config_text(output=tmp_path / "out", isolation="process"),
                    encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    results = []
    for workers, hashseed in (("1", "1"), ("2", "2")):
        out = tmp_path / f"out{workers}"
        proc = subprocess.run([*ARENA, "run", str(path), "--workers", workers, "--out",
                               str(out)], env={**env, "PYTHONHASHSEED": hashseed}, text=True,
                              capture_output=True, timeout=300, check=False, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert "tiny: 6 games (6 played now)" in proc.stdout
        results.append(by_id(out / "tiny" / "games.jsonl"))
    assert results[0] == results[1]
    again = run_cli("run", path, "--out", tmp_path / "out1", cwd=tmp_path)
    assert again.returncode == 0
    assert "tiny: 6 games (0 played now)" in again.stdout


def test_cli_run_refuses_an_edited_bot_file_whose_class_comes_from_elsewhere(
        tmp_path: Path) -> None:
    """README: a run whose bots' source changed is refused. Here the file the config names
    is edited so the bot plays differently, but the class is defined in a module the file
    imports, whose source is all that gets hashed: the resume mixes the two versions."""
    bot = tmp_path / "t_alias_bot.py"
    bot.write_text("from bots.random_bot import RandomBot as Bot\n", encoding="utf-8")
    path = tmp_path / "cfg.yaml"
    path.write_text(config_text(output=tmp_path / "out", third=f"{bot}:Bot"), "utf-8")
    assert run_cli("run", path, cwd=tmp_path).returncode == 0
    bot.write_text("from arena.actions import Draw\nfrom bots.random_bot import RandomBot as Bot"
                   "\n\nBot.draw = lambda self, view: Draw('stock')  # version 2\n", "utf-8")
    again = run_cli("run", path, cwd=tmp_path)
    assert again.returncode == 2, again.stdout
    assert "--fresh" in again.stderr


def test_cli_run_refuses_a_changed_config_with_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "cfg.yaml"
    path.write_text(config_text(output=tmp_path / "out"), encoding="utf-8")
    assert run_cli("run", path, cwd=tmp_path).returncode == 0
    refused = run_cli("run", path, "--seed", "9", cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1
    assert refused.stderr.startswith("arena: error: ")
    assert "--fresh" in refused.stderr
    fresh = run_cli("run", path, "--seed", "9", "--fresh", cwd=tmp_path)
    assert fresh.returncode == 0, fresh.stderr
    assert "(6 played now)" in fresh.stdout


def test_games_kept_by_workers_of_another_config_are_not_taken(tmp_path: Path) -> None:
    """The workers of a run killed outright finish their games and keep them in the results
    folder; a --fresh run of a changed config (other clocks, a bot's new code), started
    meanwhile, took them in as its own: a game played on a 300 ms clock in a folder whose
    config says 5,000 ms. Each config's workers keep their games apart."""
    from dataclasses import replace

    from arena.referee import Clock
    from arena.tournament.runner import unsaved_dir

    config = make_config(tmp_path)
    other = replace(config, clock=Clock(draw_ms=300, play_ms=300))
    assert unsaved_dir(other) != unsaved_dir(config)
    run_tournament(other, progress=False)  # the other config's games: stand-ins for those
    kept = games_file(other).read_text("utf-8").splitlines(keepends=True)  # its workers
    shutil.rmtree(other.results_dir)  # kept, which the --fresh run found there
    unsaved_dir(other).mkdir(parents=True)
    marked = [line.replace('"time_max_ms":', '"time_max_ms":4242') for line in kept[:2]]
    (unsaved_dir(other) / "123.jsonl").write_text("".join(marked), "utf-8")
    assert run_tournament(config, progress=False) == len(schedule_for(config))  # all played
    assert "4242" not in games_file(config).read_text("utf-8")
    assert not (config.results_dir / UNSAVED).exists()  # and the stray files are gone


@pytest.mark.parametrize("change", ["cut", "delete"])
def test_a_records_file_changed_under_a_run_stops_it_and_loses_nothing(
        tmp_path: Path, change: str) -> None:
    """games.jsonl cut mid-line while a run played: the next game was glued to the torn
    line, and every resume was refused for that line; deleted, every game after went to the
    deleted file, and the run ended 0 with nothing kept. The run now stops (exit code 1),
    and the same command finishes the tournament."""
    config, proc = start_run(tmp_path, lines=4, games=100, workers=2)  # 300 games: seconds
    games = games_file(config)
    if change == "cut":
        with games.open("r+b") as f:
            f.truncate(len(games.read_bytes()) // 2 + 7)  # inside a line
    else:
        games.unlink()
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 1, (out, err)
    assert "games.jsonl was deleted, cut short or written by another program while this " \
        "run played" in err, err
    again = subprocess.run([*INTERRUPTIBLE_ARENA, "run", str(tmp_path / RUN_CONFIG)],
                           cwd=tmp_path, capture_output=True, text=True, timeout=600,
                           check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert again.returncode == 0, again.stderr
    assert_complete(config)


def test_a_write_refused_for_another_cause_than_room_says_so() -> None:
    """An immutable games.jsonl (chattr +i) was told to "make room"."""
    from arena.tournament.runner import RESUME, _unwritable

    refused = _unwritable(Path("g.jsonl"), PermissionError(1, "Operation not permitted"),
                          RESUME)
    assert str(refused) == ("cannot write g.jsonl: Operation not permitted; every game "
                            "finished before is kept there: make it writable and run the "
                            "same command again to resume")
    full = _unwritable(Path("g.jsonl"), OSError(28, "No space left on device"), RESUME)
    assert "make room and run" in str(full)


def test_a_config_yaml_deleted_while_the_run_plays_is_written_again(tmp_path: Path) -> None:
    """Deleted mid-run, the stored config stayed gone, and the next run took a config of
    other clocks and fault policy for the games kept."""
    config, proc = start_run(tmp_path, lines=4, games=100, workers=2)  # 300 games: seconds
    (config.results_dir / "config.yaml").unlink()
    out, err = finish(proc, 300)
    assert proc.returncode == 0, (out, err)
    assert (config.results_dir / "config.yaml").exists()
    other = make_config(tmp_path, "other.yaml", games=100, workers=2, seed=6)
    with pytest.raises(BadInput, match="made by a different config"):
        run_tournament(other, progress=False)
