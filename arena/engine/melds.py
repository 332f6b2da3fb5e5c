"""Combinations (runs and sets) and the exact best-arrangement solver (COM-7).

The same code serves every variant: a :class:`MeldRules` says what a combination may be,
a :class:`WildSpec` says which cards are wild this round, and the solver minimises the
variant's penalty. Cards are handled as integer codes (see :mod:`arena.cards`) in the hot path.

>>> from arena.cards import parse_cards
>>> ind = WildSpec.of(parse_cards("JK 7C 7S"), self_standing=True)
>>> check_meld(parse_cards("9H 10H JK QH"), IND_MELDS, ind).kind
'sequence'
>>> check_meld(parse_cards("AS 2S 3S"), IND_MELDS, ind).kind
'pure_sequence'
>>> check_meld(parse_cards("KH AH 2H"), IND_MELDS, ind).valid
False
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, product
from typing import Literal

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


IND_MELDS = MeldRules(rule_run="IND-11", rule_set="IND-13", rule_wild="IND-12")
TT_MELDS = MeldRules(ace_high=False, need_natural=False, set_duplicates=True, max_set=108,
                     rule_run="TT-9", rule_set="TT-9", rule_wild="TT-8")
R51_MELDS = MeldRules(max_wilds=1, rule_run="R51-6", rule_set="R51-6", rule_wild="R51-6")
MAR_MELDS = MeldRules(max_wilds=1, rule_run="MAR-6", rule_set="MAR-6", rule_wild="MAR-6")


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


@dataclass(frozen=True, slots=True)
class Meld:
    """One combination of an arrangement, as laid out by the solver."""

    kind: Kind
    cards: tuple[Card, ...]

    def __str__(self) -> str:
        return " ".join(str(c) for c in self.cards)


@dataclass(frozen=True, slots=True)
class MeldCheck:
    """The verdict on one combination: its best kind, or the rule it breaks."""

    valid: bool
    kind: Kind | None
    reason: str | None


# --------------------------------------------------------------------------- single melds


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
    return f"{rules.rule_run}: ranks are not consecutive (the ace is low or high, never both)"


# --------------------------------------------------------------------------- the solver
#
# The hand's natural cards are numbered 0..n-1 in code order, so a set of them is a bit mask.
# Every combination the hand could hold is listed once, under its lowest card; the search
# then takes the lowest remaining card and either leaves it out or puts it in one of the
# combinations listed under it. Wild cards are counted, not placed, until the end.


@dataclass(frozen=True, slots=True)
class Arrangement:
    """A split of a hand into melds and deadwood, and the penalty it gives."""

    melds: tuple[Meld, ...]
    deadwood: tuple[Card, ...]
    points: int

    @property
    def complete(self) -> bool:
        """Every card is in a meld."""
        return not self.deadwood


# A candidate combination of natural cards, as a plain tuple because the search makes many:
# (mask of its natural cards, block: first copies that must be gone before a second copy of
# the same card is used, wilds it needs, wilds it may hold, dual wilds it uses as themselves,
# whether it is a run).
_Cand = tuple[int, int, int, int, int, bool]
_Link = tuple[_Cand, int, "_Link"] | None


class _Hand:
    """One hand prepared for the search: natural cards as bits, candidates per lowest card."""

    def __init__(self, hand: Sequence[Card], rules: MeldRules, wilds: WildSpec, *,
                 duals: bool) -> None:
        wild = wilds.wild
        dual = self.dual = frozenset(
            c.code for c in hand if duals and c.code != JOKER_CODE and wilds.self_standing
            and c.code in wild) if duals else frozenset()
        self.codes = codes = sorted([c.code for c in hand
                                     if c.code not in wild or c.code in dual])
        self.tokens = len(hand) - len(codes) + len(dual and [c for c in codes if c in dual])
        self.dual_mask = 0
        self.rules = rules
        self.suit_ranks: list[dict[int, list[int]]] = [{}, {}, {}, {}]  # suit: rank: indices
        self.rank_at: dict[int, list[int]] = {}  # rank: indices, in code order
        for i, c in enumerate(codes):
            if c in dual:
                self.dual_mask |= 1 << i
            self.suit_ranks[c // 13].setdefault(c % 13 + 1, []).append(i)
            self.rank_at.setdefault(c % 13, []).append(i)
        self.full = (1 << len(codes)) - 1
        self.cands: list[list[_Cand]] = [[] for _ in codes]
        for i in range(len(codes)):
            self._runs_from(i)
            self._sets_from(i)
        self.meldable = 0  # natural cards that some combination could use
        for cands in self.cands:
            for cand in cands:
                self.meldable |= cand[0]

    def _add(self, members: Sequence[int], need: int, room: int, run: bool) -> None:
        mask = block = 0
        codes = self.codes
        for j in members:
            mask |= 1 << j
            if j and codes[j - 1] == codes[j]:
                block |= 1 << (j - 1)
        dual_cost = (mask & self.dual_mask).bit_count()
        if dual_cost + need <= self.tokens:
            self.cands[members[0]].append((mask, block & ~mask, need,
                                           min(room, self.rules.max_wilds), dual_cost, run))

    def _runs_from(self, i: int) -> None:
        """Runs whose lowest card (by code) is natural card ``i``."""
        code = self.codes[i]
        rank = code % 13 + 1
        ladder = self.suit_ranks[code // 13]
        if not self.tokens and (rank + 1 not in ladder or rank + 2 not in ladder) and not (
                rank == 1 and self.rules.ace_high and 13 in ladder and 12 in ladder):
            return  # without wild cards a run needs its next two ranks
        self._grow([i], rank, rank, sorted(r for r in ladder if r > rank), ladder, up=True)
        if rank == 1 and self.rules.ace_high:
            self._grow([i], 14, 14, sorted((r for r in ladder if r > 1), reverse=True), ladder,
                       up=False)

    def _grow(self, members: list[int], start: int, last: int, ranks: list[int],
              ladder: dict[int, list[int]], *, up: bool) -> None:
        n = len(members)
        span = abs(last - start) + 1
        need = max(span, 3) - n
        if (up or n > 1) and need <= min(self.tokens, self.rules.max_wilds):  # ace alone high
            # is the same meld as the ace alone low
            self._add(members, need, 13 - n, run=True)
        holes = span - n
        for k, r in enumerate(ranks):
            gap = abs(r - last) - 1
            if abs(r - start) >= 13 or holes + gap > min(self.tokens, self.rules.max_wilds):
                break
            for j in ladder[r]:
                self._grow([*members, j], start, r, ranks[k + 1:], ladder, up=up)

    def _sets_from(self, i: int) -> None:
        """Sets whose lowest card (by code) is natural card ``i``."""
        code = self.codes[i]
        if not self.tokens and len(self.rank_at[code % 13]) < 3:
            return  # without wild cards a set needs three cards of the rank
        same = [j for j in self.rank_at[code % 13] if j > i]
        dupes = self.rules.set_duplicates
        if not dupes:
            same = [j for j in same if self.codes[j] != code]
        cap = self.rules.max_set
        for k in range(min(len(same), cap - 1) + 1):
            need = max(0, 2 - k)
            if need > self.tokens or need > self.rules.max_wilds:
                continue
            for extra in combinations(same, k):
                if not dupes and len({self.codes[j] for j in extra}) < k:
                    continue
                self._add((i, *extra), need, cap - k - 1, run=False)


def _low(rem: int) -> int:
    return (rem & -rem).bit_length() - 1


def min_deadwood(hand: Sequence[Card], rules: MeldRules, wilds: WildSpec,
                 values: Sequence[int], *, need_pure: bool = False,
                 wild_meld_free: bool = False) -> Arrangement | None:
    """The arrangement with the least deadwood value; None if ``need_pure`` cannot be met.

    ``wild_meld_free``: spare wild cards may join melds or meld on their own (TT-8), so only
    one or two left over are charged (the cheapest); otherwise spare wilds cost their value.
    """
    h = _Hand(hand, rules, wilds, duals=need_pure)
    cost, link = _least_deadwood(h, hand, wilds, values, need_pure, wild_meld_free)
    if cost >= INF:
        return None
    return _build(hand, wilds, h.codes, link, cost, fill_leftover=wild_meld_free)


def deadwood_points(hand: Sequence[Card], rules: MeldRules, wilds: WildSpec,
                    values: Sequence[int], *, need_pure: bool = False,
                    wild_meld_free: bool = False) -> int | None:
    """Just the points of :func:`min_deadwood` (the scoring hot path builds no melds)."""
    h = _Hand(hand, rules, wilds, duals=need_pure)
    cost = _least_deadwood(h, hand, wilds, values, need_pure, wild_meld_free)[0]
    return None if cost >= INF else cost


def _least_deadwood(h: _Hand, hand: Sequence[Card], wilds: WildSpec, values: Sequence[int],
                    need_pure: bool, wild_meld_free: bool) -> tuple[int, _Link]:
    """The search behind :func:`min_deadwood`: the least cost and the melds that give it."""
    cost_of = [0 if c in h.dual else values[c] for c in h.codes]
    token_costs = sorted(values[c.code] for c in hand if c.code in wilds.wild)
    left = [0 if wild_meld_free and k >= 3 else sum(token_costs[:k])
            for k in range(len(token_costs) + 1)]
    extra = wild_meld_free or any(token_costs)  # a wild that costs is better placed
    memo: dict[tuple[int, int, bool], tuple[int, _Link]] = {}

    def best(rem: int, tokens: int, pure: bool) -> tuple[int, _Link]:
        if not rem:
            return (INF if need_pure and not pure else left[tokens]), None
        key = (rem, tokens, pure)
        hit = memo.get(key)
        if hit is not None:
            return hit
        i = _low(rem)
        sub, link = best(rem & ~(1 << i), tokens, pure)
        result = (sub + cost_of[i], link)
        for c in h.cands[i]:
            mask, block, need, room, dual_cost, run = c
            if mask & ~rem or block & rem:
                continue
            budget = tokens - dual_cost
            top = min(budget, room if extra else need)
            for w in range(need, top + 1):
                sub, link = best(rem & ~mask, budget - w, pure or (run and not w))
                if sub < result[0]:
                    result = (sub, (c, w, link))
        memo[key] = result
        return result

    alone = h.full & ~h.meldable  # cards no combination can use are deadwood outright
    fixed = sum(cost_of[i] for i in range(len(h.codes)) if alone >> i & 1)
    cost, link = best(h.meldable, h.tokens, False)
    return cost + fixed, link


def complete_arrangement(hand: Sequence[Card], rules: MeldRules, wilds: WildSpec, *,
                         min_sequences: int = 0, min_pure: int = 0,
                         spare: bool = False) -> Arrangement | None:
    """A split of the whole hand into melds meeting the sequence counts, or None (IND-17).

    With ``spare``, exactly one card is left out (the card an IND declarer sets aside); it is
    the arrangement's deadwood.
    """
    if _lonely_cards(hand, wilds) > spare:
        return None  # most hands end here, before any combination is listed
    h = _Hand(hand, rules, wilds, duals=True)
    all_wild = not rules.need_natural
    memo: dict[tuple[int, int, int, int, bool], _Link | bool] = {}

    def find(rem: int, tokens: int, seqs: int, pures: int, free: bool) -> _Link | bool:
        if not rem:
            left = tokens - free  # wilds still unplaced; three or more may meld alone (TT-8)
            placed = left == 0 or (all_wild and left >= 3)
            return placed and seqs >= min_sequences and pures >= min_pure
        key = (rem, tokens, seqs, pures, free)
        hit = memo.get(key)
        if hit is not None:
            return hit
        i = _low(rem)
        bit = 1 << i
        found: _Link | bool = False
        if bit & h.dual_mask or free:  # a dual may be used as a wild; the spare is left out
            found = find(rem & ~bit, tokens, seqs, pures, free and bool(bit & h.dual_mask))
        for c in ([] if found is not False else h.cands[i]):
            mask, block, need, room, dual_cost, run = c
            if mask & ~rem or block & rem:
                continue
            budget = tokens - dual_cost
            for w in range(need, min(budget, room) + 1):
                pure = run and not w
                sub = find(rem & ~mask, budget - w, min(seqs + run, min_sequences),
                           min(pures + pure, min_pure), free)
                if sub is not False:
                    found = (c, w, None if sub is True else sub)
                    break
            if found is not False:
                break
        memo[key] = found
        return found

    alone = h.full & ~h.meldable & ~h.dual_mask  # naturals no combination can use
    if alone.bit_count() > spare:
        return None
    found = find(h.full & ~alone, h.tokens, 0, 0, spare and not alone)
    if found is False:
        return None
    return _build(hand, wilds, h.codes, None if found is True else found, 0,
                  fill_leftover=all_wild)


def _lonely_cards(hand: Sequence[Card], wilds: WildSpec) -> int:
    """A quick lower bound on the natural cards no combination can use (0 with two wilds).

    Without a wild card, a card needs two partners: the next ranks of its suit on one side,
    or one on each side, or two more cards of its rank. With one wild card, one partner within
    two ranks of its suit, or of its rank, is enough.
    """
    tokens = sum(1 for c in hand if c.code in wilds.wild)
    if tokens >= 2:
        return 0
    naturals = [c.code for c in hand if c.code not in wilds.wild]
    suits = [0, 0, 0, 0]  # bit p set when the suit has a card at position p (ace: 1 and 14)
    ranks = [0] * 14
    for code in naturals:
        rank = code % 13 + 1
        suits[code // 13] |= 1 << rank | (1 << 14 if rank == 1 else 0)
        ranks[rank] += 1
    lonely = 0
    for code in naturals:
        rank, m = code % 13 + 1, suits[code // 13]
        if ranks[rank] >= 3 - tokens:
            continue
        for p in (1, 14) if rank == 1 else (rank,):
            def has(q: int, m: int = m) -> bool:
                return q >= 1 and bool(m >> q & 1)
            if tokens and any(has(q) for q in (p - 2, p - 1, p + 1, p + 2)):
                break
            if not tokens and ((has(p + 1) and has(p + 2)) or (has(p - 1) and has(p + 1))
                               or (has(p - 2) and has(p - 1))):
                break
        else:
            lonely += 1
    return lonely


def _build(hand: Sequence[Card], wilds: WildSpec, codes: list[int], link: _Link,
           deadwood_cost: int, *, fill_leftover: bool) -> Arrangement:
    """Turn the search's chain of choices back into cards: counts become real wild cards."""
    chosen: list[tuple[_Cand, int]] = []
    while link is not None:
        chosen.append((link[0], link[1]))
        link = link[2]
    pool = list(hand)
    melds: list[list[Card]] = []
    for cand, _ in chosen:
        cards = [Card(codes[j]) for j in range(len(codes)) if cand[0] >> j & 1]
        for card in cards:
            pool.remove(card)
        melds.append(cards)
    spare = sorted((c for c in pool if wilds.is_wild(c)), key=lambda c: not c.is_joker)
    for (_, w), cards in zip(chosen, melds, strict=True):
        for _ in range(w):
            card = spare.pop(0)
            pool.remove(card)
            cards.append(card)
    out = [Meld(_kind(cand, w), tuple(cards)) for (cand, w), cards in zip(chosen, melds,
                                                                          strict=True)]
    if fill_leftover and len(spare) >= 3:
        for card in spare:
            pool.remove(card)
        out.append(Meld("set", tuple(spare)))
    return Arrangement(tuple(out), tuple(sorted(pool)), deadwood_cost)


def _kind(cand: _Cand, wilds: int) -> Kind:
    if not cand[5]:
        return "set"
    return "sequence" if wilds else "pure_sequence"
