"""Shared bench plumbing: the repo on ``sys.path``, arguments, timing, percentiles, tables.

Importing this module puts the repository root first on ``sys.path``, so the scripts run as
``python bench/<name>.py`` from anywhere without installing the package; import it before
``arena``. Every time is ``time.perf_counter_ns`` around one call, garbage collector on (the
cost a bot sees in a real run), after an untimed warm-up.
"""

from __future__ import annotations

import argparse
import cProfile
import platform
import pstats
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, TypeVar

from tabulate import tabulate

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

T = TypeVar("T")


def arguments(description: str, *, n: int | None, seed: int = 1, repeat: bool = True,
              profile: bool = True) -> argparse.ArgumentParser:
    """The options of the bench scripts: ``--n``, ``--seed``, ``--repeat``, ``--profile``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--n", type=int, default=n,
                        help=f"inputs per category (default {n or 'per variant'})")
    parser.add_argument("--seed", type=int, default=seed, help=f"RNG seed (default {seed})")
    if repeat:
        parser.add_argument("--repeat", type=int, default=1,
                            help="time each call this many times and keep the fastest, "
                                 "which filters out preemption on a busy machine (default 1)")
    if profile:
        parser.add_argument("--profile", action="store_true",
                            help="after timing, print the top 10 functions by tottime")
    return parser


def banner(title: str) -> None:
    """One line naming the run, so pasted tables say where they came from."""
    print(f"{title}: python {platform.python_version()}, {platform.machine()}, "
          f"{date.today().isoformat()}, commit {commit()}")


def commit() -> str:
    """The code measured: HEAD, marked ``+dirty`` when arena/ or bots/ have local changes."""
    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                              check=False)
        return done.stdout.strip() if done.returncode == 0 else ""
    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + ("+dirty" if git("status", "--porcelain", "--", "arena", "bots") else "")


# --------------------------------------------------------------------------- timing


def warm_up(fn: Callable[[T], object], inputs: Sequence[T], count: int = 50) -> None:
    """Run the first inputs untimed: imports, caches and the allocator settle first."""
    for item in inputs[:count]:
        fn(item)


def time_calls(fn: Callable[[T], Any], inputs: Iterable[T], *,
               repeat: int = 1) -> tuple[list[int], list[Any]]:
    """Nanoseconds of each call (the fastest of ``repeat``), and what each call returned."""
    times: list[int] = []
    results: list[Any] = []
    clock = time.perf_counter_ns
    for item in inputs:
        best = None
        for _ in range(max(1, repeat)):
            start = clock()
            out = fn(item)
            elapsed = clock() - start
            best = elapsed if best is None else min(best, elapsed)
        assert best is not None
        times.append(best)
        results.append(out)
    return times, results


@dataclass(frozen=True, slots=True)
class Stats:
    """Percentiles of one category's per-call times, in nanoseconds."""

    calls: int
    p50: int
    p90: int
    p99: int
    max: int
    total: int

    @classmethod
    def of(cls, times: Sequence[int]) -> Stats:
        ordered = sorted(times)
        return cls(len(ordered), percentile(ordered, 50), percentile(ordered, 90),
                   percentile(ordered, 99), ordered[-1], sum(ordered))

    @property
    def per_second(self) -> float:
        """Calls per second of busy time (the sum of the per-call times)."""
        return self.calls / (self.total / 1e9) if self.total else 0.0

    def row_us(self) -> list[str]:
        """p50, p90, p99, max in microseconds, then calls/s."""
        return [us(self.p50), us(self.p90), us(self.p99), us(self.max),
                f"{self.per_second:,.0f}"]


STATS_HEADERS = ["p50 us", "p90 us", "p99 us", "max us", "calls/s"]


def percentile(ordered: Sequence[int], q: float) -> int:
    """Nearest-rank percentile of sorted values (p100 is the max)."""
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


def us(ns: float) -> str:
    """Nanoseconds as microseconds, one decimal."""
    return f"{ns / 1e3:,.1f}"


def show(rows: Sequence[Sequence[object]], headers: Sequence[str]) -> None:
    """Print a table the README can paste (GitHub markdown)."""
    print(tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True))
    print()


# --------------------------------------------------------------------------- profiling


def profile_top(title: str, run: Callable[[], object], *, top: int = 10) -> None:
    """Run once under cProfile and print the ``top`` functions by own time (tottime)."""
    profiler = cProfile.Profile()
    profiler.runcall(run)
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    rows = sorted(stats.items(), key=lambda item: item[1][2], reverse=True)[:top]
    print(f"cProfile, {title}: top {top} by tottime")
    show([[_where(key), f"{nc:,}", f"{tt * 1e3:,.1f}", f"{ct * 1e3:,.1f}"]
          for key, (_, nc, tt, ct, _) in rows],
         ["function", "calls", "tottime ms", "cumtime ms"])


def _where(key: tuple[str, int, str]) -> str:
    """``arena/melds.py:312 best`` for repo code, the bare name for builtins."""
    file, line, name = key
    if file == "~":
        return name
    path = Path(file)
    try:
        shown = str(path.resolve().relative_to(ROOT))
    except ValueError:
        shown = path.name
    return f"{shown}:{line} {name}"
