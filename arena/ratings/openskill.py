"""The openskill (Plackett-Luce) rating of each bot, a second opinion beside Bradley-Terry:
games rated one by one, lower totals ranking first."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import cache

from openskill.models import PlackettLuce, PlackettLuceRating

from arena.ratings.comparisons import (
    Teams,
    _mean,
)


def openskill_ordinals(games: Iterable[tuple[Sequence[str], Sequence[float]]], *,
                       teams: Teams = None) -> dict[str, float]:
    """The ``openskill`` Plackett-Luce model's ordinal (mu - 3 sigma) after the games, rated
    one by one in the order given (callers sort them by game id); lower totals rank first."""
    model = PlackettLuce()
    ratings: dict[str, PlackettLuceRating] = {}
    update = _rate_in_place if _fast_path_works() else _rate_public
    for bots, totals in games:
        for b in bots:
            if b not in ratings:
                ratings[b] = model.rating(name=b)
        alone = len(set(bots)) == len(bots)
        # a bot in several seats: each seat rates a copy, then the bot takes their mean
        players = [ratings[b] for b in bots] if alone else \
            [model.rating(mu=ratings[b].mu, sigma=ratings[b].sigma) for b in bots]
        update(model, *_ranked(players, totals, teams))
        if not alone:
            for b in set(bots):
                mine = [p for p, x in zip(players, bots, strict=True) if x == b]
                ratings[b].mu = sum(p.mu for p in mine) / len(mine)
                ratings[b].sigma = sum(p.sigma for p in mine) / len(mine)
    return {b: float(r.ordinal()) for b, r in ratings.items()}


def _ranked(players: list[PlackettLuceRating], totals: Sequence[float], teams: Teams
            ) -> tuple[list[list[PlackettLuceRating]], list[float]]:
    """Teams best first (a seat alone without a team map) with their competition ranks."""
    if teams is None:
        groups = [[p] for p in players]
        result = list(totals)
    else:
        labels = list(dict.fromkeys(teams))
        groups = [[p for p, t in zip(players, teams, strict=True) if t == label]
                  for label in labels]
        result = [_mean([x for x, t in zip(totals, teams, strict=True) if t == label])
                  for label in labels]
    order = sorted(range(len(groups)), key=result.__getitem__)
    ranks: list[float] = []
    for place, i in enumerate(order):
        tied = place and result[i] == result[order[place - 1]]
        ranks.append(ranks[-1] if tied else float(place + 1))
    return [groups[i] for i in order], ranks


def _rate_public(model: PlackettLuce, teams: list[list[PlackettLuceRating]],
                 ranks: list[float]) -> None:
    """``model.rate``, with the result copied back into the rating objects."""
    new = model.rate(teams, ranks=ranks)
    for old_team, new_team in zip(teams, new, strict=True):
        for old, fresh in zip(old_team, new_team, strict=True):
            old.mu, old.sigma = fresh.mu, fresh.sigma


def _rate_in_place(model: PlackettLuce, teams: list[list[PlackettLuceRating]],
                   ranks: list[float]) -> None:
    """What ``model.rate`` does for teams already in rank order (add tau to sigma, then the
    update) without its deep copy of every rating, which costs most of its time; used only
    while :func:`_fast_path_works`."""
    tau2 = model.tau * model.tau
    for team in teams:
        for player in team:
            player.sigma = math.sqrt(player.sigma * player.sigma + tau2)
    model._compute(teams=teams, ranks=ranks)


@cache
def _fast_path_works() -> bool:
    """Does :func:`_rate_in_place` give exactly what the public ``rate`` gives? Checked once,
    on games with ties and teams, so a change inside ``openskill`` falls back to ``rate``."""
    results = []
    for update in (_rate_public, _rate_in_place):
        try:
            model = PlackettLuce()
            players = [model.rating(name=str(i)) for i in range(4)]
            for totals in ([0, 5, 9, 20], [7, 0, 0, 30], [12, 12, 0, 3], [4, 4, 4, 4]):
                update(model, *_ranked(players, totals, None))
                update(model, *_ranked(players, totals, (0, 1, 0, 1)))
            results.append([(p.mu, p.sigma) for p in players])
        except Exception:  # the private method changed: use the public call
            return False
    return results[0] == results[1]
