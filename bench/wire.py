"""Cost of the wire per decision, both ends, in one process (no pipe, no scheduler).

    python bench/wire.py [--games 2] [--repeat 5]

Records every view that four built-in bots are shown over a few games of each variant, then
times, per decision: the referee encoding the view as a delta (``encode_view``, then
``encode_line``), the bot's host parsing the line (``orjson.loads``) and rebuilding the
view (``ViewDecoder.decode``, one decoder per seat and game, as in a game child). Each pass
goes through all the views; the fastest of ``--repeat`` passes is kept. Every decoded view
is checked equal to the one the engine built.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import _harness  # puts the repository on sys.path
import orjson
from tabulate import tabulate

from arena.engine.view import View
from arena.referee import Referee
from arena.seats.bot import BotSpec
from arena.seats.make import make_seat
from arena.seats.protocol import ViewDecoder, encode_line, encode_view
from arena.variants import find_variant

BOTS = {"indian13": "bench._quick_bot:QuickBot", "three_thirteen": "bench._quick_bot:QuickBot",
        "rummy51": "bots.greedy:GreedyBot", "moroccan": "bots.greedy:GreedyBot"}
Key = tuple[int, int]  # (game, seat): one decoder each


class _Recorded:
    """A seat that keeps every view it is asked about."""

    def __init__(self, spec: BotSpec, views: list[tuple[Key, View]], game: list[int]) -> None:
        self.seat = make_seat(spec, isolation="inprocess")
        self.views = views
        self.game = game

    def ask(self, view: View, limit_ms: int) -> Any:
        self.views.append(((self.game[0], view.seat), view))
        return self.seat.ask(view, limit_ms)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.seat, name)


def record(variant: str, games: int) -> list[tuple[Key, View]]:
    """Every view shown in ``games`` games of four built-in bots (seeds 0..games-1)."""
    views: list[tuple[Key, View]] = []
    current = [0]
    spec = BotSpec("bot", BOTS[variant])
    seats = [_Recorded(spec, views, current) for _ in range(4)]
    for seed in range(games):
        current[0] = seed
        Referee(find_variant(variant), seats, ["bot"] * 4, seed=seed).play()
    return views


def encode_all(views: list[tuple[Key, View]]) -> list[tuple[Key, bytes]]:
    """Each view as the line its seat is sent: the history new since its previous view."""
    sent: dict[Key, tuple[int, int]] = {}
    lines = []
    for key, view in views:
        round_, count = sent.get(key, (-1, 0))
        since = count if view.round == round_ else 0
        lines.append((key, encode_line({"id": 1, "type": view.decision,
                                        "view": encode_view(view, since)})))
        sent[key] = (view.round, len(view.history))
    return lines


def fastest(passes: int, work: Callable[[], Any]) -> tuple[float, Any]:
    """The fastest of ``passes`` runs of ``work``, in ns, and its last result."""
    best, result = float("inf"), None
    for _ in range(passes):
        start = time.perf_counter_ns()
        result = work()
        best = min(best, time.perf_counter_ns() - start)
    return best, result


def measure(variant: str, games: int, passes: int) -> list[str]:
    """One table row: the variant's per-decision costs, in microseconds."""
    views = record(variant, games)
    n = len(views)
    encode_ns, lines = fastest(passes, lambda: encode_all(views))
    loads_ns, messages = fastest(passes, lambda: [(k, orjson.loads(m)) for k, m in lines])

    def decode_all() -> list[View]:
        decoders: dict[Key, ViewDecoder] = defaultdict(ViewDecoder)
        return [decoders[k].decode(m["view"]) for k, m in messages]
    decode_ns, decoded = fastest(passes, decode_all)
    if decoded != [v for _, v in views]:
        raise SystemExit(f"{variant}: a decoded view differs from the engine's")
    size = sum(len(m) for _, m in lines) / n
    return [variant, f"{n:,}", f"{size:,.0f}", f"{encode_ns / n / 1000:.1f}",
            f"{loads_ns / n / 1000:.1f}", f"{decode_ns / n / 1000:.1f}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    _harness.banner("bench/wire.py")
    rows = [measure(variant, args.games, args.repeat) for variant in BOTS]
    print(tabulate(rows, ["variant", "views", "bytes per line", "encode us", "loads us",
                          "decode us"], tablefmt="github"))


if __name__ == "__main__":
    main()
