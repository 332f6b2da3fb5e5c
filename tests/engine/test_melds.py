"""Combinations and the best-arrangement solver (COM-7), checked against RULES.md and an oracle.

Three layers: the rule examples of RULES.md as they stand (each test names its rule ID),
hand-made edge cases, and Hypothesis properties that compare the solver with the brute-force
oracle in ``tests/oracle.py`` on random hands of 3 to 10 cards.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import Oracle, target_kinds

from arena.cards import ALL_CARDS, JOKER_CODE, Card, format_cards, parse_cards
from arena.engine.melds import (
    NO_WILDS,
    Arrangement,
    Kind,
    MeldRules,
    WildSpec,
    check_meld,
    meld_kinds,
)
from arena.engine.solver import complete_arrangement, min_deadwood
from arena.variants.indian13 import IND_MELDS
from arena.variants.moroccan import MAR_MELDS
from arena.variants.rummy51 import R51_MELDS
from arena.variants.three_thirteen import TT_MELDS

# --------------------------------------------------------------------------- variant data


def cards(text: str) -> list[Card]:
    """Cards from RULES.md text, where `` | `` separates groups."""
    return parse_cards(text.replace("|", " "))


def ind_wilds(indicator: str, *, all_suits: bool = False) -> WildSpec:
    """IND-6 to IND-9: the indicator's rank in its colour (or all suits), jokers; JK: aces."""
    ind = Card.parse(indicator)
    if ind.is_joker:
        return WildSpec.of([Card.of(1, s) for s in range(4)], self_standing=True)
    suits = [s for s in range(4) if all_suits or Card.of(ind.rank, s).is_red == ind.is_red]
    return WildSpec.of([Card.of(ind.rank, s) for s in suits], self_standing=True)


def ind_values(wilds: WildSpec) -> list[int]:
    """IND-21: A K Q J 10, 2-10 face value, printed jokers and indicator wilds 0."""
    return [0 if code in wilds.wild else _face(code, ace=10) for code in range(53)]


def tt_wilds(rank: int) -> WildSpec:
    """TT-7: every card of the wild rank, and printed jokers."""
    return WildSpec.of([Card.of(rank, s) for s in range(4)], self_standing=True)


def tt_values(wilds: WildSpec) -> list[int]:
    """TT-12: A 1, 2-10 face value, J Q K 10, a wild-rank card 15, a printed joker 20."""
    values = [15 if code in wilds.wild else _face(code, ace=1) for code in range(52)]
    return [*values, 20]


def _face(code: int, *, ace: int) -> int:
    rank = code % 13 + 1
    return ace if rank == 1 else min(rank, 10)


R51_VALUES = [_face(code, ace=10) for code in range(52)] + [20]  # R51-16, MAR-16
JOKER_ONLY = WildSpec(frozenset({JOKER_CODE}), self_standing=False)  # R51-6, MAR-6


def kinds(text: str, rules: MeldRules, wilds: WildSpec) -> set[Kind]:
    return meld_kinds(cards(text), rules, wilds)


def points(arrangement: Arrangement | None) -> int | None:
    return None if arrangement is None else arrangement.points


def assert_consistent(arrangement: Arrangement, hand: Sequence[Card], rules: MeldRules,
                      wilds: WildSpec, values: Sequence[int] | None) -> None:
    """The arrangement is a true split of the hand into valid melds, priced by ``values``."""
    laid = [c for meld in arrangement.melds for c in meld.cards]
    assert Counter(laid) + Counter(arrangement.deadwood) == Counter(hand)
    for meld in arrangement.melds:
        assert meld.kind in meld_kinds(meld.cards, rules, wilds), str(meld)
    if values is not None:
        assert sum(values[c.code] for c in arrangement.deadwood) == arrangement.points
    assert arrangement.complete == (not arrangement.deadwood)


def sequence_counts(arrangement: Arrangement) -> tuple[int, int]:
    """(sequences, pure sequences) among the melds, by their stated kind."""
    kinds_laid = [m.kind for m in arrangement.melds]
    return (sum(k != "set" for k in kinds_laid), kinds_laid.count("pure_sequence"))


# --------------------------------------------------------------------------- COM


@pytest.mark.parametrize("rules", [IND_MELDS, R51_MELDS, MAR_MELDS, TT_MELDS])
def test_com_2_no_wrap(rules: MeldRules) -> None:
    assert kinds("KS AS 2S", rules, NO_WILDS) == set()
    assert kinds("KS AS 2S", rules, tt_wilds(9)) == set()


@pytest.mark.parametrize("rules", [IND_MELDS, R51_MELDS, MAR_MELDS])
def test_com_2_ace_low_or_high(rules: MeldRules) -> None:
    assert kinds("AS 2S 3S", rules, NO_WILDS) == {"pure_sequence"}
    assert kinds("QS KS AS", rules, NO_WILDS) == {"pure_sequence"}
    assert kinds("JS QS KS AS 2S", rules, NO_WILDS) == set()


def test_com_2_tt_ace_is_low_only() -> None:
    assert kinds("AS 2S 3S", TT_MELDS, NO_WILDS) == {"pure_sequence"}
    assert kinds("QS KS AS", TT_MELDS, NO_WILDS) == set()


def test_com_2_one_card_per_rank_and_one_suit() -> None:
    assert kinds("4S 5S 5S 6S", IND_MELDS, NO_WILDS) == set()
    assert kinds("4S 5H 6S", IND_MELDS, NO_WILDS) == set()


def test_com_2_at_most_13_cards() -> None:
    run = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS"
    wilds = ind_wilds("9D")
    assert kinds(run, IND_MELDS, wilds) == {"pure_sequence"}
    assert kinds("2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", IND_MELDS, wilds) == {
        "pure_sequence"}
    assert kinds(run + " JK", IND_MELDS, wilds) == set()
    assert kinds(run + " AS", IND_MELDS, wilds) == set()  # the ace low and high at once
    assert kinds(run + " JK", TT_MELDS, tt_wilds(3)) == set()


def test_com_7_cheapest_split_one_group_per_card() -> None:
    # 7S fits the run and the set, but not both (IND-14); the set leaves less (5 + 6).
    wilds = ind_wilds("9D")
    hand = cards("5S 6S 7S 7H 7D")
    best = min_deadwood(hand, IND_MELDS, wilds, ind_values(wilds))
    assert best is not None and best.points == 11
    assert complete_arrangement(hand, IND_MELDS, wilds) is None


# --------------------------------------------------------------------------- IND


def test_ind_7_indicator_colour_only() -> None:
    wilds = ind_wilds("9D")
    assert {c for c in ALL_CARDS if wilds.is_wild(c)} == set(cards("9D 9H"))
    assert wilds.is_wild(Card.JOKER)  # IND-6
    assert kinds("9S 10S JS", IND_MELDS, wilds) == {"pure_sequence"}
    assert kinds("9C 10S JS", IND_MELDS, wilds) == set()


def test_ind_7_wild_suits_all() -> None:
    wilds = ind_wilds("9D", all_suits=True)
    assert kinds("9C 10S JS", IND_MELDS, wilds) == {"sequence"}


def test_ind_8_joker_indicator_makes_all_aces_wild() -> None:
    wilds = ind_wilds("JK")
    assert {c for c in ALL_CARDS if wilds.is_wild(c)} == set(cards("AS AH AD AC"))
    assert kinds("AH 5C 6C", IND_MELDS, wilds) == {"sequence"}
    assert kinds("2S 3S AD", IND_MELDS, wilds) == {"sequence"}
    assert kinds("AS 2S 3S", IND_MELDS, wilds) == {"pure_sequence", "sequence"}
    assert kinds("QD KD AD", IND_MELDS, wilds) == {"pure_sequence", "sequence"}


def test_ind_9_wild_at_face_value_keeps_pure() -> None:
    wilds = ind_wilds("7D")
    assert check_meld(cards("5H 6H 7H"), IND_MELDS, wilds).kind == "pure_sequence"
    hand = cards("5H 6H 7H KS")
    best = min_deadwood(hand, IND_MELDS, wilds, ind_values(wilds), need_pure=True)
    assert best is not None and best.points == 10
    assert [m.kind for m in best.melds] == ["pure_sequence"]


def test_ind_9_printed_joker_never_stands_for_itself() -> None:
    wilds = ind_wilds("7D")
    assert check_meld(cards("5H 6H JK"), IND_MELDS, wilds).kind == "sequence"
    assert min_deadwood(cards("5H 6H JK KS"), IND_MELDS, wilds, ind_values(wilds),
                        need_pure=True) is None


def test_ind_10_wild_cards_score_0() -> None:
    wilds = ind_wilds("7C")
    hand = cards("2S 3S 4S 7S 9D JK")
    best = min_deadwood(hand, IND_MELDS, wilds, ind_values(wilds), need_pure=True)
    assert best is not None and best.points == 0  # 9D 7S JK is a group
    hand = cards("2S 3S 4S 7S 9D")
    best = min_deadwood(hand, IND_MELDS, wilds, ind_values(wilds), need_pure=True)
    assert best is not None and best.points == 9  # 7S left in hand costs 0


@pytest.mark.parametrize("text", ["AS 2S 3S", "QD KD AD", "4C 5C 6C 7C"])
def test_ind_11_pure_sequences(text: str) -> None:
    assert check_meld(cards(text), IND_MELDS, ind_wilds("9D")).kind == "pure_sequence"


def test_ind_11_no_wrap() -> None:
    check = check_meld(cards("KH AH 2H"), IND_MELDS, ind_wilds("9D"))
    assert not check.valid and check.reason is not None and check.reason.startswith("IND-11")


@pytest.mark.parametrize("text", ["4H 9D 6H", "JK 8C JK", "JK 9H JK"])
def test_ind_12_impure_sequences(text: str) -> None:
    assert "sequence" in kinds(text, IND_MELDS, ind_wilds("9D"))
    assert "pure_sequence" not in kinds(text, IND_MELDS, ind_wilds("9D"))


def test_ind_12_natural_cards_of_one_suit() -> None:
    check = check_meld(cards("4H 9D 6D"), IND_MELDS, ind_wilds("9D"))
    assert not check.valid and check.reason is not None and check.reason.startswith("IND-12")


def test_ind_12_needs_a_natural_card() -> None:
    check = check_meld(cards("JK JK JK"), IND_MELDS, ind_wilds("3C"))
    assert not check.valid
    assert check.reason == "IND-12: a combination needs at least one natural card"


@pytest.mark.parametrize("text", ["8S 8H JK", "8S 8H 8D 8C"])
def test_ind_13_sets(text: str) -> None:
    assert check_meld(cards(text), IND_MELDS, ind_wilds("9D")).kind == "set"


@pytest.mark.parametrize(("text", "reason"), [
    ("8S 8S 8H", "IND-13: a set needs natural cards of distinct suits"),
    ("8S 8H 8D 8C JK", "IND-13: a set holds at most 4 cards"),
])
def test_ind_13_not_sets(text: str, reason: str) -> None:
    check = check_meld(cards(text), IND_MELDS, ind_wilds("9D"))
    assert (check.valid, check.reason) == (False, reason)


def test_ind_14_one_card_one_group() -> None:
    wilds = ind_wilds("9D")
    hand = cards("5S 6S 7S 7S 8S")  # 5S 6S 7S and 6S 7S 8S would share 6S
    assert complete_arrangement(hand, IND_MELDS, wilds) is None
    best = min_deadwood(hand, IND_MELDS, wilds, ind_values(wilds))
    assert best is not None and best.points == 7


@pytest.mark.parametrize("text", ["8S 8H 8D 8S 8H 8D", "8S 8H 8D 8H 8D 8C",
                                  "8S 8H 8D 8S 8H 8D KC"])
def test_com_1_ind_13_two_copies_go_in_two_sets(text: str) -> None:
    # The two copies of a card are two cards (COM-1); each set has distinct suits (IND-13).
    wilds = ind_wilds("9D")
    hand = cards(text)
    assert complete_arrangement(hand[:6], IND_MELDS, wilds) is not None
    best = min_deadwood(hand, IND_MELDS, wilds, ind_values(wilds))
    assert best is not None and len(best.melds) == 2
    assert best.points == sum(ind_values(wilds)[c.code] for c in hand[6:])


IND_17_VALID = "2S 3S 4S | 9H 10H JK QH | 5D 5C 5H | KS KD 7S"
IND_17_INVALID = "2S 3S 4S | 5D 5C 5H | KS KD KH | 9C 9D 9H JK"


def test_ind_17_valid_declaration_example() -> None:
    wilds = ind_wilds("7C")
    hand = cards(IND_17_VALID)
    found = complete_arrangement(hand, IND_MELDS, wilds, min_sequences=2, min_pure=1)
    assert found is not None and found.complete
    assert_consistent(found, hand, IND_MELDS, wilds, ind_values(wilds))
    seqs, pures = sequence_counts(found)
    assert seqs >= 2 and pures >= 1


def test_ind_17_invalid_declaration_example_has_one_sequence() -> None:
    wilds = ind_wilds("7C")
    hand = cards(IND_17_INVALID)
    assert complete_arrangement(hand, IND_MELDS, wilds, min_sequences=2, min_pure=1) is None
    assert complete_arrangement(hand, IND_MELDS, wilds, min_sequences=1, min_pure=1) is not None


def test_ind_17_needs_a_pure_sequence() -> None:
    wilds = ind_wilds("7C")
    hand = cards("2S 3S JK 9H 10H JK QH 5D 5C 5H KS KD 7S")
    assert complete_arrangement(hand, IND_MELDS, wilds, min_sequences=2) is not None
    assert complete_arrangement(hand, IND_MELDS, wilds, min_sequences=2, min_pure=1) is None


def test_ind_18_any_card_may_be_set_aside() -> None:
    wilds = ind_wilds("7C")
    hand = cards(IND_17_VALID + " 8D")
    valid_asides = {str(c) for i, c in enumerate(hand) if complete_arrangement(
        hand[:i] + hand[i + 1:], IND_MELDS, wilds, min_sequences=2, min_pure=1)}
    assert "8D" in valid_asides


def test_ind_18_engine_finds_the_card_to_set_aside() -> None:
    wilds = ind_wilds("7C")
    hand = cards(IND_17_VALID + " 8D")
    found = complete_arrangement(hand, IND_MELDS, wilds, min_sequences=2, min_pure=1,
                                 spare=True)
    assert found is not None and len(found.deadwood) == 1
    assert_consistent(found, hand, IND_MELDS, wilds, None)
    assert complete_arrangement(cards(IND_17_INVALID + " 8D"), IND_MELDS, wilds,
                                min_sequences=2, min_pure=1, spare=True) is None


def test_ind_18_set_aside_with_a_spare_joker() -> None:
    wilds = ind_wilds("7C")
    hand = cards("2S 3S 4S 9H 10H JH QH 5D 5C 5H KS KD KH JK")
    found = complete_arrangement(hand, IND_MELDS, wilds, min_sequences=2, min_pure=1,
                                 spare=True)
    assert found is not None and len(found.deadwood) == 1
    assert_consistent(found, hand, IND_MELDS, wilds, None)


def test_ind_22_loser_pays_57() -> None:
    wilds = ind_wilds("7C")
    hand = cards("3S 4S 5S | 8H 8D 8C | KC 2D 6C 9H QS JH 10D")
    best = min_deadwood(hand, IND_MELDS, wilds, ind_values(wilds), need_pure=True)
    assert best is not None and best.points == 57
    assert_consistent(best, hand, IND_MELDS, wilds, ind_values(wilds))
    assert sorted(m.kind for m in best.melds) == ["pure_sequence", "set"]


def test_ind_22_no_pure_sequence_pays_whole_hand_capped_at_80() -> None:
    wilds = ind_wilds("7C")
    values = ind_values(wilds)
    hand = cards("3S 4S JK | 8H 8D 8C | KC 2D 6C 9H QS JH 10D")
    assert min_deadwood(hand, IND_MELDS, wilds, values, need_pure=True) is None
    whole = sum(values[c.code] for c in hand)
    assert (whole, min(whole, 80)) == (88, 80)
    # What the caller must not charge: without a pure sequence no group counts, though
    # 3S 4S JK and 9H JK JH would otherwise be sequences.
    assert points(min_deadwood(hand, IND_MELDS, wilds, values)) == 45


def test_oracle_agrees_with_the_ind_17_and_ind_22_examples() -> None:
    wilds = ind_wilds("7C")
    oracle = Oracle(IND_MELDS, wilds, ind_values(wilds))
    assert oracle.can_complete(cards(IND_17_VALID), min_sequences=2, min_pure=1)
    assert not oracle.can_complete(cards(IND_17_INVALID), min_sequences=2, min_pure=1)
    hand = cards("3S 4S 5S | 8H 8D 8C | KC 2D 6C 9H QS JH 10D")
    assert oracle.min_deadwood(hand, need_pure=True) == 57
    hand = cards("3S 4S JK | 8H 8D 8C | KC 2D 6C 9H QS JH 10D")
    assert oracle.min_deadwood(hand, need_pure=True) is None


# --------------------------------------------------------------------------- TT


@pytest.mark.parametrize("text", ["4H 7S 6H", "9C 9C 7D", "7S 7H JK"])
def test_tt_8_melds_with_wild_cards(text: str) -> None:
    assert check_meld(cards(text), TT_MELDS, tt_wilds(7)).valid


def test_tt_8_all_wild_meld() -> None:
    wilds = tt_wilds(7)
    values = tt_values(wilds)
    hand = cards("7S 7H JK")
    best = min_deadwood(hand, TT_MELDS, wilds, values, wild_meld_free=True)
    assert best is not None and best.complete and best.points == 0
    assert_consistent(best, hand, TT_MELDS, wilds, values)


def test_tt_8_all_wild_hand_is_complete() -> None:
    # Round 1 with jokers in play: JK JK JK is one meld (TT-8), so the hand may go out (TT-10).
    wilds = tt_wilds(3)
    hand = cards("JK JK JK")
    assert check_meld(hand, TT_MELDS, wilds).valid
    best = min_deadwood(hand, TT_MELDS, wilds, tt_values(wilds), wild_meld_free=True)
    assert best is not None and best.complete and best.points == 0
    assert complete_arrangement(hand, TT_MELDS, wilds) is not None


def test_tt_9_sets_take_identical_cards_and_have_no_size_limit() -> None:
    wilds = tt_wilds(3)
    assert check_meld(cards("9C 9C 9H 9H 9S 9S 9D"), TT_MELDS, wilds).kind == "set"
    assert check_meld(cards("9C 9C 9H 9H 9S 9S 9D"), IND_MELDS, wilds).valid is False


def test_tt_9_runs_ace_low_only() -> None:
    wilds = tt_wilds(3)
    assert check_meld(cards("AS 2S 3S"), TT_MELDS, wilds).valid
    assert not check_meld(cards("QS KS AS"), TT_MELDS, wilds).valid
    assert not check_meld(cards("KS AS 2S"), TT_MELDS, wilds).valid


def test_tt_12_example_scores_20() -> None:
    wilds = tt_wilds(6)  # round 4
    values = tt_values(wilds)
    hand = cards("2C 3C 4C 6D KS QH")
    best = min_deadwood(hand, TT_MELDS, wilds, values, wild_meld_free=True)
    assert best is not None and best.points == 20
    assert_consistent(best, hand, TT_MELDS, wilds, values)
    assert [sorted(m.cards) for m in best.melds] == [sorted(cards("2C 3C 4C 6D"))]
    # Leaving 6D out instead would cost 35.
    without = min_deadwood(cards("2C 3C 4C KS QH"), TT_MELDS, wilds, values, wild_meld_free=True)
    assert points(without) == 20 and values[Card.parse("6D").code] == 15


def test_tt_12_card_values() -> None:
    values = tt_values(tt_wilds(6))
    got = [values[c.code] for c in cards("AS 2S 10H JD QC KS 6H JK")]
    assert got == [1, 2, 10, 10, 10, 10, 15, 20]


# --------------------------------------------------------------------------- R51 and MAR


@pytest.mark.parametrize("text", ["5H 6H 7H", "9S 9H 9D", "9S 9H JK", "5H 6H 7H 8H",
                                  "4S JK 6S", "5H 6H 7H 8H 9H 10H JH", "KC KD KS"])
def test_r51_6_valid_combinations(text: str) -> None:
    assert check_meld(cards(text), R51_MELDS, JOKER_ONLY).valid


@pytest.mark.parametrize(("text", "reason"), [
    ("JK 4H JK", "R51-6: at most 1 wild card(s) per combination"),
    ("9S 9S 9H", "R51-6: a set needs natural cards of distinct suits"),
    ("9S 9H 9D 9C JK", "R51-6: a set holds at most 4 cards"),
])
def test_r51_6_invalid_combinations(text: str, reason: str) -> None:
    check = check_meld(cards(text), R51_MELDS, JOKER_ONLY)
    assert (check.valid, check.reason) == (False, reason)


@pytest.mark.parametrize("text", ["9S 9H 9D JK", "5H 6H 7H JK"])
def test_r51_6_joker_completing_a_full_combination_is_not_deadwood(text: str) -> None:
    # A tria of 4 with its joker, or a suivi of 4 with a joker at one end, is valid (R51-6),
    # so the best split of these four cards leaves nothing outside a combination.
    hand = cards(text)
    assert check_meld(hand, R51_MELDS, JOKER_ONLY).valid
    best = min_deadwood(hand, R51_MELDS, JOKER_ONLY, R51_VALUES)
    assert points(best) == 0


@pytest.mark.parametrize("text", ["KS KH KD", "QC QD JK", "AS 2S 3S", "9H 10H JH QH"])
def test_mar_6_valid_combinations(text: str) -> None:
    assert check_meld(cards(text), MAR_MELDS, JOKER_ONLY).valid


@pytest.mark.parametrize("text", ["JK 4H JK", "5S 5S 5H", "KS AS 2S", "9S 9H 9D 9C JK"])
def test_mar_6_invalid_combinations(text: str) -> None:
    check = check_meld(cards(text), MAR_MELDS, JOKER_ONLY)
    assert not check.valid and check.reason is not None and check.reason.startswith("MAR-6")


def test_mar_6_franc_means_no_joker() -> None:
    assert check_meld(cards("KS KH KD"), MAR_MELDS, JOKER_ONLY).kind == "set"
    assert check_meld(cards("AS 2S 3S"), MAR_MELDS, JOKER_ONLY).kind == "pure_sequence"
    assert check_meld(cards("QC JK KC"), MAR_MELDS, JOKER_ONLY).kind == "sequence"


def test_mar_6_joker_in_a_full_tierce_is_not_deadwood() -> None:
    hand = cards("KS KH KD JK")
    assert check_meld(hand, MAR_MELDS, JOKER_ONLY).kind == "set"
    assert points(min_deadwood(hand, MAR_MELDS, JOKER_ONLY, R51_VALUES)) == 0


@pytest.mark.parametrize("rules", [R51_MELDS, MAR_MELDS])
def test_r51_16_mar_16_hand_without_combination_pays_44(rules: MeldRules) -> None:
    best = min_deadwood(cards("KS 4D JK AH"), rules, JOKER_ONLY, R51_VALUES)
    assert best is not None and best.points == 44 and not best.melds


# --------------------------------------------------------------------------- oracle properties
#
# Hands are drawn as text so that a falsifying example prints as cards ("AS 2S JK").

PROPERTY = settings(max_examples=400, derandomize=True, database=None, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def hands(draw: st.DrawFn, wild_cards: Sequence[Card], jokers: int, *, low: int = 3,
          high: int = 10) -> str:
    """3 to 10 (``low`` to ``high``) distinct cards of a two-deck pack plus jokers, often
    from a narrow window.

    A narrow window (one or two suits, a few ranks) makes runs and sets common; the wild
    cards are always in the pack so that they turn up often.
    """
    if draw(st.booleans()):
        suits = draw(st.lists(st.integers(0, 3), min_size=1, max_size=2, unique=True))
        first, span = draw(st.integers(1, 13)), draw(st.integers(3, 6))
        ranks = {(first - 1 + i) % 13 + 1 for i in range(span)}
        faces = {Card.of(r, s) for r in ranks for s in suits} | set(wild_cards)
    else:
        faces = set(ALL_CARDS)
    pack = sorted(faces) * 2 + [Card.JOKER] * jokers
    size = draw(st.integers(low, high))
    picks = st.lists(st.sampled_from(range(len(pack))), min_size=size, max_size=size,
                     unique=True)
    return format_cards(pack[i] for i in draw(picks))


@st.composite
def ind_deals(draw: st.DrawFn) -> tuple[str, str, bool]:
    """(hand, indicator, wild_suits all) for IND."""
    indicator = str(draw(st.sampled_from([*ALL_CARDS, Card.JOKER])))
    all_suits = draw(st.booleans())
    wilds = ind_wilds(indicator, all_suits=all_suits)
    wild_cards = [c for c in ALL_CARDS if wilds.is_wild(c)]
    return draw(hands(wild_cards, jokers=2)), indicator, all_suits


@st.composite
def groups(draw: st.DrawFn) -> tuple[str, str, str]:
    """(group, variant, wild definition): one possible combination of 3 to 7 cards."""
    variant = draw(st.sampled_from(["IND", "TT", "R51", "MAR"]))
    if variant == "IND":
        wild = str(draw(st.sampled_from([*ALL_CARDS, Card.JOKER])))
    elif variant == "TT":
        wild = str(draw(st.integers(3, 13)))
    else:
        wild = "JK"
    wild_cards = [c for c in ALL_CARDS if _variant(variant, wild)[1].is_wild(c)]
    return draw(hands(wild_cards, jokers=4, low=3, high=7)), variant, wild


def _variant(name: str, wild: str) -> tuple[MeldRules, WildSpec]:
    if name == "IND":
        return IND_MELDS, ind_wilds(wild)
    if name == "TT":
        return TT_MELDS, tt_wilds(int(wild))
    return (R51_MELDS if name == "R51" else MAR_MELDS), JOKER_ONLY


@PROPERTY
@given(groups())
def test_com_2_meld_kinds_match_spelled_out_runs_and_sets(group: tuple[str, str, str]) -> None:
    text, variant, wild = group
    rules, wilds = _variant(variant, wild)
    meld = cards(text)
    kinds_found = meld_kinds(meld, rules, wilds)
    assert kinds_found == target_kinds(meld, rules, wilds)
    check = check_meld(meld, rules, wilds)
    assert check.valid == bool(kinds_found)
    if check.valid:
        assert check.kind == next(k for k in ("pure_sequence", "sequence", "set")
                                  if k in kinds_found)
    else:
        assert check.reason is not None
        assert check.reason.split(":")[0] in {rules.rule_run, rules.rule_set, rules.rule_wild}


@st.composite
def tt_deals(draw: st.DrawFn) -> tuple[str, int]:
    """(hand, wild rank) for TT."""
    rank = draw(st.integers(3, 13))
    wild_cards = [Card.of(rank, s) for s in range(4)]
    return draw(hands(wild_cards, jokers=draw(st.sampled_from([0, 2, 4])))), rank


@PROPERTY
@given(ind_deals())
def test_ind_22_min_deadwood_matches_oracle(deal: tuple[str, str, bool]) -> None:
    text, indicator, all_suits = deal
    hand, wilds = cards(text), ind_wilds(indicator, all_suits=all_suits)
    values = ind_values(wilds)
    oracle = Oracle(IND_MELDS, wilds, values)
    for need_pure in (True, False):
        best = min_deadwood(hand, IND_MELDS, wilds, values, need_pure=need_pure)
        assert points(best) == oracle.min_deadwood(hand, need_pure=need_pure), need_pure
        if best is not None:
            assert_consistent(best, hand, IND_MELDS, wilds, values)
            assert not need_pure or sequence_counts(best)[1] >= 1


@PROPERTY
@given(ind_deals())
def test_ind_17_complete_arrangement_matches_oracle(deal: tuple[str, str, bool]) -> None:
    text, indicator, all_suits = deal
    hand, wilds = cards(text), ind_wilds(indicator, all_suits=all_suits)
    oracle = Oracle(IND_MELDS, wilds, ind_values(wilds))
    for min_sequences, min_pure, spare in ((2, 1, 0), (0, 0, 0), (1, 1, 0), (2, 0, 0),
                                           (2, 1, 1), (0, 0, 1)):
        found = complete_arrangement(hand, IND_MELDS, wilds, min_sequences=min_sequences,
                                     min_pure=min_pure, spare=bool(spare))
        expected = oracle.can_complete(hand, min_sequences=min_sequences, min_pure=min_pure,
                                       spare=spare)
        assert (found is not None) == expected, (min_sequences, min_pure, spare)
        if found is not None:
            assert len(found.deadwood) == spare
            assert_consistent(found, hand, IND_MELDS, wilds, None)
            seqs, pures = sequence_counts(found)
            assert seqs >= min_sequences and pures >= min_pure


@PROPERTY
@given(tt_deals())
def test_tt_12_min_deadwood_matches_oracle(deal: tuple[str, int]) -> None:
    hand, wilds = cards(deal[0]), tt_wilds(deal[1])
    values = tt_values(wilds)
    best = min_deadwood(hand, TT_MELDS, wilds, values, wild_meld_free=True)
    assert points(best) == Oracle(TT_MELDS, wilds, values).min_deadwood(hand)
    assert best is not None
    assert_consistent(best, hand, TT_MELDS, wilds, values)


@PROPERTY
@given(tt_deals())
def test_tt_10_complete_arrangement_matches_oracle(deal: tuple[str, int]) -> None:
    hand, wilds = cards(deal[0]), tt_wilds(deal[1])
    found = complete_arrangement(hand, TT_MELDS, wilds)
    assert (found is not None) == Oracle(TT_MELDS, wilds, tt_values(wilds)).can_complete(hand)
    if found is not None:
        assert found.complete
        assert_consistent(found, hand, TT_MELDS, wilds, None)


@pytest.mark.parametrize("rules", [R51_MELDS, MAR_MELDS], ids=["R51-6", "MAR-6"])
@PROPERTY
@given(text=hands([], jokers=4))
def test_r51_6_mar_6_min_deadwood_matches_oracle(rules: MeldRules, text: str) -> None:
    hand = cards(text)
    best = min_deadwood(hand, rules, JOKER_ONLY, R51_VALUES)
    assert points(best) == Oracle(rules, JOKER_ONLY, R51_VALUES).min_deadwood(hand)
    assert best is not None
    assert_consistent(best, hand, rules, JOKER_ONLY, R51_VALUES)


def test_com_7_the_pure_run_shortcut_never_changes_an_answer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """IND-11, MAR-9: a hand without three printed cards of one suit in a row is refused
    before any search; on 3,000 random 13- and 14-card Indian Rummy hands the search alone
    gives the same answers as the search behind the shortcut."""
    import random

    import arena.engine.solver as solver
    from arena.variants.indian13 import best_declaration, card_values, loser_points, wild_cards

    if not solver.__file__ or solver.__file__.endswith(".so"):
        pytest.skip("a compiled solver calls its own functions directly; CI runs this test "
                    "on the pure-Python source (ARENA_PURE_PYTHON=1)")

    rng = random.Random(11)
    deck = [c for c in ALL_CARDS for _ in range(2)] + [Card(JOKER_CODE)] * 2
    cases = []
    for _ in range(3000):
        indicator = rng.choice(deck)
        wilds = wild_cards(indicator, wild_suits="colour")
        cases.append((rng.sample(deck, 14), wilds, card_values(wilds)))
    refused = sum(not solver.has_natural_run(hand) for hand, _, _ in cases)
    fast = [(best_declaration(h, w), loser_points(h[:13], w, v)) for h, w, v in cases]
    monkeypatch.setattr(solver, "has_natural_run", lambda hand: True)
    assert [(best_declaration(h, w), loser_points(h[:13], w, v)) for h, w, v in cases] == fast
    assert refused > 1000  # the shortcut does decide most hands


def test_com_7_plain_hands_get_the_general_searchs_arrangement() -> None:
    """COM-7: a hand with no wild card and no card twice takes a shorter road (codes as bits,
    runs as blocks of codes); on 4,000 random hands of 3 to 15 cards, under every variant's
    combination rules, it gives the very arrangement (melds, their order, deadwood, points)
    of the general search, with and without a pure run required."""
    import random

    import arena.engine.solver as solver

    def general(hand: list[Card], rules: MeldRules, need_pure: bool) -> Arrangement | None:
        found = solver._search(hand, rules, NO_WILDS, R51_VALUES, need_pure, False)
        if found is None:
            return None
        h, cost, link = found
        return solver._build(hand, NO_WILDS, h.codes, link, cost, fill_leftover=False)

    rng = random.Random(7)
    plain = 0
    for _ in range(4000):
        rules = rng.choice([IND_MELDS, R51_MELDS, MAR_MELDS, TT_MELDS])
        deck = list(ALL_CARDS) * rng.choice([1, 2])
        hand = rng.sample(deck, rng.choice([3, 7, 10, 13, 14, 15]))
        need_pure = rng.random() < 0.3
        plain += len(set(hand)) == len(hand)
        best = min_deadwood(hand, rules, NO_WILDS, R51_VALUES, need_pure=need_pure)
        assert best == general(hand, rules, need_pure), format_cards(hand)
        assert solver.deadwood_points(hand, rules, NO_WILDS, R51_VALUES,
                                      need_pure=need_pure) == (best and best.points)
    assert plain > 2000  # most of them took the shorter road
