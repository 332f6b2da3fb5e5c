"""Combinations (runs and sets): what one may be in a variant, which cards are wild, and
whether given cards make one, of which kind, or why not.

The same code serves every variant: a :class:`MeldRules` says what a combination may be and
a :class:`WildSpec` says which cards are wild this round. The solver
(:mod:`arena.engine.solver`) builds on both.

>>> from arena.cards import parse_cards
>>> rules, wilds = MeldRules(), WildSpec.of(parse_cards("JK 7C 7S"), self_standing=True)
>>> check_meld(parse_cards("9H 10H JK QH"), rules, wilds).kind
'sequence'
>>> check_meld(parse_cards("AS 2S 3S"), rules, wilds).kind
'pure_sequence'
>>> check_meld(parse_cards("KH AH 2H"), rules, wilds).valid
False
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import product
from typing import Literal

import msgspec

from arena.cards import JOKER_CODE, Card

Kind = Literal["pure_sequence", "sequence", "set"]
INF = 1 << 30


@dataclass(frozen=True, slots=True, kw_only=True)
class MeldRules:
    """What a combination may be in one variant; ``rule_*`` are the rule IDs to cite."""

    ace_high: bool = True
    max_wilds: int = 13
    need_natural: bool = True
    set_duplicates: bool = False
    max_set: int = 4
    rule_run: str = "COM-2"
    rule_set: str = "COM-2"
    rule_wild: str = "COM-2"




@dataclass(frozen=True, slots=True)
class WildSpec:
    """Which card codes are wild this round, and whether a non-joker wild may be itself."""

    wild: frozenset[int]
    self_standing: bool = True

    @classmethod
    def of(cls, cards: Iterable[Card], *, self_standing: bool = True) -> WildSpec:
        """Build from example wild cards (the joker is always wild)."""
        return cls(frozenset({c.code for c in cards} | {JOKER_CODE}), self_standing)

    def is_wild(self, card: Card) -> bool:
        """True when the card may stand for another card."""
        return card.code in self.wild

    def is_dual(self, card: Card) -> bool:
        """A wild that may also stand for itself (IND-9, TT-8), so purity can use it."""
        return self.self_standing and card.code != JOKER_CODE and card.code in self.wild


NO_WILDS = WildSpec(frozenset({JOKER_CODE}), self_standing=False)


class Meld(msgspec.Struct, frozen=True):
    """One combination of an arrangement, as laid out by the solver (a struct: the solver
    makes one per combination of every arrangement it returns)."""

    kind: Kind
    cards: tuple[Card, ...]

    def __str__(self) -> str:
        return " ".join(str(c) for c in self.cards)


class Arrangement(msgspec.Struct, frozen=True):
    """A split of a hand into melds and deadwood, and the penalty it gives (a struct: the
    solver returns one per call, and a dataclass's frozen ``__init__`` cost it more than the
    search of a 10-card hand)."""

    melds: tuple[Meld, ...]
    deadwood: tuple[Card, ...]
    points: int

    @property
    def complete(self) -> bool:
        """Every card is in a meld."""
        return not self.deadwood


@dataclass(frozen=True, slots=True)
class MeldCheck:
    """The verdict on one combination: its best kind, or the rule it breaks."""

    valid: bool
    kind: Kind | None
    reason: str | None


def _run_fits(naturals: Sequence[Card], size: int, rules: MeldRules) -> bool:
    """Naturals of one suit and distinct ranks fit a run of ``size`` cards (COM-2)."""
    if size < 3 or size > 13 or not naturals:
        return 3 <= size <= 13 and not naturals
    if len({c.suit for c in naturals}) != 1:
        return False
    ranks = sorted(c.rank for c in naturals)
    if len(set(ranks)) != len(ranks):
        return False
    layouts = [ranks]
    if rules.ace_high and ranks[0] == 1:
        layouts.append(sorted(r if r != 1 else 14 for r in ranks))
    return any(lay[-1] - lay[0] + 1 <= size for lay in layouts)


def _set_fits(naturals: Sequence[Card], size: int, rules: MeldRules) -> bool:
    """Naturals of one rank (distinct suits unless duplicates are allowed) fit a set."""
    if size < 3 or size > rules.max_set:
        return False
    if len({c.rank for c in naturals}) > 1:
        return False
    return rules.set_duplicates or len({c.suit for c in naturals}) == len(naturals)


def meld_kinds(cards: Sequence[Card], rules: MeldRules, wilds: WildSpec) -> set[Kind]:
    """Every kind that this group of cards can be read as (empty when it is no combination)."""
    fixed = [c for c in cards if not wilds.is_wild(c)]
    duals = [c for c in cards if wilds.is_dual(c)]
    kinds: set[Kind] = set()
    for as_self in _sub_multisets(duals):
        naturals = fixed + as_self
        n_wild = len(cards) - len(naturals)
        if n_wild > rules.max_wilds or (rules.need_natural and not naturals):
            continue
        if _run_fits(naturals, len(cards), rules):
            kinds.add("sequence" if n_wild else "pure_sequence")
        if _set_fits(naturals, len(cards), rules):
            kinds.add("set")
    return kinds


def _sub_multisets(cards: Sequence[Card]) -> Iterator[list[Card]]:
    """Every choice of some of the cards, equal cards counted, not told apart: two 7H read
    as themselves are one choice, not two (so 30 copies make 31 choices, not 2**30)."""
    counts = Counter(cards)
    for picks in product(*(range(n + 1) for n in counts.values())):
        yield [card for card, k in zip(counts, picks, strict=True) for _ in range(k)]


_KIND_ORDER: tuple[Kind, ...] = ("pure_sequence", "sequence", "set")


def check_meld(cards: Sequence[Card], rules: MeldRules, wilds: WildSpec) -> MeldCheck:
    """Is this group one valid combination? Names the best kind or the rule broken."""
    kinds = meld_kinds(cards, rules, wilds)
    for kind in _KIND_ORDER:
        if kind in kinds:
            return MeldCheck(True, kind, None)
    return MeldCheck(False, None, _why_not(cards, rules, wilds))


def _why_not(cards: Sequence[Card], rules: MeldRules, wilds: WildSpec) -> str:
    """A bot author's explanation of why a group is no combination."""
    naturals = [c for c in cards if not wilds.is_wild(c)]
    n_wild = len(cards) - len(naturals)
    if len(cards) < 3:
        return f"{rules.rule_run}: a combination needs at least 3 cards, got {len(cards)}"
    if rules.need_natural and not naturals:
        return f"{rules.rule_wild}: a combination needs at least one natural card"
    if n_wild > rules.max_wilds:
        return f"{rules.rule_wild}: at most {rules.max_wilds} wild card(s) per combination"
    if len({c.rank for c in naturals}) == 1:
        if len(cards) > rules.max_set:
            return f"{rules.rule_set}: a set holds at most {rules.max_set} cards"
        return f"{rules.rule_set}: a set needs natural cards of distinct suits"
    if len({c.suit for c in naturals}) > 1:
        rule = rules.rule_wild if n_wild else rules.rule_run
        return f"{rule}: natural cards of different suits (a run) and ranks (a set)"
    if not any(c.rank == 1 for c in naturals):
        return f"{rules.rule_run}: ranks are not consecutive"
    ace = "the ace is low or high, never both" if rules.ace_high else "the ace is low only"
    return f"{rules.rule_run}: ranks are not consecutive ({ace})"
