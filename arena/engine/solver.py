"""The exact best-arrangement solver (COM-7): the arrangement of a hand into combinations
that leaves the least penalty under a variant's rules, the hot path of every game. Cards are
handled as integer codes (see :mod:`arena.cards`)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

from arena.cards import CARDS, JOKER_CODE, Card
from arena.engine.melds import INF, Arrangement, Kind, Meld, MeldRules, WildSpec

#
# The hand's natural cards are numbered 0..n-1 in code order, so a set of them is a bit mask.
# Every combination the hand could hold is listed once, under its lowest card; the search
# then takes the lowest remaining card and either leaves it out or puts it in one of the
# combinations listed under it. Wild cards are counted, not placed, until the end.


# A candidate combination of natural cards, as a plain tuple because the search makes many:
# (mask of its natural cards, block: first copies that must be gone before a second copy of
# the same card is used, wilds it needs, wilds it may hold, dual wilds it uses as themselves,
# whether it is a run).
_Cand = tuple[int, int, int, int, int, bool]
# The tail of a link is a _Link again; written as Any because mypyc (2.4.1) crashes on a
# recursive type alias, and this module is the one worth compiling.
_Link = tuple[_Cand, int, Any] | None


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
    if need_pure and not has_natural_run(hand):
        return None  # most such hands end here: a few bit operations, before any search
    plain = _plain_mask(hand, wilds)
    if plain is not None:
        return _plain_arrangement(plain, rules, values, need_pure)
    found = _search(hand, rules, wilds, values, need_pure, wild_meld_free)
    if found is None:
        return None
    h, cost, link = found
    if not h.tokens:  # no wild card in the hand: nothing to place, no card to look up
        return _natural_build(h.codes, link, cost)
    return _build(hand, wilds, h.codes, link, cost, fill_leftover=wild_meld_free)


def deadwood_points(hand: Sequence[Card], rules: MeldRules, wilds: WildSpec,
                    values: Sequence[int], *, need_pure: bool = False,
                    wild_meld_free: bool = False) -> int | None:
    """Just the points of :func:`min_deadwood` (the scoring hot path builds no melds)."""
    if need_pure and not has_natural_run(hand):
        return None
    plain = _plain_mask(hand, wilds)
    if plain is not None:
        cost = _plain_search(plain, rules, values, need_pure)[0]
        return None if cost >= INF else cost
    found = _search(hand, rules, wilds, values, need_pure, wild_meld_free)
    return None if found is None else found[1]


def _search(hand: Sequence[Card], rules: MeldRules, wilds: WildSpec, values: Sequence[int],
            need_pure: bool, wild_meld_free: bool) -> tuple[_Hand, int, _Link] | None:
    """The least deadwood and its melds, or None when ``need_pure`` cannot be met (its
    callers refuse a hand without a natural run before it comes here)."""
    h = _Hand(hand, rules, wilds, duals=need_pure)
    cost, link = _least_deadwood(h, hand, wilds, values, need_pure, wild_meld_free)
    return None if cost >= INF else (h, cost, link)


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


# Hands without a wild card and without two copies of a card (a one-deck game, and many
# two-deck hands) take a shorter road to the same answer: each card is one bit of its code, a
# run of one suit is a block of consecutive codes, and nothing is left to place at the end.
# The combinations are listed, and the search breaks ties, exactly as above.


def _plain_mask(hand: Sequence[Card], wilds: WildSpec) -> int | None:
    """The hand as a mask of codes when it holds no wild card and no card twice; else None."""
    wild = wilds.wild
    mask = 0
    for card in hand:
        code = card.code
        bit = 1 << code
        if mask & bit or code in wild:
            return None
        mask |= bit
    return mask


def _plain_cands(hand: int, rules: MeldRules) -> dict[int, list[tuple[int, bool]]]:
    """The combinations of a plain hand, as (mask of codes, is a run), under their lowest
    code: runs by length, the ace high ones after, then sets (the order of :class:`_Hand`)."""
    cands: dict[int, list[tuple[int, bool]]] = {}
    for base in (0, 13, 26, 39):  # runs, suit by suit: most suits hold none
        suit = hand >> base & 0x1FFF
        high = rules.ace_high and suit & 1 and suit >> 11 & 3 == 3  # A K Q
        if suit & suit >> 1 & suit >> 2 or high:
            _plain_runs(hand, base, suit, bool(high), cands)
    s, h, d, c = hand & 0x1FFF, hand >> 13 & 0x1FFF, hand >> 26 & 0x1FFF, hand >> 39
    triples = s & h & (d | c) | (s | h) & d & c  # ranks held in three suits or four
    while triples:  # sets, rank by rank: most hands have none
        low = triples & -triples
        triples ^= low
        rank = low.bit_length() - 1
        held = [code for code in range(rank, 52, 13) if hand >> code & 1]
        for at in range(len(held) - 2):
            found = cands.setdefault(held[at], [])
            same = held[at + 1:]
            for size in range(2, min(len(same), rules.max_set - 1) + 1):
                for extra in combinations(same, size):
                    mask = 1 << held[at]
                    for other in extra:
                        mask |= 1 << other
                    found.append((mask, False))
    return cands


def _plain_runs(hand: int, base: int, suit: int, high: bool,
                cands: dict[int, list[tuple[int, bool]]]) -> None:
    """The runs of one suit (``suit``: its ranks as bits, the ace first), under their
    lowest code; the ace high runs (``high``) after the ace's own."""
    for rank in range(11):
        if suit >> rank & 7 != 7:
            continue  # no run starts here
        code = base + rank
        found = cands.setdefault(code, [])
        mask = 1 << code
        for top in range(code + 1, base + 13):  # up the suit, to its king
            if not hand >> top & 1:
                break
            mask |= 1 << top
            if top - code >= 2:
                found.append((mask, True))
    if high:  # the ace above the king, then down the suit
        found = cands.setdefault(base, [])
        mask = 1 << base
        for below in range(base + 12, base, -1):
            if not hand >> below & 1:
                break
            mask |= 1 << below
            if base + 12 - below >= 1:
                found.append((mask, True))


def _plain_search(hand: int, rules: MeldRules, values: Sequence[int], need_pure: bool
                  ) -> tuple[int, dict[int, int], int]:
    """The least deadwood of a plain hand, the choice made at each state (0: its lowest
    card left out) from which :func:`_plain_arrangement` reads the melds back, and the
    cards some combination could use (where the search starts)."""
    cands = _plain_cands(hand, rules)
    meldable = 0
    for found in cands.values():
        for mask, _ in found:
            meldable |= mask
    fixed = 0  # what the cards no combination can use cost, as they are
    alone = hand & ~meldable
    while alone:
        low = alone & -alone
        fixed += values[low.bit_length() - 1]
        alone ^= low
    picks: dict[int, int] = {}
    cost = _plain_best(meldable, not need_pure, cands, values, {}, picks)
    return (INF if cost >= INF else cost + fixed), picks, meldable


def _plain_best(rem: int, pure: bool, cands: dict[int, list[tuple[int, bool]]],
                values: Sequence[int], memo: dict[int, int], picks: dict[int, int]) -> int:
    """The least deadwood of the cards in ``rem``; ``pure``: a pure run is already laid (or
    none is needed)."""
    if not rem:
        return 0 if pure else INF
    key = rem << 1 | pure
    hit = memo.get(key)
    if hit is not None:
        return hit
    low = rem & -rem
    code = low.bit_length() - 1
    best = _plain_best(rem ^ low, pure, cands, values, memo, picks) + values[code]
    pick = 0
    for mask, run in cands.get(code) or []:
        if mask & ~rem:
            continue
        sub = _plain_best(rem & ~mask, pure or run, cands, values, memo, picks)
        if sub < best:
            best, pick = sub, mask
    memo[key] = best
    picks[key] = pick
    return best


def _plain_arrangement(hand: int, rules: MeldRules, values: Sequence[int],
                       need_pure: bool) -> Arrangement | None:
    """:func:`min_deadwood` of a plain hand."""
    cost, picks, rem = _plain_search(hand, rules, values, need_pure)
    if cost >= INF:
        return None
    melds: list[Meld] = []
    pure = not need_pure
    used = 0
    while rem:
        pick = picks[rem << 1 | pure]
        if not pick:
            rem &= rem - 1
            continue
        used |= pick
        rem &= ~pick
        cards = _cards_at(pick, _CODES)
        run = cards[0].code // 13 == cards[-1].code // 13  # a set spans suits
        melds.append(Meld("pure_sequence" if run else "set", tuple(cards)))
        pure = pure or run
    return Arrangement(tuple(melds), tuple(_cards_at(hand & ~used, _CODES)), cost)


def complete_arrangement(hand: Sequence[Card], rules: MeldRules, wilds: WildSpec, *,
                         min_sequences: int = 0, min_pure: int = 0,
                         spare: bool = False) -> Arrangement | None:
    """A split of the whole hand into melds meeting the sequence counts, or None (IND-17).

    With ``spare``, exactly one card is left out (the card an IND declarer sets aside); it is
    the arrangement's deadwood.
    """
    if min_pure and not has_natural_run(hand):
        return None  # most hands end here: a few bit operations, before any search
    if _lonely_cards(hand, wilds) > spare:
        return None  # many of the rest end here, before any combination is listed
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


def has_natural_run(hand: Sequence[Card]) -> bool:
    """A necessary condition for a pure sequence: three printed cards of one suit in a row
    (the ace low or high). Wild cards are counted as themselves, so it never refuses a hand
    the search would accept."""
    suits = _suit_masks([c.code for c in hand if c.code != JOKER_CODE])
    return any(m & m >> 1 & m >> 2 for m in suits)


def _suit_masks(codes: Sequence[int]) -> list[int]:
    """Per suit, bit r set when it holds rank r (the ace as 1 and as 14): runs as bits."""
    suits = [0, 0, 0, 0]
    for code in codes:
        rank = code % 13 + 1
        suits[code // 13] |= 1 << rank | (1 << 14 if rank == 1 else 0)
    return suits


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
    suits = _suit_masks(naturals)
    ranks = [0] * 14
    for code in naturals:
        ranks[code % 13 + 1] += 1
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
        cards = _cards_at(cand[0], codes)
        for card in cards:
            pool.remove(card)
        melds.append(cards)
    wild = wilds.wild
    spare = [c for c in pool if c.code in wild]
    if len(spare) > 1:
        spare.sort(key=_not_joker)
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
    pool.sort(key=_code)
    return Arrangement(tuple(out), tuple(pool), deadwood_cost)


def _natural_build(codes: list[int], link: _Link, deadwood_cost: int) -> Arrangement:
    """:func:`_build` for a hand without wild cards, where the melds' bits name every card:
    the same arrangement, without searching the hand for each card."""
    out: list[Meld] = []
    used = 0
    while link is not None:
        cand = link[0]
        used |= cand[0]
        out.append(Meld("pure_sequence" if cand[5] else "set",
                        tuple(_cards_at(cand[0], codes))))
        link = link[2]
    rest = ((1 << len(codes)) - 1) & ~used
    return Arrangement(tuple(out), tuple(_cards_at(rest, codes)), deadwood_cost)


_CODES = list(range(JOKER_CODE + 1))  # bit i of a plain hand's mask is code i


def _cards_at(mask: int, codes: list[int]) -> list[Card]:
    """The cards a mask names, lowest bit first: bit i stands for the card of ``codes[i]``."""
    cards: list[Card] = []
    while mask:
        low = mask & -mask
        cards.append(CARDS[codes[low.bit_length() - 1]])
        mask ^= low
    return cards


def _not_joker(card: Card) -> bool:
    return card.code != JOKER_CODE


def _code(card: Card) -> int:
    return card.code


def _kind(cand: _Cand, wilds: int) -> Kind:
    if not cand[5]:
        return "set"
    return "sequence" if wilds else "pure_sequence"
