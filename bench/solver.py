"""Time the best-arrangement solver (COM-7) on seeded random hands, by wild-card count.

    python bench/solver.py [--n 500] [--seed 1] [--repeat 1] [--profile]

(a) Indian Rummy: ``loser_points`` on 13 cards (IND-22, min_deadwood with need_pure) and
    ``best_declaration`` on 14 cards (IND-17), for hands holding exactly k = 0..4 wild cards.
(b) Three-Thirteen scoring: ``min_deadwood`` with ``wild_meld_free`` (TT-8, TT-12), k = 0..4.
(c) Gin-style minimum deadwood: 10 cards from one deck, no wild card.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import _harness
from _deals import GIN_VALUES, GIN_WILDS, Deal, gin_hands, indian_deals, three_thirteen_deals
from _harness import STATS_HEADERS, Stats

from arena.cards import Card
from arena.engine.solver import deadwood_points, min_deadwood
from arena.variants.indian13 import best_declaration, loser_points
from arena.variants.three_thirteen import TT_MELDS

WILD_COUNTS = range(5)
TARGET_P50_NS = 100_000  # IND target: p50 <= 100 us
TARGET_P99_NS = 2_000_000  # IND target: p99 <= 2 ms
TARGET = "p50 <= 100 us, p99 <= 2 ms"


def ind_points(deal: Deal) -> int:
    return loser_points(deal.hand, deal.wilds, deal.values)


def ind_declaration(deal: Deal) -> bool:
    return best_declaration(deal.hand, deal.wilds) is not None


def tt_points(deal: Deal) -> int:
    found = min_deadwood(deal.hand, TT_MELDS, deal.wilds, deal.values, wild_meld_free=True)
    assert found is not None  # without need_pure there is always an arrangement
    return found.points


def gin_deadwood(hand: Sequence[Card]) -> int:
    """Gin's minimum deadwood: TT_MELDS is ace-low only, as gin is; one deck, no wilds."""
    found = min_deadwood(hand, TT_MELDS, GIN_WILDS, GIN_VALUES, wild_meld_free=True)
    assert found is not None
    return found.points


def gin_points(hand: Sequence[Card]) -> int:
    """The same minimum as :func:`gin_deadwood`, points only: the solver builds no melds."""
    points = deadwood_points(hand, TT_MELDS, GIN_WILDS, GIN_VALUES, wild_meld_free=True)
    assert points is not None
    return points


def verdict(stats: Stats) -> str:
    ok = stats.p50 <= TARGET_P50_NS and stats.p99 <= TARGET_P99_NS
    return "meets" if ok else "MISSES"


def bench_indian(n: int, seed: int, repeat: int) -> None:
    rows = []
    for name, fn, size in (("loser_points", ind_points, 13),
                           ("best_declaration", ind_declaration, 14)):
        pooled: list[int] = []
        for k in WILD_COUNTS:
            deals = indian_deals(n, seed=seed, k=k, size=size)
            _harness.warm_up(fn, deals)
            times, results = _harness.time_calls(fn, deals, repeat=repeat)
            pooled += times
            stats = Stats.of(times)
            note = _found(results) if name == "best_declaration" else _mean(results, "pts")
            rows.append([name, size, k, stats.calls, *stats.row_us(), note, verdict(stats)])
        stats = Stats.of(pooled)
        rows.append([name, size, "0-4", stats.calls, *stats.row_us(), "", verdict(stats)])
    print(f"(a) Indian Rummy, 106-card deck, exactly k wild cards; target {TARGET}")
    _harness.show(rows, ["call", "cards", "k", "calls", *STATS_HEADERS, "result", "target"])


def bench_three_thirteen(n: int, seed: int, repeat: int) -> None:
    rows = []
    for k in WILD_COUNTS:
        deals = three_thirteen_deals(n, seed=seed, k=k)
        _harness.warm_up(tt_points, deals)
        times, results = _harness.time_calls(tt_points, deals, repeat=repeat)
        rows.append([k, len(times), *Stats.of(times).row_us(), _mean(results, "pts")])
    print("(b) Three-Thirteen scoring, min_deadwood(TT_MELDS, wild_meld_free=True), 13 cards")
    _harness.show(rows, ["k", "calls", *STATS_HEADERS, "result"])


def bench_gin(n: int, seed: int, repeat: int) -> None:
    hands = gin_hands(n, seed=seed)
    _harness.warm_up(gin_deadwood, hands)
    times, results = _harness.time_calls(gin_deadwood, hands, repeat=repeat)
    print("(c) Gin-style minimum deadwood, one 52-card deck, no wilds, 10 cards")
    _harness.show([[len(times), *Stats.of(times).row_us(), _mean(results, "deadwood")]],
                  ["calls", *STATS_HEADERS, "result"])


def _mean(results: Sequence[int], what: str) -> str:
    return f"mean {sum(results) / len(results):.1f} {what}"


def _found(results: Sequence[bool]) -> str:
    return f"{sum(results)}/{len(results)} declarable"


def profile_indian(n: int, seed: int) -> None:
    points = [d for k in WILD_COUNTS for d in indian_deals(n, seed=seed, k=k)]
    declare = [d for k in WILD_COUNTS for d in indian_deals(n, seed=seed, k=k, size=14)]
    _harness.profile_top("IND loser_points, k = 0..4",
                         lambda: [ind_points(d) for d in points])
    _harness.profile_top("IND best_declaration, k = 0..4",
                         lambda: [ind_declaration(d) for d in declare])


def main(argv: Sequence[str] | None = None) -> int:
    args = _harness.arguments(__doc__.splitlines()[0], n=500).parse_args(argv)
    _harness.banner(f"bench/solver.py --n {args.n} --seed {args.seed} --repeat {args.repeat}")
    bench_indian(args.n, args.seed, args.repeat)
    bench_three_thirteen(args.n, args.seed, args.repeat)
    bench_gin(args.n, args.seed, args.repeat)
    if args.profile:
        profile_indian(args.n, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
