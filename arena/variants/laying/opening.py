"""The laying family's calculators: one combination and what it counts toward an opening
(``arena meld``), whether combinations open at a level (``arena open``), and why a hand
cannot go out at once (``arena hand``). Each answer comes from the code the referee checks a
play with (:func:`~arena.variants.laying.play.lay_cards`, :func:`check_rights`), never a copy.

>>> import arena.variants  # registers R51's combinations and rule IDs
>>> from arena.actions import Placed
>>> R51 = LayingRules(prefix="R51")
>>> group = [Placed.parse(t) for t in "JK=8H 6H 7H".split()]
>>> answer = meld_answer(group, R51)
>>> [str(p) for p in answer.cards], answer.points
(['6H', '7H', 'JK=8H'], 21)
>>> melds = [[Placed.parse(t) for t in m.split()] for m in ("9S 9H 9D", "KC KD KS")]
>>> report = opening_answer(melds, R51, variant="rummy51/v1", level=None)
>>> report.total, report.opens
(57, True)
>>> report = opening_answer(melds, R51, variant="rummy51/v1", level=58)
>>> report.opens, report.rule
(False, 'R51-11')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena.actions import Placed, Play, TakeBack
from arena.cards import Card, check_in_deck
from arena.engine.game import CountedMeld, MeldReport, OpeningReport
from arena.engine.melds import NO_WILDS, check_meld
from arena.engine.rules import LayingRules
from arena.engine.view import TableMeld
from arena.errors import BadInput, IllegalAction
from arena.variants.laying.hand import whole_hand
from arena.variants.laying.play import check_rights, lay_cards, opening_count
from arena.variants.laying.table import build_meld, is_franc


def _text(placed: Sequence[Placed]) -> str:
    return " ".join(map(str, placed))


def _as_read(meld: TableMeld) -> tuple[Placed, ...]:
    """A table combination's cards, each joker with the card it stands for (COM-15)."""
    return tuple(Placed(c, s) for c, s in zip(meld.cards, meld.stands_for, strict=True))


def meld_answer(placed: Sequence[Placed], rules: LayingRules) -> MeldReport:
    """One group as a new combination (R51-6, MAR-6), read as the table would hold it, and
    what it counts toward an opening (R51-10, MAR-9)."""
    check = check_meld([p.card for p in placed], rules.melds, NO_WILDS)
    if not check.valid:
        return MeldReport(valid=False, kind=None, reason=check.reason, counted=True,
                          cards=tuple(placed))
    try:
        meld = build_meld(placed, rules, owner=0, where=_text(placed))
    except IllegalAction as exc:  # COM-15: a reading named wrongly, or two left open
        if any(p.stands_for is not None for p in placed):
            return MeldReport(valid=False, kind=None, reason=str(exc), counted=True,
                              cards=tuple(placed))
        return MeldReport(valid=True, kind=check.kind, reason=None, counted=True,
                          cards=tuple(placed), note=str(exc))
    points, note = _meld_points(meld, rules)
    return MeldReport(valid=True, kind=check.kind, reason=None, counted=True,
                      cards=_as_read(meld), points=points, note=note)


def _meld_points(meld: TableMeld, rules: LayingRules) -> tuple[int | None, str | None]:
    """What one combination counts toward an opening, and why when that is nothing."""
    if rules.opening is None:
        return None, f"{rules.rule('simple')}: this mode has no first lay-down to count"
    points = opening_count([meld], rules)
    if rules.franc and not is_franc(meld):
        return points, (f"{rules.rule('open')}: a combination with a joker counts 0 toward "
                        "a first lay-down")
    return points, None


def _counted(placed: Sequence[Placed], rules: LayingRules) -> CountedMeld:
    """One group of an opening with its count, or None where it is no combination."""
    answer = meld_answer(placed, rules)
    return CountedMeld(cards=answer.cards, points=answer.points if answer.valid else None)


def _level(rules: LayingRules, level: int | None) -> int | None:
    """The threshold asked about: the variant's base, or a level it has risen to."""
    base = rules.opening
    if base is None:
        if level is not None:
            raise BadInput(f"--level {level}: this mode has no first lay-down "
                           f"({rules.rule('simple')})")
        return None
    if level is not None and level < base:
        raise BadInput(f"--level {level}: expected {base} or more: the level starts at {base} "
                       f"and only rises ({rules.rule('rise')})")
    return base if level is None else level


def _table(table: Sequence[Sequence[Placed]], rules: LayingRules) -> tuple[TableMeld, ...]:
    """The combinations the question puts on the table; one that is none is bad input."""
    out = []
    for i, placed in enumerate(table):
        try:
            out.append(build_meld(placed, rules, owner=1, where=f"table combination {i}"))
        except IllegalAction as exc:
            raise BadInput(f"--table {_text(placed)!r}: not a combination on the table: "
                           f"{exc}") from exc
    return tuple(out)


def _check_takes(takebacks: Sequence[TakeBack], size: int) -> None:
    """A take-back names a combination the question put on the table."""
    for tb in takebacks:
        if tb.meld >= size:
            raise BadInput(f"--take '{tb.meld} {tb.card}': the table holds {size} "
                           "combination(s) (--table), numbered from 0")


def _opening_hand(melds: Sequence[Sequence[Placed]],
                  takebacks: Sequence[TakeBack]) -> list[Card]:
    """The hand these lays come from: their cards, the cards put down for jokers, and no
    more jokers than the take-backs leave to be found (R51-10 counts the hand's own)."""
    hand = [p.card for m in melds for p in m] + [t.card for t in takebacks]
    for _ in takebacks:
        if Card.JOKER in hand:
            hand.remove(Card.JOKER)
    return hand


def opening_answer(melds: Sequence[Sequence[Placed]], rules: LayingRules, *, variant: str,
                   level: int | None, table: Sequence[Sequence[Placed]] = (),
                   takebacks: Sequence[TakeBack] = (),
                   held: Mapping[Card, int] | None = None) -> OpeningReport:
    """Do these new combinations open at ``level`` for a player who has not opened and keeps
    cards back (R51-10, R51-11, R51-19, MAR-9, MAR-10)? Checked as the referee checks it;
    the table and the hand may hold no more copies of a card than the deck ``held``."""
    threshold = _level(rules, level)
    _check_takes(takebacks, len(table))
    hand = _opening_hand(melds, takebacks)
    if held is not None:
        check_in_deck([p.card for m in table for p in m] + hand, held)
    on_table = _table(table, rules)
    play = Play(discard=None, melds=tuple(tuple(m) for m in melds), takebacks=tuple(takebacks))
    rows = tuple(_counted(m, rules) for m in melds)
    total: int | None = None
    try:
        laid = lay_cards(hand, on_table, play, rules, seat=0)
        total = None if threshold is None else opening_count(laid.new, rules)
        check_rights(laid, play, rules, opened=False, may_lay=True, threshold=threshold)
    except IllegalAction as exc:
        return OpeningReport(variant=variant, level=threshold, melds=rows, total=total,
                             opens=False, rule=exc.rule, reason=exc.reason)
    return OpeningReport(variant=variant, level=threshold, melds=rows, total=total, opens=True,
                         rule=None, reason=None)


def going_out_refusal(cards: Sequence[Card], rules: LayingRules) -> str | None:
    """Why a player who has not opened cannot lay all these cards but one at once and
    discard the last (R51-14, R51-19, MAR-12, MAR-13); None when he can."""
    rule = rules.rule("out" if rules.opening is not None else "simple")
    if len(cards) < 4:
        return f"{rule}: a combination and a discard take 4 cards at least, not {len(cards)}"
    if whole_hand(cards, rules) is not None:
        return None
    if whole_hand(cards, rules, opened=True) is None:
        return f"{rule}: the cards but one do not all fit in combinations"
    jokers = sum(c.is_joker for c in cards)
    if rules.joker_free_opening and jokers:
        why = "the cards but the joker do not all fit in combinations" if jokers == 1 else \
            f"{jokers} jokers cannot all be the one card kept for the discard"
        return f"{rules.rule('joker')}: going out at once without having opened lays no " \
            f"joker, and {why}"
    return f"{rule}: going out at once needs a franc tierce and a franc suite (no joker)"
