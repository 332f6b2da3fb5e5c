"""`arena run` on a real Dask cluster on 127.0.0.1, started with the `dask` command line:
the same records as the local pool, a worker killed mid-run, the scheduler killed mid-run,
the choice of backend (--cluster, $ARENA_CLUSTER, the config's cluster:), the workers'
check of the bots' files, and the one-line errors."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from conftest import descendants

from arena.errors import BadInput
from arena.seats import confine
from arena.tournament.cluster import (
    ENDING_S,
    IDLE_CLOSE_S,
    BotSources,
    WorkerCheck,
    _Dispatch,
    source_problem,
    unconfined_line,
)
from arena.tournament.config import load_config
from arena.tournament.runner import run_tournament
from arena.tournament.worker import GameFailed

pytest.importorskip("distributed")

ROOT = Path(__file__).parents[2]
TIMES = ("time_mean_ms", "time_p95_ms", "time_max_ms")
ARENA = [sys.executable, "-c", "from arena.cli.app import main; main()"]
DASK = shutil.which("dask", path=str(Path(sys.executable).parent)) or shutil.which("dask")
START_S = 120  # for a scheduler or worker to come up, on a loaded machine
RUN_S = 300  # for a run to end
SLOW_BOT = """\
import time

from bots.random_bot import RandomBot


class SlowBot(RandomBot):
    def draw(self, view):
        time.sleep(0.02)
        return super().draw(view)
"""

if DASK is None:
    pytest.skip("the dask command line is not installed", allow_module_level=True)


def config_text(*, output: Path, games: int = 2, isolation: str = "inprocess",
                third: str = "bots.random_bot:RandomBot", name: str = "tiny",
                extra: str = "") -> str:
    """Three bots at 2-seat tables of short games (3 tables x ``games``)."""
    return f"""\
name: {name}
isolation: {isolation}
variant: indian13
options: {{players: 2, draw_cap: 20}}
bots:
  - name: greedy
    module: bots.greedy:GreedyBot
  - name: random
    module: bots.random_bot:RandomBot
  - name: third
    module: {third}
format: {{games: {games}}}
seed: 11
workers: 2
output: {output}
{extra}"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def environment(**more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "ARENA_CLUSTER"}
    return {**env, "PYTHONPATH": str(ROOT), **more}


class Cluster:
    """A scheduler and workers, each a process group of its own, as a user starts them."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = 0  # the scheduler's, once it has bound one
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.workers: dict[str, str] = {}  # name: address

    @property
    def address(self) -> str:
        return f"tcp://127.0.0.1:{self.port}"

    def _start(self, name: str, *args: str) -> None:
        log = (self.folder / f"{name}.log").open("wb")
        scratch = environment(DASK_TEMPORARY_DIRECTORY=str(self.folder))  # not /tmp's
        self.procs[name] = subprocess.Popen([str(DASK), *args], cwd=self.folder, env=scratch,
                                            stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()

    def start_scheduler(self) -> None:
        """Start the scheduler and wait until it listens: on a port it binds itself the first
        time (a port picked free and handed over could be taken before it binds, by a worker
        starting beside it), on the same port when started again."""
        self._start("scheduler", "scheduler", "--host", "127.0.0.1", "--port", str(self.port),
                    "--no-dashboard", "--dashboard-address", "127.0.0.1:0")
        log = self.folder / "scheduler.log"
        deadline = time.monotonic() + START_S
        while (found := re.search(rb"Scheduler at: +tcp://127\.0\.0\.1:(\d+)",
                                  log.read_bytes())) is None:
            if self.procs["scheduler"].poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the scheduler did not start: {log.read_text()[-2000:]}")
            time.sleep(0.1)
        self.port = int(found[1])

    def start_worker(self, name: str) -> str:
        """Start a worker (it waits for the scheduler if need be); its address."""
        port = free_port()
        self._start(name, "worker", self.address, "--name", name, "--nworkers", "1",
                    "--nthreads", "1", "--no-nanny", "--host", "127.0.0.1", "--worker-port",
                    str(port), "--no-dashboard", "--death-timeout", "120",
                    "--local-directory", str(self.folder / name))
        self.workers[name] = f"tcp://127.0.0.1:{port}"
        return self.workers[name]

    def wait_ready(self) -> None:
        """Until every worker started has registered with the scheduler."""
        deadline = time.monotonic() + START_S
        for name in self.workers:
            log = self.folder / f"{name}.log"
            while b"Registered to" not in log.read_bytes():
                if self.procs[name].poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"worker {name} did not start: {log.read_text()[-2000:]}")
                time.sleep(0.1)

    def kill(self, name: str) -> None:
        """SIGKILL the process group of one of them."""
        proc = self.procs[name]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)

    def stop(self) -> None:
        for name in list(self.procs):
            self.kill(name)


@pytest.fixture
def make_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., Cluster]]:
    """Clusters of this test, every process killed at its end."""
    made: list[Cluster] = []

    def make(workers: int = 2, *, scheduler: bool = True) -> Cluster:
        cluster = Cluster(tmp_path_factory.mktemp("cluster"))
        made.append(cluster)
        if scheduler:
            cluster.start_scheduler()
        for i in range(workers):
            cluster.start_worker(f"w{i + 1}")
        cluster.wait_ready()
        return cluster

    yield make
    for cluster in made:
        cluster.stop()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A scheduler and two workers, shared by the tests that leave them alive."""
    shared = Cluster(tmp_path_factory.mktemp("shared-cluster"))
    try:
        shared.start_scheduler()
        shared.start_worker("w1")
        shared.start_worker("w2")
        shared.wait_ready()
        yield shared
    finally:
        shared.stop()


def run_cli(*args: str | Path, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, *map(str, args)], cwd=cwd, env=environment(**env),
                          text=True, capture_output=True, timeout=RUN_S, check=False)


def start_cli(*args: str | Path, cwd: Path) -> subprocess.Popen[str]:
    err = (cwd / "driver.err").open("w")
    proc = subprocess.Popen([*ARENA, *map(str, args)], cwd=cwd, env=environment(), text=True,
                            stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
    err.close()
    return proc


def finish(proc: subprocess.Popen[str]) -> int:
    try:
        return proc.wait(timeout=RUN_S)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


def wait_for(what: Callable[[], bool], proc: subprocess.Popen[str], why: str) -> None:
    deadline = time.monotonic() + RUN_S
    while not what():
        if proc.poll() is not None:
            pytest.fail(f"arena ended ({proc.returncode}) before {why}")
        if time.monotonic() > deadline:
            pytest.fail(f"no {why} after {RUN_S} s")
        time.sleep(0.05)


def lines_in(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def in_log(folder: Path, text: str) -> bool:
    log = folder / "arena.log"
    return log.exists() and text in log.read_text("utf-8", errors="replace")


def comparable(path: Path) -> dict[str, dict[str, Any]]:
    """The records by id, without the measured decision times; every id once."""
    records = {}
    for line in path.read_text("utf-8").splitlines():
        record = json.loads(line)
        for seat in record["seats"]:
            for key in TIMES:
                seat.pop(key)
        assert record["id"] not in records, f"{record['id']} recorded twice"
        records[record["id"]] = record
    return records


def local_records(folder: Path, text: str) -> dict[str, dict[str, Any]]:
    """The records of the same config played on the local pool."""
    path = folder / "local.yaml"
    path.write_text(text, encoding="utf-8")
    config = load_config(path, overrides={"output": folder / "local"})
    run_tournament(config, progress=False)
    return comparable(config.results_dir / "games.jsonl")


def one_error_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("arena: error: "), stderr
    return lines[0]


# ------------------------------------------------------------------ faults of the cluster


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_no_game_and_records_none_twice(
        tmp_path: Path, make_cluster: Callable[..., Cluster]) -> None:
    cluster = make_cluster(2)
    text = config_text(output=tmp_path / "out", games=150)
    (tmp_path / "cfg.yaml").write_text(text, encoding="utf-8")
    results = tmp_path / "out" / "tiny"
    games = results / "games.jsonl"
    proc = start_cli("run", "cfg.yaml", "--cluster", cluster.address, cwd=tmp_path)
    killed = cluster.workers["w1"]
    wait_for(lambda: in_log(results, f"from worker {killed} ") and lines_in(games) >= 5, proc,
             "batch back from the worker to kill")
    cluster.kill("w1")
    before = lines_in(games)
    assert finish(proc) == 0, (tmp_path / "driver.err").read_text()
    assert before < 450, "the run ended before the kill"
    played = comparable(games)
    assert len(played) == lines_in(games) == 450
    assert played == local_records(tmp_path, text)


@pytest.mark.slow
def test_every_worker_gone_mid_run_is_said_once_and_a_new_worker_finishes_the_run(
        tmp_path: Path, make_cluster: Callable[..., Cluster]) -> None:
    """The batches of a dead cluster's last worker wait for a new one: the driver says so
    (it used to wait in silence), and the run ends complete once a worker joins."""
    cluster = make_cluster(1)
    bot = tmp_path / "slow_bot.py"
    bot.write_text(SLOW_BOT, encoding="utf-8")
    text = config_text(output=tmp_path / "out", games=30, third=f"{bot}:SlowBot")
    (tmp_path / "cfg.yaml").write_text(text, encoding="utf-8")
    results = tmp_path / "out" / "tiny"
    games = results / "games.jsonl"
    proc = start_cli("run", "cfg.yaml", "--cluster", cluster.address, cwd=tmp_path)
    wait_for(lambda: lines_in(games) >= 3, proc, "games from the first worker")
    cluster.kill("w1")
    before = lines_in(games)
    err = tmp_path / "driver.err"
    wait_for(lambda: "has no workers" in err.read_text("utf-8"), proc, "word of no workers")
    assert lines_in(games) < 90, "the run ended before the kill"
    cluster.start_worker("w2")
    assert finish(proc) == 0, err.read_text("utf-8")
    assert before < 90
    assert err.read_text("utf-8").count("has no workers") == 1
    assert in_log(results, "has workers again")
    played = comparable(games)
    assert len(played) == lines_in(games) == 90
    assert played == local_records(tmp_path, text)


@pytest.mark.slow
def test_a_scheduler_killed_mid_run_keeps_every_game_and_the_same_command_resumes(
        tmp_path: Path, make_cluster: Callable[..., Cluster]) -> None:
    cluster = make_cluster(1)
    text = config_text(output=tmp_path / "out", games=100)
    (tmp_path / "cfg.yaml").write_text(text, encoding="utf-8")
    games = tmp_path / "out" / "tiny" / "games.jsonl"
    command = ("run", "cfg.yaml", "--cluster", cluster.address)
    proc = start_cli(*command, cwd=tmp_path)
    wait_for(lambda: lines_in(games) >= 5, proc, "games recorded")
    cluster.kill("scheduler")
    assert finish(proc) == 1
    kept = games.read_bytes()
    recorded = kept.count(b"\n")
    assert kept.endswith(b"\n")
    line = one_error_line((tmp_path / "driver.err").read_text())
    assert line == (f"arena: error: the cluster at {cluster.address} went away after "
                    f"{recorded} of 300 games; run the same command again to resume")
    assert recorded < 300
    assert in_log(tmp_path / "out" / "tiny", "tournament tiny stopped: the cluster at "
                  f"{cluster.address} went away after {recorded} of 300 games")  # was only
    # on the console: the log ended with Dask's traceback
    cluster.kill("w1")
    cluster.start_scheduler()  # on the same port: the same command again
    cluster.start_worker("w2")
    cluster.wait_ready()
    again = run_cli(*command, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert f"tiny: 300 games ({300 - recorded} played now)" in again.stdout
    assert games.read_bytes().startswith(kept)
    assert comparable(games) == local_records(tmp_path, text)


@pytest.mark.slow  # it waits out ENDING_S (20 s) by design: a quarter of a minute of the
# default run's budget for one idle wait
def test_ctrl_c_ends_a_run_whose_worker_is_frozen(
        tmp_path: Path, make_cluster: Callable[..., Cluster]) -> None:
    """The driver asked every worker to end its bots and waited without a limit: with one
    worker stopped (SIGSTOP, as a hung machine), Ctrl-C never ended the run."""
    cluster = make_cluster(1)
    (tmp_path / "cfg.yaml").write_text(config_text(output=tmp_path / "out", games=100),
                                       encoding="utf-8")
    games = tmp_path / "out" / "tiny" / "games.jsonl"
    proc = start_cli("run", "cfg.yaml", "--cluster", cluster.address, cwd=tmp_path)
    wait_for(lambda: lines_in(games) >= 5, proc, "games recorded")
    os.killpg(cluster.procs["w1"].pid, signal.SIGSTOP)
    proc.send_signal(signal.SIGINT)
    try:
        code = proc.wait(timeout=ENDING_S + 100)  # 20 s for the workers, 10 to disconnect
    finally:
        os.killpg(cluster.procs["w1"].pid, signal.SIGCONT)
        finish(proc)
    assert code == 130
    assert "arena: interrupted" in (tmp_path / "driver.err").read_text()
    assert games.read_bytes().endswith(b"\n")


# The driver, with a second Ctrl-C landing just as it starts to end the run on the workers
TWICE_INTERRUPTED_DRIVER = [
    sys.executable, "-c", "import os, signal; "
    "from arena.tournament.cluster import _Dispatch; close = _Dispatch.close; "
    "_Dispatch.close = lambda self: (os.kill(os.getpid(), signal.SIGINT), close(self)); "
    "from arena.cli.app import main; main()"]


def test_a_second_ctrl_c_still_ends_the_run_s_bots_on_the_workers(
        tmp_path: Path, make_cluster: Callable[..., Cluster]) -> None:
    """A second Ctrl-C while the driver ends the run is ignored, as on the local pool
    (README): it stopped the driver at once, and the run's bots lived on in the worker
    until IDLE_CLOSE_S."""
    cluster = make_cluster(1)
    worker = cluster.procs["w1"].pid
    before = descendants(worker)
    (tmp_path / "cfg.yaml").write_text(config_text(output=tmp_path / "out", games=100,
                                                   isolation="process"), encoding="utf-8")
    games = tmp_path / "out" / "tiny" / "games.jsonl"
    err = (tmp_path / "driver.err").open("w")
    proc = subprocess.Popen([*TWICE_INTERRUPTED_DRIVER, "run", "cfg.yaml", "--cluster",
                             cluster.address], cwd=tmp_path, env=environment(), text=True,
                            stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
    err.close()
    wait_for(lambda: lines_in(games) >= 3 and len(descendants(worker) - before) >= 2, proc,
             "games recorded and bots started")
    proc.send_signal(signal.SIGINT)
    assert finish(proc) == 130
    assert "arena: interrupted" in (tmp_path / "driver.err").read_text()
    deadline = time.monotonic() + IDLE_CLOSE_S / 2  # left behind, they lived this long
    while descendants(worker) - before:
        assert time.monotonic() < deadline, "the run's bots outlived it on the worker"
        time.sleep(0.2)


@pytest.mark.slow
def test_the_driver_killed_mid_run_resumes_with_the_same_command(
        tmp_path: Path, make_cluster: Callable[..., Cluster]) -> None:
    cluster = make_cluster(2)
    text = config_text(output=tmp_path / "out", games=200, isolation="process")
    (tmp_path / "cfg.yaml").write_text(text, encoding="utf-8")
    games = tmp_path / "out" / "tiny" / "games.jsonl"
    command = ("run", "cfg.yaml", "--cluster", cluster.address)
    proc = start_cli(*command, cwd=tmp_path)
    wait_for(lambda: lines_in(games) >= 20, proc, "games recorded")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    kept = games.read_bytes()
    kept = kept[: kept.rfind(b"\n") + 1]
    again = run_cli(*command, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "tiny: 600 games" in again.stdout
    assert games.read_bytes().startswith(kept)
    assert comparable(games) == local_records(tmp_path, text)


# ------------------------------------------------------------------ same games, any backend


def test_isolated_bots_on_the_cluster_give_the_local_pool_s_records(
        tmp_path: Path, cluster: Cluster) -> None:
    """The default isolation: each seat a confined process of the worker; a worker that
    cannot confine bots is named once, in one warning line. A bot's faults are counted as
    locally, and each is a line of arena.log that names the worker; the log says where the
    games were played (it read "on 1 workers")."""
    garbage = ROOT / "tests" / "bots" / "faulty_bots.py"
    text = config_text(output=tmp_path / "out", isolation="process",
                       third=f"{garbage}:Garbage")
    (tmp_path / "cfg.yaml").write_text(text, encoding="utf-8")
    done = run_cli("run", "cfg.yaml", "--cluster", cluster.address, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "tiny: 6 games (6 played now)" in done.stdout
    assert in_log(tmp_path / "out" / "tiny", "(third) unreadable: ")
    assert in_log(tmp_path / "out" / "tiny", " [worker tcp://127.0.0.1:")
    assert in_log(tmp_path / "out" / "tiny", f"to play on the cluster at {cluster.address}")
    warnings = [x for x in done.stderr.splitlines() if "unconfined on worker" in x]
    if confine.problem() is None:
        assert not warnings, done.stderr
    else:
        assert len(warnings) == 1, done.stderr
        assert all(a in warnings[0] for a in cluster.workers.values())
    assert comparable(tmp_path / "out" / "tiny" / "games.jsonl") == \
        local_records(tmp_path, text)


@pytest.mark.parametrize("chosen_by", ["config", "environment", "command line"])
def test_the_command_line_beats_the_environment_which_beats_the_config(
        tmp_path: Path, cluster: Cluster, chosen_by: str) -> None:
    nowhere = f"tcp://127.0.0.1:{free_port()}"  # nothing listens there
    file_says = cluster.address if chosen_by == "config" else nowhere
    env_says = {"config": "", "environment": cluster.address, "command line": nowhere}
    flag = ["--cluster", cluster.address] if chosen_by == "command line" else []
    (tmp_path / "cfg.yaml").write_text(config_text(output=tmp_path / "out",
                                                   extra=f"cluster: {file_says}\n"), "utf-8")
    done = run_cli("run", "cfg.yaml", *flag, cwd=tmp_path,
                   ARENA_CLUSTER=env_says[chosen_by])
    assert done.returncode == 0, done.stderr
    assert "tiny: 6 games (6 played now)" in done.stdout
    assert in_log(tmp_path / "out" / "tiny", "games from worker tcp://127.0.0.1:")


def test_a_tournament_moves_between_the_local_pool_and_the_cluster(
        tmp_path: Path, cluster: Cluster) -> None:
    """The cluster is no part of the config's identity: a run begun locally resumes on the
    cluster, and `--cluster local` plays on the local pool whatever the config says."""
    text = config_text(output=tmp_path / "out", extra=f"cluster: {cluster.address}\n")
    (tmp_path / "cfg.yaml").write_text(text, encoding="utf-8")
    local = run_cli("run", "cfg.yaml", "--cluster", "local", cwd=tmp_path,
                    ARENA_CLUSTER=cluster.address)
    assert local.returncode == 0, local.stderr
    results = tmp_path / "out" / "tiny"
    assert not in_log(results, "games from worker")
    games = results / "games.jsonl"
    full = comparable(games)
    games.write_text("".join(games.read_text("utf-8").splitlines(keepends=True)[:2]), "utf-8")
    resumed = run_cli("run", "cfg.yaml", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert "tiny: 6 games (4 played now)" in resumed.stdout
    assert in_log(results, "games from worker")
    assert comparable(games) == full


def test_the_cluster_key_is_outside_the_identity(tmp_path: Path) -> None:
    plain = tmp_path / "plain.yaml"
    plain.write_text(config_text(output=tmp_path / "out"), "utf-8")
    on_cluster = tmp_path / "cluster.yaml"
    on_cluster.write_text(config_text(output=tmp_path / "out",
                                      extra="cluster: tcp://10.0.0.5:8786\n"), "utf-8")
    assert load_config(on_cluster).cluster == "tcp://10.0.0.5:8786"
    assert load_config(plain).cluster is None
    assert load_config(plain).identity_hash() == load_config(on_cluster).identity_hash()
    bad = tmp_path / "bad.yaml"
    bad.write_text(config_text(output=tmp_path / "out", extra="cluster: 8786\n"), "utf-8")
    with pytest.raises(BadInput, match=r"bad\.yaml:16: cluster: expected a Dask scheduler "
                                       r"address such as tcp://10\.0\.0\.5:8786, or local"):
        load_config(bad)


# ------------------------------------------------------------------ the bots' files


def test_a_worker_whose_bot_file_differs_stops_the_run_naming_bot_file_and_worker(
        tmp_path: Path, make_cluster: Callable[..., Cluster]) -> None:
    """The file changes on the shared folder after the driver hashed it: the first worker
    plays on, the one that joins then refuses; every game recorded stays."""
    cluster = make_cluster(1)
    bot = tmp_path / "slow_bot.py"
    bot.write_text(SLOW_BOT, encoding="utf-8")
    (tmp_path / "cfg.yaml").write_text(config_text(output=tmp_path / "out", games=100,
                                                   third=f"{bot}:SlowBot"), "utf-8")
    games = tmp_path / "out" / "tiny" / "games.jsonl"
    proc = start_cli("run", "cfg.yaml", "--cluster", cluster.address, cwd=tmp_path)
    wait_for(lambda: lines_in(games) >= 2, proc, "games recorded")
    bot.write_text(SLOW_BOT + "# changed\n", encoding="utf-8")
    late = cluster.start_worker("w2")
    assert finish(proc) == 2
    line = one_error_line((tmp_path / "driver.err").read_text())
    assert line.startswith(f"arena: error: bot 'third': {bot} differs on worker {late} ")
    assert "shared folder" in line
    kept = games.read_bytes()
    assert kept.endswith(b"\n") and kept.count(b"\n") < 300
    assert len(comparable(games)) == kept.count(b"\n")


def test_the_worker_check_names_the_bot_the_file_and_the_worker(tmp_path: Path) -> None:
    from arena.seats.bot import BotSpec

    bot = tmp_path / "b.py"
    bot.write_text(SLOW_BOT, encoding="utf-8")
    spec = BotSpec("slow", f"{bot}:SlowBot")
    wrong = BotSources("slow", ((str(bot), "0" * 64),))
    problem = source_problem(wrong, spec, "tcp://10.0.0.9:4000", {})
    assert problem is not None
    assert problem.startswith(f"bot 'slow': {bot} differs on worker tcp://10.0.0.9:4000 ")
    gone = BotSources("slow", ((str(tmp_path / "gone.py"), "0" * 64),))
    problem = source_problem(gone, spec, "tcp://10.0.0.9:4000", {})
    assert problem is not None
    assert f"{tmp_path / 'gone.py'} is missing on worker tcp://10.0.0.9:4000" in problem
    line = unconfined_line([WorkerCheck("tcp://a:1", None, "no user namespaces"),
                            WorkerCheck("tcp://b:2", None, "no user namespaces")])
    assert line.startswith("bots run unconfined on workers tcp://a:1 (no user namespaces), "
                           "tcp://b:2 (no user namespaces): ")


# ------------------------------------------------------------------ one-line errors


def test_an_error_of_the_arena_on_a_worker_names_its_game_and_logs_its_traceback(
        caplog: pytest.LogCaptureFixture) -> None:
    """The worker's traceback of a game's error of the arena reaches the driver's arena.log
    (the worker's own log lines of a failed batch do not come back)."""
    failed = GameFailed("game t0000-g005: TypeError: a bug in the referee")
    failed.trace = "Traceback (most recent call last):\n  File \"referee.py\"\nTypeError: a bug"
    with caplog.at_level("ERROR"):
        error = _Dispatch.failed(cast(Any, None), failed, ("t0000-g005",))
    assert str(error) == ("a game failed by an error of the arena (game t0000-g005: TypeError: "
                          "a bug in the referee), its traceback in arena.log; every game "
                          "written before is kept")
    assert 'File "referee.py"' in caplog.text


@pytest.mark.parametrize(("scheme", "reason"), [
    ("tcp", ""),
    ("tls", "TLS"),  # Dask raised a TypeError (no ssl_context): a 60-line traceback, then
])                   # another from the half-made client at exit
def test_a_cluster_nobody_answers_is_one_line_with_exit_2(tmp_path: Path, scheme: str,
                                                          reason: str) -> None:
    (tmp_path / "cfg.yaml").write_text(config_text(output=tmp_path / "out"), "utf-8")
    nowhere = f"{scheme}://127.0.0.1:{free_port()}"
    done = run_cli("run", "cfg.yaml", "--cluster", nowhere, cwd=tmp_path,
                   DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT="2s")
    assert done.returncode == 2, done.stderr
    line = one_error_line(done.stderr)
    assert line.startswith(f"arena: error: no Dask scheduler answers at {nowhere} (")
    assert reason in line
    assert lines_in(tmp_path / "out" / "tiny" / "games.jsonl") == 0


@pytest.mark.parametrize(("args", "env", "named"), [
    (["--cluster", "8786"], "", "--cluster: "),
    ([], "http://host:80/x", "$ARENA_CLUSTER: "),
    (["--cluster", "tcp://[::1"], "", "--cluster: "),  # no port, an unclosed bracket
    (["--cluster", "tcp://head:99999"], "", "--cluster: "),
    (["--cluster", ""], "tcp://127.0.0.1:9", "--cluster: "),  # a script's unset variable:
    # it played the whole contest on the local pool (or on the environment's cluster)
])
def test_a_bad_address_is_one_line_with_exit_2(tmp_path: Path, args: list[str], env: str,
                                               named: str) -> None:
    (tmp_path / "cfg.yaml").write_text(config_text(output=tmp_path / "out"), "utf-8")
    done = run_cli("run", "cfg.yaml", *args, cwd=tmp_path, ARENA_CLUSTER=env)
    assert done.returncode == 2
    assert one_error_line(done.stderr).startswith(
        f"arena: error: {named}expected a Dask scheduler address such as ")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("args", [["--cluster", "local"], []])
def test_a_bad_cluster_key_is_refused_even_where_it_is_overridden(tmp_path: Path,
                                                                  args: list[str]) -> None:
    """arena validate refused the file that arena run --cluster local played."""
    (tmp_path / "cfg.yaml").write_text(config_text(output=tmp_path / "out",
                                                   extra="cluster: bogus\n"), "utf-8")
    for command in (["run", "cfg.yaml", *args], ["validate", "cfg.yaml"]):
        done = run_cli(*command, cwd=tmp_path, ARENA_CLUSTER="")
        assert done.returncode == 2, (command, done.stderr)
        assert re.fullmatch(r"arena: error: cfg\.yaml:\d+: cluster: expected a Dask scheduler "
                            r"address .*, got 'bogus'", one_error_line(done.stderr)), command
    assert not (tmp_path / "out").exists()


NO_DASK = """\
import sys

class NoDask:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("dask", "distributed"):
            raise ModuleNotFoundError(f"No module named {name!r}")

sys.meta_path.insert(0, NoDask())
"""


def test_without_dask_a_cluster_run_names_the_extra_and_a_local_run_imports_none(
        tmp_path: Path) -> None:
    (tmp_path / "cfg.yaml").write_text(config_text(output=tmp_path / "out"), "utf-8")
    code = NO_DASK + "from arena.cli.app import main; main()"
    missing = subprocess.run([sys.executable, "-c", code, "run", "cfg.yaml", "--cluster",
                              "tcp://127.0.0.1:8786"], cwd=tmp_path, env=environment(),
                             text=True, capture_output=True, timeout=RUN_S, check=False)
    assert missing.returncode == 2, missing.stderr
    line = one_error_line(missing.stderr)
    assert "needs Dask" in line and "[cluster]" in line
    local = ("from arena.cli.app import app\nfrom typer.testing import CliRunner\n"
             "done = CliRunner().invoke(app, ['run', 'cfg.yaml', '--fresh'])\n"
             "assert done.exit_code == 0, done.output\n"
             "print(sorted(m for m in sys.modules if m.partition('.')[0] in "
             "('dask', 'distributed')))\n")
    done = subprocess.run([sys.executable, "-c", "import sys\n" + local], cwd=tmp_path,
                          env=environment(), text=True, capture_output=True, timeout=RUN_S,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
