"""Coverage of the leaderboard's 95% Elo intervals by number of duplicate sets.

    python bench/coverage.py [--leagues 200] [--sets 2 3 5 10 20 40] [--elo -100 0 150]
                             [--seats 3]

Draws leagues of known strength (by default 3 bots at -100, 0 and +150 Elo; duplicate sets at
tables of ``--seats`` bots drawn at random, 3 by default; the Plackett-Luce generator of
tests/ratings/test_ratings.py), rates each with
the bootstrap forced on, and prints how often a shown interval held the true Elo (centred as
the leaderboard centres it: on the bots whose gaps the results bound). Below
arena.ratings.bradley_terry.MIN_UNITS sets the leaderboard shows no interval; this is why.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import _harness  # noqa: F401  (puts the repository on sys.path)
import numpy as np
from tabulate import tabulate

import arena.ratings.bradley_terry
from arena.ratings.bradley_terry import ELO_MEAN, rate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "ratings"))
from test_ratings import plackett_luce_league


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--leagues", type=int, default=200)
    parser.add_argument("--sets", type=int, nargs="+", default=[2, 3, 5, 10, 20, 40])
    parser.add_argument("--elo", type=float, nargs="+", default=[-100.0, 0.0, 150.0])
    parser.add_argument("--seats", type=int, default=3)
    args = parser.parse_args()
    arena.ratings.bradley_terry.MIN_UNITS = 1  # measure the intervals the leaderboard would hide
    true = np.array(args.elo)
    rng = np.random.default_rng(3)
    rows = []
    for sets in args.sets:
        hits: list[bool] = []
        sure: list[bool] = []  # a LOS between two bots of equal strength beyond 2.5-97.5%
        hidden = 0
        for league in range(args.leagues):
            rated = rate(plackett_luce_league(rng, true, sets=sets, seats=args.seats), seed=league)
            linked = np.ones(len(rated.names), dtype=bool)  # a bot no table drew is absent
            linked[list(rated.unbounded)] = False
            order = [int(name.removeprefix("bot")) for name in rated.names]  # bot3: true[3]
            truth = true[order]
            centred = truth - (truth[linked].mean() if linked.any() else truth.mean()) + ELO_MEAN
            shown = np.isfinite(rated.elo.low)
            hidden += int((~shown).sum())
            hits += ((rated.elo.low <= centred) & (centred <= rated.elo.high))[shown].tolist()
            sure += [not 2.5 <= 100 * los <= 97.5 for a, b in _equal_pairs(truth, linked)
                     if (los := rated.los(a, b)) is not None]
        rows.append([sets, f"{100 * np.mean(hits):.1f}%" if hits else "-", len(hits), hidden,
                     f"{100 * np.mean(sure):.1f}% of {len(sure)}" if sure else "-"])
    print(tabulate(rows, ["duplicate sets", "95% interval held the truth", "intervals shown",
                          "left out (gap open)", "equal bots' LOS outside 2.5-97.5%"],
                   tablefmt="github"))


def _equal_pairs(truth: np.ndarray, linked: np.ndarray) -> list[tuple[int, int]]:
    """Pairs of linked bots of the same true strength: their LOS should fall outside
    2.5-97.5% one time in twenty."""
    n = len(truth)
    return [(a, b) for a in range(n) for b in range(a + 1, n)
            if truth[a] == truth[b] and linked[a] and linked[b]]


if __name__ == "__main__":
    main()
