"""Elo from one joint Bradley-Terry fit over the pairwise results inside each game.

Every pair of seats at a table is one comparison: the lower total wins, equal totals tie.
The fit is the maximum-likelihood Bradley-Terry model found by the MM algorithm
(Hunter 2004, "MM algorithms for generalized Bradley-Terry models", Ann. Statist. 32(1));
a tie counts half a win each way. A virtual opponent of strength 1, met once with a tie by
every bot, keeps unbeaten or winless bots finite. The result depends on the set of games
only, never on the order they finished.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence

ELO_SCALE = 400 / math.log(10)
ELO_MEAN = 1500.0


def pairwise(games: Iterable[tuple[Sequence[str], Sequence[int]]]
             ) -> tuple[dict[tuple[str, str], float], dict[tuple[str, str], int]]:
    """Wins (ties as halves) and meetings for every ordered pair of bots, from (bots, totals)."""
    wins: dict[tuple[str, str], float] = defaultdict(float)
    meets: dict[tuple[str, str], int] = defaultdict(int)
    for bots, totals in games:
        for i, a in enumerate(bots):
            for j in range(i + 1, len(bots)):
                b = bots[j]
                if a == b:
                    continue
                score = 1.0 if totals[i] < totals[j] else 0.5 if totals[i] == totals[j] else 0.0
                wins[(a, b)] += score
                wins[(b, a)] += 1.0 - score
                meets[(a, b)] += 1
                meets[(b, a)] += 1
    return wins, meets


def bradley_terry_elo(names: Sequence[str], wins: dict[tuple[str, str], float],
                      meets: dict[tuple[str, str], int], *, tol: float = 1e-10,
                      max_iter: int = 10_000) -> dict[str, float]:
    """Elo ratings (mean 1500) of the joint Bradley-Terry fit."""
    gamma = dict.fromkeys(names, 1.0)
    opponents: dict[str, list[tuple[str, int]]] = defaultdict(list)
    total_wins = dict.fromkeys(names, 0.5)  # the virtual tie
    for (a, b), n in meets.items():
        opponents[a].append((b, n))
        total_wins[a] += wins[(a, b)]
    for _ in range(max_iter):
        new = {}
        for a in names:
            denom = 1.0 / (gamma[a] + 1.0)  # the virtual opponent
            denom += sum(n / (gamma[a] + gamma[b]) for b, n in opponents[a])
            new[a] = total_wins[a] / denom
        scale = math.exp(sum(math.log(g) for g in new.values()) / len(new))
        new = {a: g / scale for a, g in new.items()}
        done = max(abs(math.log(new[a] / gamma[a])) for a in names) < tol
        gamma = new
        if done:
            break
    return {a: ELO_MEAN + ELO_SCALE * math.log(g) for a, g in gamma.items()}
