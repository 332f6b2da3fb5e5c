"""Our gin-style minimum deadwood against RLCard's, on the same seeded 10-card hands.

    python bench/rlcard_compare.py [--n 500] [--seed 1] [--repeat 1]

RLCard is a bench-only extra (``pip install rlcard``), never a runtime dependency. Its minimum
deadwood is what its gin scorer computes (``scorers.get_payoff_gin_rummy_v1``): the first of
``melding.get_best_meld_clusters(hand)``, counted by ``utils.get_deadwood_count``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import _harness
from _deals import gin_hands
from _harness import Stats
from solver import gin_deadwood

from arena.cards import Card, format_cards


def rlcard_deadwood(melding: Any, utils: Any) -> Any:
    """RLCard's minimum deadwood of a hand of its own cards (an empty cluster if no meld)."""
    def deadwood(hand: list[Any]) -> int:
        best = melding.get_best_meld_clusters(hand=hand)
        return int(utils.get_deadwood_count(hand=hand, meld_cluster=best[0] if best else []))
    return deadwood


def to_rlcard(hand: Sequence[Card], utils: Any) -> list[Any]:
    """Same card ids on both sides: suit S H D C times 13 plus rank A..K."""
    return [utils.get_card(card.code) for card in hand]


def _same(ours: Sequence[Card], theirs: Sequence[Any]) -> bool:
    """The conversion kept every card (RLCard writes ten as T)."""
    return [str(c).replace("10", "T") for c in ours] == [str(c) for c in theirs]


def main(argv: Sequence[str] | None = None) -> int:
    args = _harness.arguments(__doc__.splitlines()[0], n=500, profile=False).parse_args(argv)
    try:
        from rlcard.games.gin_rummy.utils import melding, utils  # type: ignore[import-untyped]
    except ImportError:
        print("rlcard is not installed; to compare, run: pip install rlcard "
              "(a bench-only extra, never a runtime dependency)")
        return 0
    _harness.banner(f"bench/rlcard_compare.py --n {args.n} --seed {args.seed} "
                    f"--repeat {args.repeat}")
    ours_hands = gin_hands(args.n, seed=args.seed)
    their_hands = [to_rlcard(hand, utils) for hand in ours_hands]
    assert all(_same(a, b) for a, b in zip(ours_hands, their_hands, strict=True))
    theirs_fn = rlcard_deadwood(melding, utils)
    _harness.warm_up(gin_deadwood, ours_hands)
    _harness.warm_up(theirs_fn, their_hands)
    ours_ns, ours = _harness.time_calls(gin_deadwood, ours_hands, repeat=args.repeat)
    theirs_ns, theirs = _harness.time_calls(theirs_fn, their_hands, repeat=args.repeat)
    report(Stats.of(ours_ns), Stats.of(theirs_ns))
    check(ours_hands, ours, theirs)
    return 0


def report(ours: Stats, theirs: Stats) -> None:
    print("Gin minimum deadwood, 10 cards from one 52-card deck, no wilds")
    rows = [["arena min_deadwood", ours.calls, *ours.row_us()],
            ["rlcard get_best_meld_clusters", theirs.calls, *theirs.row_us()]]
    _harness.show(rows, ["solver", "calls", *_harness.STATS_HEADERS])
    print(f"time ratio arena / rlcard: p50 {ours.p50 / theirs.p50:.2f}x, "
          f"p99 {ours.p99 / theirs.p99:.2f}x (above 1: rlcard is faster)")


def check(hands: Sequence[Sequence[Card]], ours: Sequence[int], theirs: Sequence[int]) -> None:
    """Both solvers must agree on every hand; list the first few disagreements."""
    bad = [(h, a, b) for h, a, b in zip(hands, ours, theirs, strict=True) if a != b]
    print(f"agreement: {len(hands) - len(bad)}/{len(hands)} hands, {len(bad)} mismatches")
    for hand, a, b in bad[:10]:
        print(f"  {format_cards(sorted(hand))}: arena {a}, rlcard {b}")


if __name__ == "__main__":
    sys.exit(main())
