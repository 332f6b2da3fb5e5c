"""What taking turns costs: the same decisions sent to one Python host, or to four in turn.

    python bench/rotation.py [--games 30]

Records the views of one Indian Rummy game of four quick bots (``bench._quick_bot``), then
replays them straight to bot hosts (``python -m arena.seats.host``, no sandbox, no referee):
first only seat 0's views to one host, then every seat's views, each to its own host, in
the game's order. Both are timed per round trip (``perf_counter_ns`` around the write and
the read of the reply, encoding included), ``--games`` times over, and beside them a bare
ping-pong of a 600-byte line with a Python child. The difference between one host and four
is what the hosts' turn-taking costs (caches and wake-ups), whatever the wire's own work.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import _harness  # puts the repository on sys.path
from tabulate import tabulate
from wire import record

from arena.engine.view import View
from arena.seats.bot import GameInfo
from arena.seats.protocol import encode_line, encode_view, hello

QUICK = "bench._quick_bot:QuickBot"
ECHO = "import os\nwhile (l := os.read(0, 65536)):\n    os.write(1, b'ok\\n')\n"


def read_line(fd: int) -> bytes:
    """One reply line (blocking: the hosts are trusted here)."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            raise SystemExit("a host closed its output")
        data += chunk
    return data


def replay(views: list[View], hosts: int, games: int) -> list[int]:
    """Round trips of ``views`` (those of seats below ``hosts``) to one host per seat."""
    env = {**os.environ, "PYTHONPATH": str(_harness.ROOT)}
    procs = [subprocess.Popen([sys.executable, "-m", "arena.seats.host", QUICK],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
             for _ in range(hosts)]
    pipes = [(p.stdin.fileno(), p.stdout.fileno()) for p in procs]  # type: ignore[union-attr]
    times: list[int] = []
    try:
        for game in range(games + 1):  # game 0 warms the hosts up, untimed
            for seat, (write, read) in enumerate(pipes):
                os.write(write, encode_line(hello(GameInfo(seat, 4, "indian13", {}, 1))))
                read_line(read)
            sent = [0] * hosts
            round_ = [-1] * hosts
            for rid, view in enumerate(v for v in views if v.seat < hosts):
                write, read = pipes[view.seat]
                since = sent[view.seat] if view.round == round_[view.seat] else 0
                start = time.perf_counter_ns()
                os.write(write, encode_line({"id": rid + 1, "type": view.decision,
                                             "view": encode_view(view, since)}))
                read_line(read)
                times.append(time.perf_counter_ns() - start)
                sent[view.seat], round_[view.seat] = len(view.history), view.round
            for write, read in pipes:
                os.write(write, encode_line({"type": "end_game", "totals": [0] * 4}))
                read_line(read)  # the host's word that the game's child is gone
            if game == 0:
                times.clear()
    finally:
        for p in procs:
            p.kill()
            p.wait()
    return times


def ping_pong(rounds: int) -> list[int]:
    """A 600-byte line to a bare Python child and a short line back."""
    child = subprocess.Popen([sys.executable, "-c", ECHO], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE)
    write, read = child.stdin.fileno(), child.stdout.fileno()  # type: ignore[union-attr]
    line = b"x" * 599 + b"\n"
    times = []
    try:
        for _ in range(rounds):
            start = time.perf_counter_ns()
            os.write(write, line)
            read_line(read)
            times.append(time.perf_counter_ns() - start)
    finally:
        child.kill()
        child.wait()
    return times[rounds // 10:]


def row(name: str, times: list[int]) -> list[str]:
    """Count, p10, p50 and p99 in microseconds."""
    ordered = sorted(times)
    def at(q: float) -> str:
        return f"{ordered[int(q * (len(ordered) - 1))] / 1000:.1f}"
    return [name, f"{len(ordered):,}", at(0.1), at(0.5), at(0.99)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=30)
    args = parser.parse_args()
    _harness.banner("bench/rotation.py")
    views = [view for _, view in record("indian13", 1)]  # four quick bots, seed 0
    rows = [row("bare ping-pong, one child", ping_pong(5000)),
            row("one host, seat 0's views", replay(views, 1, args.games)),
            row("four hosts in turn, every view", replay(views, 4, args.games))]
    print(tabulate(rows, ["round trip", "count", "p10 us", "p50 us", "p99 us"],
                   tablefmt="github"))


if __name__ == "__main__":
    main()
