"""The leaderboard: a pure function of ``games.jsonl``, one standing per bot.

Columns and formulas are explained in ``docs/statistics.md``; the numbers come from
:mod:`arena.ratings.bradley_terry`; :mod:`arena.ratings.render` prints them.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from arena.errors import BadInput
from arena.ratings.bradley_terry import MIN_UNITS, RESAMPLES, SEED, Estimate, Ratings, rate
from arena.ratings.comparisons import Teams, compared_results, ranked_totals, unit_key
from arena.ratings.duplicate import DuplicateGain, duplicate_gain
from arena.ratings.openskill import openskill_ordinals
from arena.ratings.terms import Anchor
from arena.records import GameRecord


@dataclass(frozen=True, slots=True)
class Standing:
    """One bot's line of the leaderboard; a bound is None where the data cannot give one."""

    rank: int
    bot: str
    games: int
    wins: float
    win_pct: float
    mean_points: float
    points_low: float | None
    points_high: float | None
    vs_field: float
    vs_field_low: float | None
    vs_field_high: float | None
    mean_rank: float
    elo: float
    elo_low: float | None
    elo_high: float | None
    openskill: float
    faults: int
    forfeits: int  # games it forfeited (COM-6): each lost to every seat that did not
    los_next: float | None  # % likelihood of superiority over the next bot down


@dataclass(frozen=True, slots=True)
class _Tally:
    games: dict[str, int]
    wins: dict[str, float]
    rank_sum: dict[str, float]
    faults: dict[str, int]
    forfeits: Counter[str]


def _tally(records: Sequence[GameRecord], teams: Teams = None) -> _Tally:
    """Counts per bot; a first place shared by n seats (with ``teams``, n teams: partners
    win together) counts 1/n of a win for each. A bot in several seats of one game (an
    SPRT's baseline at 3 seats and more) plays one game there, and its share of the win and
    its rank are its seats' means: counted as won by any of its seats, a baseline on both
    teams of a 2 v 2 game won every game; a team's rank counts the teams ahead of it."""
    games: dict[str, int] = defaultdict(int)
    wins: dict[str, float] = defaultdict(float)
    rank_sum: dict[str, float] = defaultdict(float)
    faults: dict[str, int] = defaultdict(int)
    forfeits: Counter[str] = Counter()
    for r in records:
        places, won = _places_and_shares(r, teams)
        seats = Counter(s.bot for s in r.seats)
        for s, place, share in zip(r.seats, places, won, strict=True):
            rank_sum[s.bot] += place / seats[s.bot]
            wins[s.bot] += share / seats[s.bot]
            if any(s.faults.values()):
                faults[s.bot] += sum(s.faults.values())
            forfeits[s.bot] += s.forfeit
        for bot in seats:
            games[bot] += 1
    return _Tally(games, wins, rank_sum, faults, forfeits)


def _places_and_shares(record: GameRecord, teams: Teams
                       ) -> tuple[Sequence[int], list[float]]:
    """Each seat's place and its share of the win: by the record's ranks, or with ``teams``
    by the teams' results, compared once (a team's first place is each partner's)."""
    if teams is None:
        places: Sequence[int] = record.ranks
        firsts = places.count(1)
    else:
        results = compared_results(record, teams)
        places = _team_places(results, teams)
        firsts = len({label for label, place in zip(teams, places, strict=True)
                      if place == 1})
    return places, [1 / firsts if place == 1 else 0.0 for place in places]


def _team_places(results: Sequence[float], teams: Sequence[int]) -> list[int]:
    """Each seat's place from its team's result: 1 + the teams ahead of it (the losing team
    of a 2 v 2 game is 2; a team whose seat forfeited is behind: the record's ranks place
    the partner who played on first)."""
    team = dict(zip(teams, results, strict=True))  # partners share one result
    return [1 + sum(other < mine for other in team.values()) for mine in results]


@dataclass(frozen=True, slots=True)
class Footing:
    """What the table rests on, for the lines printed under it."""

    games: int
    units: int  # resampling units: duplicate sets, or games without them
    sets: bool  # whether the units are duplicate sets
    anchor: str | None  # the bot whose Elo is fixed, if any
    flat: tuple[tuple[str, str], ...]  # (bot, column) of intervals with no spread
    gain: DuplicateGain | None  # what the duplicate deals did to the variance
    unbounded: tuple[str, ...] = ()  # bots whose Elo gap to the rest no result bounds
    forfeited: tuple[tuple[str, int, int], ...] = ()  # (bot, games forfeited, games), worst
    uneven: bool = False  # whether the units hold different numbers of games
    level: tuple[tuple[str, str], ...] = ()  # (bot, next bot) of a gap no resample moves

    @property
    def has_intervals(self) -> bool:
        """Whether there were enough units for intervals and LOS (MIN_UNITS)."""
        return self.units >= MIN_UNITS

    @property
    def games_needed(self) -> int:
        """Games for MIN_UNITS units at the records' mean games per unit."""
        return math.ceil(MIN_UNITS * self.games / max(self.units, 1))


@dataclass(frozen=True, slots=True)
class Board:
    """The leaderboard: its rows, best first, and what they rest on."""

    rows: list[Standing]
    footing: Footing


def standings(records: Sequence[GameRecord], *, anchor: Anchor | None = None,
              teams: Teams = None, resamples: int = RESAMPLES,
              seed: int = SEED) -> list[Standing]:
    """The leaderboard rows, best Elo first: totals per bot, the Bradley-Terry Elo with its
    bootstrap interval, points with theirs, openskill, and LOS over the next bot. Teams
    are the caller's (:func:`arena.tournament.results.teams_of` reads them from the
    records' variant); None: everyone plays alone."""
    return board(records, anchor=anchor, teams=teams, resamples=resamples, seed=seed).rows


def board(records: Sequence[GameRecord], *, anchor: Anchor | None = None, teams: Teams = None,
          resamples: int = RESAMPLES, seed: int = SEED) -> Board:
    """The rows of :func:`standings` and their footing: units, anchor, intervals left out
    for want of spread, and the variance the duplicate deals saved."""
    if not records:
        return Board([], Footing(0, 0, False, None, (), None))
    rated = _rate(records, anchor=anchor, teams=teams, resamples=resamples, seed=seed)
    fixed = None if anchor is None else anchor[0]
    rows = _rows(records, rated, teams)
    sizes = Counter(unit_key(r) for r in records)
    units = len(sizes)
    sets = any(r.dup_set for r in records)
    gain = duplicate_gain(records, teams=teams) if sets and units >= MIN_UNITS else None
    unbounded = tuple(r.bot for r in rows if rated.names.index(r.bot) in rated.unbounded)
    flat = tuple((r.bot, column) for r in rows if rated.has_intervals
                 for column, low in (("Elo", r.elo_low), ("points", r.points_low),
                                     ("vs field", r.vs_field_low))
                 if low is None and not (column == "Elo" and r.bot in (fixed, *unbounded)))
    forfeited = tuple(sorted(((r.bot, r.forfeits, r.games) for r in rows if r.forfeits),
                             key=lambda f: (-f[1] / f[2], f[0])))
    level = tuple((a.bot, b.bot) for a, b in pairwise(rows) if a.los_next is None
                  and not {a.bot, b.bot} & set(unbounded)) if rated.has_intervals else ()
    return Board(rows, Footing(len(records), units, sets, fixed, flat, gain,
                               unbounded if rated.has_intervals else (), forfeited,
                               uneven=len(set(sizes.values())) > 1, level=level))


def _rows(records: Sequence[GameRecord], rated: Ratings, teams: Teams) -> list[Standing]:
    """One standing per bot in Elo order: the fit's numbers beside the plain tallies."""
    tally = _tally(records, teams)
    in_order = sorted(records, key=lambda r: (r.id, r.dup_set, r.seed, r.totals))
    ordinals = openskill_ordinals((([s.bot for s in r.seats], ranked_totals(r)) for r in in_order),
                                  teams=teams)
    names = rated.names
    groups = tied_ranks(rated)
    order = [i for group in groups for i in group]
    ranks = [1 + sum(map(len, groups[:g])) for g, group in enumerate(groups) for _ in group]
    rows = []
    for place, i in enumerate(order):
        bot = names[i]
        games = tally.games[bot]
        below = order[place + 1] if place + 1 < len(order) else None
        elo, points, vs_field = (_bounds(e, i, d) for e, d in
                                 ((rated.elo, 1), (rated.points, 2), (rated.vs_field, 2)))
        rows.append(Standing(
            rank=ranks[place], bot=bot, elo=_round(rated.elo.value[i], 1) or 0.0,
            elo_low=elo[0], elo_high=elo[1],
            games=games, wins=round(tally.wins[bot], 2),
            win_pct=round(100 * tally.wins[bot] / games, 1),
            mean_points=_round(rated.points.value[i], 2) or 0.0,
            points_low=points[0], points_high=points[1],
            vs_field=_round(rated.vs_field.value[i], 2) or 0.0,
            vs_field_low=vs_field[0], vs_field_high=vs_field[1],
            mean_rank=round(tally.rank_sum[bot] / games, 2),
            openskill=round(ordinals[bot], 2), faults=tally.faults[bot],
            forfeits=tally.forfeits[bot],
            los_next=_los(rated, i, below)))
    return rows


TIED_ELO = 0.05  # Elo closer than this to the bot above (the same at the 0.1 shown in csv
# and json) shares its rank: no anchor, which only shifts the scale, splits them


def elo_order(rated: Ratings) -> list[int]:
    """The bots best first (:func:`tied_ranks`' groups in order, each by vs field then
    points, lower first, then name): ties went by name alone, and a new bot level with
    greedy on Elo ranked above it with three times its points."""
    return [i for group in tied_ranks(rated) for i in group]


def tied_ranks(rated: Ratings) -> list[list[int]]:
    """Bots by Elo, best first, in groups of those within TIED_ELO of the one above."""
    def elo(i: int) -> float:
        value = float(rated.elo.value[i])
        return value if math.isfinite(value) else -math.inf

    def after(i: int) -> tuple[float, float, str]:
        vs, points = float(rated.vs_field.value[i]), float(rated.points.value[i])
        return (vs if math.isfinite(vs) else math.inf,
                points if math.isfinite(points) else math.inf, rated.names[i])

    groups: list[list[int]] = []
    for i in sorted(range(len(rated.names)), key=lambda i: (-elo(i), rated.names[i])):
        if groups and elo(groups[-1][-1]) - elo(i) < TIED_ELO:
            groups[-1].append(i)
        else:
            groups.append([i])
    return [sorted(group, key=after) for group in groups]


def _los(rated: Ratings, i: int, below: int | None) -> float | None:
    """LOS over the next bot down, in %, where the resamples measured a spread: not where
    either gap is open (one side won every comparison), whose resamples all repeat the
    sweep and read a certainty of 100% that the results do not give."""
    if below is None or not rated.has_intervals or {i, below} & set(rated.unbounded):
        return None
    los = rated.los(i, below)
    return None if los is None else round(100 * los, 1)


def _bounds(estimate: Estimate, i: int, digits: int) -> tuple[float | None, float | None]:
    """An interval's ends as shown, or (None, None) when they meet: an interval of no width
    (the anchor, or a statistic every resample gives alike) claims a certainty no data has."""
    low, high = _round(estimate.low[i], digits), _round(estimate.high[i], digits)
    if low is None or high is None or low >= high:
        return None, None
    return low, high


def _rate(records: Sequence[GameRecord], *, anchor: Anchor | None, **kw: Any) -> Ratings:
    try:
        return rate(records, anchor=anchor, **kw)
    except KeyError as exc:
        bots = sorted({s.bot for r in records for s in r.seats})
        raise BadInput(f"anchor {exc.args[0]!r}: no such bot in the games; expected one of "
                       f"{', '.join(bots)}") from None


def _round(value: float, digits: int) -> float | None:
    """A finite number rounded, or None (JSON has no NaN)."""
    return round(float(value), digits) if math.isfinite(value) else None


@dataclass(frozen=True, slots=True)
class Meeting:
    """How one bot did against another: pairwise wins with ties as halves, out of games."""

    bot: str
    opponent: str
    score: float
    games: int


def head_to_head(records: Sequence[GameRecord], *, teams: Teams = None) -> list[Meeting]:
    """Every ordered pair of bots that met, both in leaderboard (Elo) order (partners of a
    team game did not meet)."""
    if not records:
        return []
    rated = rate(records, teams=teams, resamples=0)
    order = elo_order(rated)
    return [Meeting(rated.names[a], rated.names[b], float(rated.score[a, b]),
                    int(rated.meets[a, b]))
            for a in order for b in order if a != b and rated.meets[a, b] > 0]


@dataclass(frozen=True, slots=True)
class FaultyBot:
    """A bot that faulted on many of its decisions: probably broken rather than weak."""

    bot: str
    faults: int
    decisions: int
    most_common: str
    forfeits: int = 0  # games it forfeited (COM-6)
    games: int = 0


BROKEN_SHARE = 0.2  # a fifth of its decisions: a bot that fails every play (half of its
# decisions, the draws being the other half) is broken, not weak; a bot that answers late
# now and then under load is not named


def faulty_bots(records: Sequence[GameRecord], *,
                share: float = BROKEN_SHARE) -> list[FaultyBot]:
    """Bots that faulted on ``share`` of their decisions or more, or forfeited a game (a
    seat that forfeits is asked no more, so its share of faults stays low), worst first."""
    faults: dict[str, Counter[str]] = defaultdict(Counter)
    decisions: Counter[str] = Counter()
    forfeits: Counter[str] = Counter()
    games: Counter[str] = Counter()
    for record in records:
        for seat in record.seats:
            faults[seat.bot].update(seat.faults)
            decisions[seat.bot] += seat.decisions
            forfeits[seat.bot] += seat.forfeit
            games[seat.bot] += 1
    found = [FaultyBot(bot, faults[bot].total(), decisions[bot],
                       faults[bot].most_common(1)[0][0], forfeits[bot], games[bot])
             for bot in decisions if faults[bot].total() and (
                 faults[bot].total() >= share * max(decisions[bot], 1) or forfeits[bot])]
    return sorted(found, key=lambda f: (-f.faults / max(f.decisions, 1), f.bot))
