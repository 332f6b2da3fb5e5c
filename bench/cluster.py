"""Games per second on a Dask cluster against the local pool, and the cost per game.

    python bench/cluster.py [--games N] [--isolation inprocess|process]

Starts a scheduler and worker processes on 127.0.0.1 with the ``dask`` command line (each
worker ``--nthreads 1 --no-nanny``), then plays the same round robin (4 random bots at
2-seat tables, duplicate deals, seed 7, ``--games`` per table) five ways, one after the
other, each in a fresh results folder: the local pool at 1 and 2 workers, the cluster with 1
and 2 worker processes, and the cluster with 2 workers and one game per task (batching
off). Each time runs from ``run_tournament``'s call to its return (the bots' start check,
the pool or the connection and the workers' check included; the time to the first record
is shown apart). The overhead per game is
1/(cluster games/s) - 1/(local games/s) at the same number of workers. Needs the cluster
extra (``pip install -e '.[cluster]'``); without it the script says so and exits 0.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import _harness
from tabulate import tabulate

from arena.tournament import cluster
from arena.tournament.config import Config, load_config
from arena.tournament.runner import run_tournament

START_S = 120.0  # for the scheduler and a worker to come up on a loaded machine


def config_text(games: int, isolation: str) -> str:
    """Four random bots (they differ only by name) at 2-seat tables: 6 tables."""
    entries = "".join(f"  - name: random-{i}\n    module: bots.random_bot:RandomBot\n"
                      for i in range(4))
    return (f"name: bench\nvariant: indian13\noptions: {{players: 2}}\nbots:\n{entries}"
            f"format: {{games: {games}}}\nisolation: {isolation}\nseed: 7\n")


@dataclass(frozen=True, slots=True)
class Run:
    """One way of playing the tournament."""

    backend: str
    workers: int
    games: int
    seconds: float
    first: float  # seconds to the first record: the start, before games flow
    records: frozenset[tuple[str, str]]  # (id, actions and totals): the games themselves

    @property
    def per_second(self) -> float:
        return self.games / self.seconds


def measure(config: Config, backend: str, workers: int, folder: Path) -> Run:
    """Play the config on a fresh results folder; its games per second."""
    config = replace(config, output=folder / f"{backend}-{workers}".replace(" ", "-"),
                     workers=workers)
    first = FirstRecord()
    played = run_tournament(config, fresh=True, progress=False, on_game=first)
    seconds = time.perf_counter() - first.start
    games = config.results_dir / "games.jsonl"
    records = frozenset(_game(line) for line in games.read_text("utf-8").splitlines())
    assert len(records) == played, f"{backend}: {played} played, {len(records)} records"
    return Run(backend, workers, played, seconds, first.after or seconds, records)


class FirstRecord:
    """An ``on_game`` callback that notes when the first record was on disk."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.after: float | None = None

    def __call__(self, *_: object) -> None:
        if self.after is None:
            self.after = time.perf_counter() - self.start


def _game(line: str) -> tuple[str, str]:
    raw = json.loads(line)
    return raw["id"], json.dumps([raw["actions"], raw["totals"], raw["ranks"]])


class LocalCluster:
    """A scheduler and workers on 127.0.0.1, started as a user starts them."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.dask = shutil.which("dask", path=str(Path(sys.executable).parent)) or \
            shutil.which("dask") or "dask"
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.address = f"tcp://127.0.0.1:{sock.getsockname()[1]}"
        self.procs: list[subprocess.Popen[bytes]] = []
        self.client = importlib.import_module("distributed").Client
        self._start("scheduler", "--host", "127.0.0.1", "--port",
                    self.address.rpartition(":")[2], "--no-dashboard",
                    "--dashboard-address", "127.0.0.1:0")

    def _start(self, *args: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(_harness.ROOT)}
        log = (self.folder / f"{args[0]}-{len(self.procs)}.log").open("wb")
        self.procs.append(subprocess.Popen([self.dask, *args], cwd=self.folder, env=env,
                                           stdout=log, stderr=subprocess.STDOUT,
                                           stdin=subprocess.DEVNULL, start_new_session=True))
        log.close()

    def add_worker(self) -> None:
        """One more worker process, once it has joined."""
        self._start("worker", self.address, "--nworkers", "1", "--nthreads", "1",
                    "--no-nanny", "--no-dashboard", "--local-directory",
                    str(self.folder / f"worker-{len(self.procs)}"))
        with self.client(self.address, set_as_default=False, timeout="60s") as client:
            client.wait_for_workers(len(self.procs) - 1, timeout=START_S)

    def stop(self) -> None:
        for proc in self.procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@contextlib.contextmanager
def one_game_per_task() -> Iterator[None]:
    """Batching off: every task carries one pairing."""
    kept = cluster.MAX_BATCH
    cluster.MAX_BATCH = 1
    try:
        yield
    finally:
        cluster.MAX_BATCH = kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100, help="games per table (x6)")
    parser.add_argument("--isolation", choices=("inprocess", "process"), default="inprocess")
    args = parser.parse_args()
    try:
        importlib.import_module("distributed")
    except ImportError:
        print("Dask is not installed: pip install -e '.[cluster]'")
        return
    _harness.banner("bench/cluster.py")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / "bench.yaml"
        path.write_text(config_text(args.games, args.isolation), encoding="utf-8")
        config = load_config(path)
        runs = [measure(config, "local pool", 1, folder),
                measure(config, "local pool", 2, folder)]
        dask = LocalCluster(folder)
        try:
            for workers in (1, 2):
                dask.add_worker()
                on_cluster = replace(config, cluster=dask.address)
                runs.append(measure(on_cluster, "cluster", workers, folder))
            with one_game_per_task():
                runs.append(measure(on_cluster, "cluster, 1 game a task", 2, folder))
        finally:
            dask.stop()
    print_table(runs, args.isolation)


def print_table(runs: list[Run], isolation: str) -> None:
    local = {r.workers: r for r in runs if r.backend == "local pool"}
    rows = []
    for run in runs:
        base = local[run.workers]
        extra = (1 / run.per_second - 1 / base.per_second) * 1e3
        rows.append([run.backend, isolation, run.workers, run.games, f"{run.seconds:.2f}",
                     f"{run.first:.2f}", f"{run.per_second:.1f}", f"{1e3 / run.per_second:.2f}",
                     "-" if run is base else f"{extra:+.2f}",
                     "yes" if run.records == local[1].records else "NO"])
    headers = ["backend", "isolation", "worker processes", "games", "s",
               "first record after s", "games/s", "ms per game",
               "overhead ms per game vs local", "same games as local"]
    print(tabulate(rows, headers, tablefmt="github", disable_numparse=True))


if __name__ == "__main__":
    main()
