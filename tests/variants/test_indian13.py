"""Indian Rummy (RULES.md IND) and the arena rules (COM): stacked-deck scenarios.

Each scenario stacks the deal (``conftest.ind_game``), plays it through ``Game.apply`` one
action at a time, and checks the state and the points after each step. Hands come from the
RULES.md examples where they can.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from conftest import (
    IND_DECK,
    all_cards,
    card,
    cards,
    ind_game,
    play,
    points_after,
    refused,
    stacked_deck,
)

from arena.actions import Draw, Placed, Play, parse_action
from arena.cards import RANKS, SUITS, Card, deck, format_cards, parse_cards
from arena.engine.melds import check_meld
from arena.errors import BadInput
from arena.referee import Clock
from arena.variants import find_variant
from arena.variants.indian13 import (
    IND_MELDS,
    Indian13,
    card_values,
    declaration,
    loser_points,
    wild_cards,
)

# RULES.md examples, indicator 7C (7C, 7S and JK are wild).
VALID_17 = "2S 3S 4S | 9H 10H JK QH | 5D 5C 5H | KS KD 7S"  # IND-17, with 8D set aside
INVALID_17 = "2S 3S 4S | 5D 5C 5H | KS KD KH | 9C 9D 9H JK"  # IND-17: one sequence only
PAYS_57 = "3S 4S 5S | 8H 8D 8C | KC 2D 6C 9H QS JH 10D"  # IND-22
PAYS_80 = "3S 4S JK | 8H 8D 8C | KC 2D 6C 9H QS JH 10D"  # IND-22: 88, capped at 80
# Hands of our own, indicator 7C.
PAYS_22 = "AH 2H 3H 4H | 6D 6S 6H | 9C 10C JC | QD KD 2C"
CAPPED = "AS AD KC KH QS QD JD JC 10S 9D 8S 6H 2H"  # no sequence at all: 115, capped
JUNK = "9S JS 5S 7H 10H AH 3D 4D 7D JD AC 3C QC"  # no group at all: 98, capped


# --------------------------------------------------------------------------- COM: cards


def test_com_1_card_notation_round_trips() -> None:
    for text in ("AS", "10H", "QD", "KC", "JK", "7H"):
        assert str(Card.parse(text)) == text
    assert Card.parse("th") == Card.parse("10H")
    assert RANKS[0] == "A" and RANKS[-1] == "K" and SUITS == ("S", "H", "D", "C")
    assert Card.parse("7H").is_red and Card.parse("7D").is_red
    assert not Card.parse("7S").is_red and not Card.parse("7C").is_red
    two_decks = deck(decks=2, jokers=2)
    assert two_decks.count(Card.parse("7H")) == 2  # two equal copies
    assert format_cards(parse_cards("JK 10H AS")) == "JK 10H AS"


def test_com_2_runs_and_the_ace() -> None:
    wilds = wild_cards(card("9D"))
    assert check_meld(cards("AS 2S 3S"), IND_MELDS, wilds).kind == "pure_sequence"
    assert check_meld(cards("QS KS AS"), IND_MELDS, wilds).kind == "pure_sequence"
    assert not check_meld(cards("KS AS 2S"), IND_MELDS, wilds).valid
    thirteen = cards("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS")
    assert check_meld(thirteen, IND_MELDS, wilds).valid
    assert not check_meld([*thirteen, Card.JOKER], IND_MELDS, wilds).valid  # at most 13
    assert not check_meld(cards("AS 2S"), IND_MELDS, wilds).valid


def test_com_3_first_dealer_is_drawn_and_play_passes_left() -> None:
    dealers = {Indian13(seed=s).dealer for s in range(40)}
    assert dealers == {0, 1, 2, 3}
    assert Indian13(seed=17).dealer == Indian13(seed=17).dealer
    game = ind_game([JUNK, CAPPED, PAYS_22], indicator="7C", discard="4C", dealer=1)
    assert game.to_act == 2
    play(game, "stock")
    play(game, f"discard {game.hands[2][-1]}")
    assert (game.to_act, game.decision) == (0, "draw")


def test_com_4_same_seed_same_deal() -> None:
    one, two = Indian13(seed=99), Indian13(seed=99)
    assert (one.hands, one.stock, one.pile, one.dealer) == \
        (two.hands, two.stock, two.pile, two.dealer)
    assert Indian13(seed=100).hands != one.hands


# --------------------------------------------------------------------------- IND: the deal


def test_ind_1_players_two_to_six() -> None:
    assert Indian13(seed=1).players == 4  # the default
    for n in range(2, 7):
        game = Indian13(seed=n, options={"players": n})
        assert [len(h) for h in game.hands] == [13] * n


def test_ind_2_deck_is_106_cards_with_two_jokers() -> None:
    for seed in range(3):
        game = Indian13(seed=seed)
        held = all_cards(game)
        assert sum(held.values()) == 106
        assert held == IND_DECK
        assert held[Card.JOKER] == 2


def test_ind_3_deal_13_each_indicator_discard_stock() -> None:
    """IND-3 example: 52 in hands, 1 indicator, 1 discard, 52 stock cards above it."""
    game = Indian13(seed=5)
    assert sum(len(h) for h in game.hands) == 52
    assert len(game.pile) == 1
    assert len(game.stock) == 53 and game.stock[0] == game.indicator()
    assert game.view(0).stock_size == 53


def test_ind_3_stacked_deal_gives_each_seat_its_hand() -> None:
    hands = [VALID_17, PAYS_57, PAYS_22, CAPPED]
    game = ind_game(hands, indicator="7C", discard="4C", stock="8D 2D", dealer=2)
    assert [Counter(h) for h in game.hands] == [Counter(cards(h)) for h in hands]
    assert game.indicator() == card("7C") and game.pile == [card("4C")]
    assert game.stock[-2:] == [card("2D"), card("8D")]  # the top of the stock is last
    assert all_cards(game) == IND_DECK


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_ind_4_seat_after_the_dealer_plays_first(dealer: int) -> None:
    game = ind_game([JUNK, CAPPED, PAYS_22, PAYS_57], indicator="7C", discard="4C",
                    dealer=dealer)
    assert game.dealer == dealer
    assert (game.to_act, game.decision) == ((dealer + 1) % 4, "draw")
    assert game.view(0).dealer == dealer


def test_ind_5_indicator_is_public_and_the_last_stock_card() -> None:
    game = ind_game([JUNK, CAPPED], indicator="9D", discard="4C", stock="5C 5D", full=False)
    assert all(game.view(s).part.indicator == card("9D") for s in range(2))
    wilds = game.wilds
    for expected in ("5C", "5D", "9D"):  # seat 1, seat 0, seat 1
        seat = game.to_act
        play(game, "stock")
        assert game.view(seat).drawn == card(expected)
        play(game, f"discard {expected}")
    assert game.stock == []
    assert game.wilds == wilds  # IND-5: fixed for the whole deal
    assert all(game.view(s).part.indicator == card("9D") for s in range(2))


# --------------------------------------------------------------------------- IND: wild cards


def test_ind_6_and_ind_7_jokers_and_the_indicator_rank_in_its_colour() -> None:
    """IND-7 example: with indicator 9D, the wild cards are 9D, 9D, 9H and 9H."""
    game = ind_game([JUNK, CAPPED], indicator="9D", discard="4C")
    assert {c for c in IND_DECK if game.wilds.is_wild(c)} == set(cards("JK 9D 9H"))
    assert sum(n for c, n in IND_DECK.items() if game.wilds.is_wild(c)) == 6
    black = wild_cards(card("9C"))
    assert {c for c in IND_DECK if black.is_wild(c)} == set(cards("JK 9S 9C"))


def test_ind_7_wild_suits_all_makes_the_whole_rank_wild() -> None:
    game = ind_game([JUNK, CAPPED], indicator="9D", discard="4C", wild_suits="all")
    assert {c for c in IND_DECK if game.wilds.is_wild(c)} == set(cards("JK 9S 9H 9D 9C"))
    assert game.view(0).is_wild(card("9S"))


@pytest.mark.parametrize(("wild_suits", "points"), [("colour", 71), ("all", 53)])
def test_ind_7_wild_suits_changes_what_a_loser_pays(wild_suits: str, points: int) -> None:
    """9S and 9C score 9 each under ``colour`` (the default), 0 under ``all`` (IND-10)."""
    loser = "9S 9C 2S 3H 4D 5C 6S 8H 10D 2C 3D 4H 6C"  # no pure sequence: the whole hand
    game = ind_game([loser, VALID_17.replace("7S", "9H")], indicator="9D", discard="4C",
                    stock="8D", wild_suits=wild_suits)
    play(game, "stock")
    play(game, "declare 8D")
    assert points_after(game) == [points, 0]


def test_ind_8_joker_indicator_makes_all_eight_aces_wild() -> None:
    """IND-8: the 13 cards hold AD (=JH) and AC (=KH or KC) as wild cards."""
    game = ind_game([JUNK, "2S 3S 4S | 9H 10H AD QH | 5D 5C 5H | KS KD AC"],
                    indicator="JK", discard="4C", stock="8D")
    assert {c for c in IND_DECK if game.wilds.is_wild(c)} == set(cards("JK AS AH AD AC"))
    assert game.card_value(card("AS")) == 0
    assert not game.wilds.is_wild(card("7C"))
    play(game, "stock")
    play(game, "declare 8D")
    assert game.results[-1].reason == "declaration"
    assert points_after(game) == [78, 0]  # JUNK pays 98 less its AH and AC (IND-10)


def test_ind_9_wild_card_as_itself_keeps_a_sequence_pure() -> None:
    """IND-9 example: with indicator 7D, ``5H 6H 7H`` is a pure sequence."""
    wilds = wild_cards(card("7D"))
    assert check_meld(cards("5H 6H 7H"), IND_MELDS, wilds).kind == "pure_sequence"
    assert check_meld(cards("5H 6H 7D"), IND_MELDS, wilds).kind == "sequence"
    hand = "5H 6H 7H | 9C JK JC QC | 4S 4D 4C | KS KD KC"  # its only pure sequence: 5H 6H 7H
    assert declaration(cards(hand), wilds) is not None
    assert declaration(cards(hand.replace("7H", "7D")), wilds) is None


@pytest.mark.parametrize(("hand", "valid"), [
    ("5H 6H 7H | 9C JK JC QC | 4S 4D 4C | KS KD KC", True),
    ("5H 6H 7D | 9C JK JC QC | 4S 4D 4C | KS KD KC", False),
])
def test_ind_9_declaration_with_a_wild_standing_for_itself(hand: str, valid: bool) -> None:
    game = ind_game([PAYS_57, hand], indicator="7D", discard="4C", stock="2H")
    play(game, "stock")
    play(game, "declare 2H")
    assert game.results[-1].reason == ("declaration" if valid else "last_player")
    assert points_after(game) == ([57, 0] if valid else [0, 80])


def test_ind_9_and_ind_10_wild_card_as_itself_still_scores_0() -> None:
    wilds = wild_cards(card("7D"))
    values = card_values(wilds)
    # 5H 6H 7H is pure with 7H as itself, so the sets count and KS 2C 2S 3D pay 17;
    # without a pure sequence the whole hand would pay 67.
    assert loser_points(cards("5H 6H 7H KS 2C 9S 9D 9C 4H 4D 4C 2S 3D"), wilds, values) == 17


def test_ind_10_wild_cards_score_0_in_hand() -> None:
    wilds = wild_cards(card("7C"))
    values = card_values(wilds)
    assert values[Card.JOKER.code] == values[card("7C").code] == values[card("7S").code] == 0
    assert values[card("7H").code] == 7
    # No pure sequence: the whole hand pays, the wild cards at 0: 2+3+5+6+8+9+10+4 = 47.
    assert loser_points(cards("JK 7S 7C 2D 3H 5S 6D 8C 9H 10S 4C JK 7C"), wilds, values) == 47


# --------------------------------------------------------------------------- IND: combinations


@pytest.mark.parametrize(("group", "indicator", "kind"), [
    ("AS 2S 3S", "9D", "pure_sequence"),  # IND-11 examples
    ("QD KD AD", "9D", "pure_sequence"),
    ("4C 5C 6C 7C", "9D", "pure_sequence"),
    ("KH AH 2H", "9D", None),
    ("4H 9D 6H", "9D", "sequence"),  # IND-12 examples: 9D=5H
    ("JK 8C JK", "9D", "sequence"),
    ("JK 9H JK", "9D", "sequence"),  # 9H stands for itself
    ("4H 9D 6D", "9D", None),
    ("8S 8H JK", "9D", "set"),  # IND-13 examples
    ("8S 8H 8D 8C", "9D", "set"),
    ("8S 8S 8H", "9D", None),
    ("8S 8H 8D 8C JK", "9D", None),
    ("JK JK 9D", "9D", "sequence"),  # at least one natural card: 9D as itself
    ("5H 5H 6H 7H", "9D", None),  # COM-2: one card per rank
    ("QH KH AH 2H", "9D", None),  # COM-2: the ace is low or high, not both
])
def test_ind_11_to_ind_13_combinations(group: str, indicator: str, kind: str | None) -> None:
    verdict = check_meld(cards(group), IND_MELDS, wild_cards(card(indicator)))
    assert verdict.valid == (kind is not None)
    assert verdict.kind == kind
    if kind is None:
        assert verdict.reason is not None and verdict.reason.startswith("IND-1")


def test_ind_12_ind_13_a_combination_needs_a_natural_card() -> None:
    verdict = check_meld(cards("JK JK JK"), IND_MELDS, wild_cards(card("7C")))
    assert not verdict.valid and verdict.reason is not None
    assert verdict.reason.startswith("IND-12")
    assert check_meld(cards("JK JK 7C"), IND_MELDS, wild_cards(card("7C"))).valid  # 7C itself


def test_ind_14_one_card_one_group() -> None:
    """3S would have to be in both the run AS 2S 3S and the set 3S 3H 3D."""
    hand = "AS 2S 3S 3H 3D | 5C 6C 7C 8C | 10H JH QH KH"
    assert declaration(cards(hand), wild_cards(card("9D"))) is None
    game = ind_game([JUNK, hand], indicator="9D", discard="4C", stock="2D")
    play(game, "stock")
    play(game, "declare 2D")
    assert points_after(game) == [0, 80]


# --------------------------------------------------------------------------- IND: the turn


def test_ind_15_draw_one_card_from_the_stock_or_the_discard_pile() -> None:
    game = ind_game([JUNK, CAPPED, PAYS_22], indicator="7C", discard="JK", stock="4D 5D")
    assert game.view(1).legal_draws == ("stock", "discard")
    assert refused(game, "tournante").rule == "IND-15"
    assert refused(game, "discard KS").rule == "IND-15"  # a play before the draw
    play(game, "discard")  # IND-15: a wild card may be taken from the discard pile
    assert game.hands[1][-1] == Card.JOKER and game.pile == [] and game.draws == 1
    assert refused(game, "stock").rule == "IND-15"  # exactly one card
    assert refused(game, "discard JK").rule == "COM-11"
    play(game, "discard KC")
    assert game.pile == [card("KC")] and len(game.hands[1]) == 13
    assert game.view(2).history == tuple(game.history)
    assert [(e.seat, e.kind, e.cards) for e in game.history] == [
        (1, "take", (Card.JOKER,)), (1, "discard", (card("KC"),))]


def test_ind_15_cannot_take_from_an_empty_discard_pile() -> None:
    game = ind_game([JUNK, INVALID_17, CAPPED], indicator="7C", discard="4C", stock="4D")
    play(game, "discard")
    play(game, "declare 4C")  # invalid (IND-20): the pile stays empty
    assert game.pile == [] and game.to_act == 2
    assert game.legal_draws() == ("stock",)
    assert refused(game, "discard").rule == "IND-15"
    play(game, "stock")


def test_ind_16_after_the_draw_discard_one_card_or_declare() -> None:
    game = ind_game([JUNK, PAYS_57], indicator="7C", discard="4C", stock="KH")
    play(game, "stock")
    assert len(game.hands[1]) == 14 and game.decision == "play"
    assert refused(game, "discard 7H").rule == "IND-16"  # not in the hand
    assert refused(game, Play(discard=None)).rule == "IND-16"
    assert refused(game, "meld 3S 4S 5S; discard KH").rule == "IND-16"
    play(game, "discard 10D")
    assert len(game.hands[1]) == 13 and game.pile[-1] == card("10D")
    assert (game.to_act, game.decision) == (0, "draw")


def test_com_15_a_placed_card_names_what_a_joker_stands_for() -> None:
    """COM-15 (R51, MAR): ``JK=8H``; IND lays nothing, so such a play is refused (IND-16)."""
    placed = Placed.parse("JK=8H")
    assert placed == Placed(Card.JOKER, card("8H"))
    assert str(placed) == "JK=8H"
    assert Placed.parse("8H").stands_for is None
    text = "meld JK=8H 6H 7H; discard KS"
    assert str(Play.parse(text)) == text
    game = ind_game([JUNK, PAYS_57], indicator="7C", discard="4C", stock="KS")
    play(game, "stock")
    assert refused(game, text).rule == "IND-16"


# --------------------------------------------------------------------------- IND: declaring


@pytest.mark.parametrize(("loser", "pays"), [(PAYS_57, 57), (PAYS_80, 80), (PAYS_22, 22),
                                             (CAPPED, 80)])
def test_ind_17_ind_19_ind_22_valid_declaration_rules_example(loser: str, pays: int) -> None:
    """IND-17 example: VALID_17 with 8D set aside; IND-22 examples: 57, and 88 capped to 80."""
    game = ind_game([loser, VALID_17], indicator="7C", discard="4C", stock="8D")
    play(game, "stock")
    assert game.hands[1][-1] == card("8D")
    play(game, "declare 8D")
    assert game.results[-1].reason == "declaration"
    assert points_after(game) == [pays, 0]
    assert game.totals == [pays, 0] and game.finished
    assert game.ranks() == (2, 1)


def test_ind_19_every_other_player_pays_in_a_four_player_deal() -> None:
    game = ind_game([CAPPED, VALID_17, PAYS_57, PAYS_22], indicator="7C", discard="AD",
                    stock="8D")
    play(game, "stock")
    play(game, "declare 8D")
    assert points_after(game) == [80, 0, 57, 22]
    assert game.ranks() == (4, 1, 3, 2)
    shown = game.history[-1]
    assert (shown.seat, shown.kind) == (1, "declare")
    assert Counter(shown.cards) == Counter(cards(VALID_17))  # IND-17: the 13 are shown
    summary = game.last_summary  # COM-5: every final hand and penalty is shown
    assert summary.penalties == (80, 0, 57, 22)
    assert [Counter(h) for h in summary.hands[2:]] == [Counter(cards(PAYS_57)),
                                                         Counter(cards(PAYS_22))]


def test_ind_17_invalid_example_has_one_sequence_only() -> None:
    assert declaration(cards(INVALID_17), wild_cards(card("7C"))) is None
    assert declaration(cards(VALID_17), wild_cards(card("7C"))) is not None


def test_ind_17_ind_18_only_the_set_aside_card_is_named() -> None:
    """IND-18: the engine finds the split; the same 14 cards with KS set aside fail."""
    scrambled = " ".join(reversed(VALID_17.replace("|", " ").split()))
    game = ind_game([PAYS_57, scrambled], indicator="7C", discard="4C", stock="8D")
    play(game, "stock")
    assert Play.parse("declare 8D") == Play(discard=card("8D"), declare=True)
    play(game, "declare 8D")
    assert points_after(game) == [57, 0]
    other = ind_game([PAYS_57, scrambled], indicator="7C", discard="4C", stock="8D")
    play(other, "stock")
    play(other, "declare KS")
    assert points_after(other) == [0, 80]


def test_com_11_ind_17_taken_discard_kept_but_may_be_set_aside() -> None:
    game = ind_game([PAYS_57, VALID_17], indicator="7C", discard="8D")
    play(game, "discard")
    assert game.view(1).kept == card("8D")
    assert card("8D") not in game.view(1).discardable
    assert refused(game, "discard 8D").rule == "COM-11"
    play(game, "declare 8D")
    assert game.results[-1].reason == "declaration"
    assert points_after(game) == [57, 0]


def test_ind_17_set_aside_card_must_be_in_the_hand() -> None:
    game = ind_game([PAYS_57, VALID_17], indicator="7C", discard="4C", stock="8D")
    play(game, "stock")
    assert refused(game, "declare AH").rule == "IND-17"


def test_ind_20_invalid_declaration_eliminates_by_default() -> None:
    """IND-20 ``eliminate``: 80, sits out, his 14 cards leave play, play goes on; the last
    active player wins the deal with 0."""
    game = ind_game([JUNK, INVALID_17, CAPPED, PAYS_57], indicator="7C", discard="4C",
                    stock="AC 2H 3H 4H 5H 8H")
    assert game.options["invalid_declaration"] == "eliminate"
    play(game, "stock")
    play(game, "declare AC")
    one = Counter(game.hands[1])
    assert len(game.hands[1]) == 14 and not game.active[1]
    assert (game.history[-1].seat, game.history[-1].kind) == (1, "invalid")
    assert Counter(game.history[-1].cards) == Counter(cards(INVALID_17))  # the 13 shown
    assert not game.results and game.view(0).active == (True, False, True, True)
    assert (game.to_act, game.decision) == (2, "draw")
    for seat, drawn in ((2, "2H"), (3, "3H"), (0, "4H")):
        assert game.to_act == seat
        play(game, "stock")
        play(game, f"discard {drawn}")
    assert game.to_act == 2  # seat 1 is skipped
    play(game, "stock")
    play(game, "declare 5H")  # CAPPED is no declaration either
    assert game.to_act == 3 and not game.results
    play(game, "stock")
    play(game, "declare 8H")  # nor is PAYS_57: seat 0 is the last active player
    assert game.results[-1].reason == "last_player"
    assert points_after(game) == [0, 80, 80, 80]
    assert Counter(game.hands[1]) == one  # never back in play
    assert all_cards(game) == IND_DECK


def test_ind_20_eliminated_seat_keeps_80_when_another_declares() -> None:
    declarer = "AD 2D 3D | 9D 10D JK QD | 6S 6C 6H | QS QH 7S"
    game = ind_game([PAYS_22, INVALID_17, declarer, PAYS_57], indicator="7C", discard="4C",
                    stock="AH 8D")
    play(game, "stock")
    play(game, "declare AH")
    play(game, "stock")
    play(game, "declare 8D")
    assert game.results[-1].reason == "declaration"
    assert points_after(game) == [22, 80, 0, 57]


def test_ind_20_eliminated_cards_are_never_reshuffled() -> None:
    """IND-20, IND-24: the new stock is made of the discard pile only."""
    game = ind_game([JUNK, INVALID_17, CAPPED], indicator="7C", discard="4C", stock="2D 3D",
                    full=False)
    dealt = all_cards(game)
    play(game, "stock")
    play(game, "declare 2D")
    gone = Counter(game.hands[1])
    for _ in range(2):  # seat 2 draws 3D, seat 0 draws the indicator 7C
        drawn = game.stock[-1]
        play(game, "stock")
        play(game, f"discard {drawn}")
    assert game.stock == [] and game.pile == cards("4C 3D 7C")
    play(game, "stock")  # seat 2: the stock is formed again from 4C 3D
    assert Counter([*game.stock, game.hands[2][-1]]) == Counter(cards("4C 3D"))
    assert game.pile == cards("7C")
    assert Counter(game.hands[1]) == gone and all_cards(game) == dealt


def test_ind_20_end_deal_option() -> None:
    game = ind_game([JUNK, INVALID_17, CAPPED, PAYS_57], indicator="7C", discard="4C",
                    stock="AH", invalid_declaration="end_deal", match={"deals": 2})
    play(game, "stock")
    play(game, "declare AH")
    assert game.results[-1].reason == "invalid_declaration"
    assert points_after(game) == [0, 80, 0, 0]
    assert game.totals == [0, 80, 0, 0]
    assert not game.finished and (game.round, game.dealer, game.to_act) == (2, 1, 2)
    assert all(game.active)


def test_ind_21_card_values() -> None:
    values = card_values(wild_cards(card("7C")))
    for text, value in [("AS", 10), ("KD", 10), ("QH", 10), ("JC", 10), ("10S", 10),
                        ("2H", 2), ("9D", 9), ("7H", 7), ("7S", 0), ("JK", 0)]:
        assert values[card(text).code] == value, text
    # No pure sequence: the whole hand, 2+2+3+3+4+4+5+5+6+6+8+8+10 = 66, under the cap.
    assert loser_points(cards("2S 2H 3D 3C 4S 4H 5D 5C 6S 6H 8D 8C AS"),
                        wild_cards(card("7C")), values) == 66


def test_com_7_ind_22_loser_gets_the_best_arrangement() -> None:
    """4H-7H + 8H 8S 8D leaves 44; the run 4H-8H would leave 8S 8D over too (60)."""
    loser = "4H 5H 6H 7H 8H 8S 8D KC QC 2D 3S 9D 10S"
    game = ind_game([loser, VALID_17], indicator="7C", discard="4C", stock="8C")
    play(game, "stock")
    play(game, "declare 8C")
    assert points_after(game) == [44, 0]


def test_ind_22_groups_count_with_one_pure_sequence_only() -> None:
    """IND-22: the set of 8s counts in the 57 example although there is one sequence."""
    wilds = wild_cards(card("7C"))
    values = card_values(wilds)
    assert loser_points(cards(PAYS_57), wilds, values) == 57
    assert loser_points(cards(PAYS_80), wilds, values) == 80
    assert sum(values[c.code] for c in cards(PAYS_80)) == 88


def test_ind_23_losers_do_not_act_after_a_valid_declaration() -> None:
    game = ind_game([PAYS_57, VALID_17, PAYS_22], indicator="7C", discard="4C", stock="8D")
    play(game, "stock")
    play(game, "declare 8D")
    assert game.finished
    assert [len(h) for h in game.hands] == [13, 14, 13]
    assert refused(game, "stock").rule == "COM-13"


# --------------------------------------------------------------------------- stock and cap


def test_com_12_ind_24_empty_stock_is_formed_from_the_discard_pile() -> None:
    game = ind_game([JUNK, CAPPED], indicator="7C", discard="KD", stock="2C 3C", full=False,
                    seed=3)
    for drawn in ("2C", "3C", "7C"):  # the indicator comes last (IND-5)
        play(game, "stock")
        play(game, f"discard {drawn}")
    assert game.stock == [] and game.pile == cards("KD 2C 3C 7C") and game.draws == 3
    play(game, "stock")  # seat 0: all of the pile but its top, shuffled
    assert game.draws == 4 and game.pile == cards("7C")
    assert Counter([*game.stock, game.hands[0][-1]]) == Counter(cards("KD 2C 3C"))


def test_com_12_reshuffle_uses_the_game_rng() -> None:
    def new_stock(seed: int) -> tuple[Card, ...]:
        game = ind_game([JUNK, CAPPED], indicator="7C", discard="KD", full=False, seed=seed,
                        stock="2C 3C 4C 5C 6C 8C 9C 10C")
        for _ in range(9):
            drawn = game.stock[-1]
            play(game, "stock")
            play(game, f"discard {drawn}")
        play(game, "stock")
        return (game.hands[game.to_act][-1], *reversed(game.stock))

    assert new_stock(1) == new_stock(1)
    orders = {new_stock(seed) for seed in range(8)}
    assert len(orders) > 1
    assert {Counter(o) == Counter(cards("KD 2C 3C 4C 5C 6C 8C 9C 10C")) for o in orders} == \
        {True}


def test_com_12_dead_stock_ends_the_deal_as_the_draw_cap() -> None:
    """One card in the pile and no stock: the deal ends as at the cap (IND-25)."""
    game = ind_game([PAYS_57, INVALID_17, PAYS_22], indicator="7C", discard="4C", full=False)
    play(game, "stock")  # seat 1 draws the indicator, the only stock card
    assert game.stock == []
    play(game, "declare 7C")
    assert game.pile == cards("4C") and game.to_act == 2
    play(game, "stock")  # nothing to form a stock from
    assert game.results[-1].reason == "dead_stock"
    assert points_after(game) == [57, 80, 0]


def test_com_12_dead_stock_with_an_empty_discard_pile() -> None:
    game = ind_game([PAYS_22, INVALID_17, CAPPED, PAYS_57], indicator="7C", discard="4C",
                    full=False)
    play(game, "stock")  # seat 1: the indicator
    play(game, "declare 7C")
    play(game, "discard")  # seat 2 takes 4C and is eliminated too: no pile, no stock
    play(game, "declare 4C")
    assert game.pile == [] and game.stock == [] and game.legal_draws() == ("stock",)
    assert game.safe_action() == Draw("stock")
    play(game, "stock")
    assert game.results[-1].reason == "dead_stock"
    assert points_after(game) == [0, 80, 80, 57]


def test_com_12_taking_the_last_discard_is_still_allowed_without_stock() -> None:
    game = ind_game([PAYS_57, INVALID_17, PAYS_22], indicator="7C", discard="4C", full=False)
    play(game, "stock")
    play(game, "declare 7C")
    play(game, "discard")  # seat 2 takes 4C: no stock is needed
    assert not game.results and game.pile == []
    play(game, "discard KD")
    play(game, "stock")  # seat 0: KD alone cannot form a stock
    assert game.results[-1].reason == "dead_stock"


def test_com_4_log_replays_a_dead_stock_deal() -> None:
    """COM-4: replaying the logged actions gives the same game. The stock draw that finds
    the stock dead ends the deal, so it must be in the log like any other answer."""
    def fresh() -> Indian13:
        return ind_game([PAYS_57, INVALID_17, PAYS_22], indicator="7C", discard="4C",
                        full=False, match={"deals": 2})

    game = fresh()
    play(game, "stock")
    play(game, "declare 7C")
    play(game, "stock")  # dead stock: deal 1 ends, deal 2 is shuffled by the RNG
    play(game, "stock")  # deal 2, seat 2 (the dealer is now seat 1)
    assert game.log == [(1, Draw("stock")), (1, Play.parse("declare 7C")),
                        (2, Draw("stock")), (2, Draw("stock"))]
    again = fresh()
    for seat, action in game.log:
        assert again.to_act == seat
        again.apply(action)
    assert again.results == game.results
    assert again.hands == game.hands


def test_com_9_ind_25_draw_cap_forced_end() -> None:
    """The capping seat finishes its turn; the lowest penalty scores 0, others pay theirs."""
    game = ind_game([CAPPED, PAYS_22, PAYS_57], indicator="7C", discard="KH",
                    stock="2D 3D", draw_cap=3)
    assert game.view(0).draw_cap == 3
    play(game, "stock")  # seat 1
    play(game, "discard 2D")
    play(game, "discard")  # seat 2 takes 2D: a discard draw counts too (COM-9)
    assert game.draws == 2
    play(game, "discard 10D")
    play(game, "stock")  # seat 0 makes the capping draw ...
    assert game.draws == 3 and game.decision == "play" and not game.results
    play(game, "discard 3D")  # ... and finishes his turn
    assert game.results[-1].reason == "draw_cap"
    # seat 2 now holds 3S 4S 5S | 8H 8D 8C | KC 2D 2D 6C 9H QS JH: 49
    assert points_after(game) == [80, 0, 49]
    assert game.finished


def test_ind_25_capping_seat_may_still_declare() -> None:
    game = ind_game([VALID_17, CAPPED, PAYS_22], indicator="7C", discard="KH",
                    stock="2D 3D 8D", draw_cap=3)
    for drawn in ("2D", "3D"):  # seats 1 and 2
        play(game, "stock")
        play(game, f"discard {drawn}")
    play(game, "stock")  # seat 0 makes the capping draw; the turn is still his to finish
    play(game, "declare 8D")
    assert game.results[-1].reason == "declaration"
    assert points_after(game) == [0, 80, 22]


def test_ind_25_all_tied_lowest_score_0() -> None:
    tied = "AD 2D 3D 4D | 5S 5H 5C | 9S 10S JS | KS QH 2S"  # 22 as well
    game = ind_game([CAPPED, PAYS_22, tied], indicator="7C", discard="KH", stock="2D 3D 4D",
                    draw_cap=3)
    for _ in range(3):
        drawn = game.stock[-1]
        play(game, "stock")
        play(game, f"discard {drawn}")
    assert points_after(game) == [80, 0, 0]


def test_ind_25_eliminated_seat_pays_80_at_the_cap() -> None:
    game = ind_game([CAPPED, INVALID_17, PAYS_57], indicator="7C", discard="4C",
                    stock="2D 3D 4D", draw_cap=3)
    play(game, "stock")
    play(game, "declare 2D")
    play(game, "stock")
    play(game, "discard 3D")
    play(game, "stock")
    play(game, "discard 4D")
    assert game.results[-1].reason == "draw_cap"
    assert points_after(game) == [80, 80, 0]


def test_ind_25_default_cap_is_100_draws() -> None:
    game = Indian13(seed=8)
    assert game.options["draw_cap"] == 100
    while not game.results:
        if game.decision == "play":
            assert game.draws <= 100
        game.apply(game.safe_action())  # safe actions never declare (IND-27)
    assert game.draws == 100
    assert game.results[-1].reason == "draw_cap"
    assert len(game.log) == 200


# --------------------------------------------------------------------------- safe action


def test_com_10_ind_27_safe_draw_keeps_the_hand() -> None:
    game = ind_game([PAYS_57, VALID_17], indicator="7C", discard="4C", stock="JK")
    hand = Counter(game.hands[1])
    assert game.safe_action() == Draw("stock")
    game.apply(game.safe_action())
    assert game.safe_action() == Play(discard=Card.JOKER)  # the drawn card, even if wild
    game.apply(game.safe_action())
    assert Counter(game.hands[1]) == hand and game.pile[-1] == Card.JOKER


def test_ind_27_safe_action_never_declares() -> None:
    game = ind_game([PAYS_57, VALID_17], indicator="7C", discard="8D")
    play(game, "discard")  # the 14 cards would declare with 8D set aside
    safe = game.safe_action()
    assert isinstance(safe, Play) and not safe.declare and safe.discard != card("8D")
    game.apply(safe)
    assert not game.results and game.to_act == 0


@pytest.mark.parametrize(("hand", "taken", "safe"), [
    # Penalty first: a king of the 4-card set can go at no cost, 9S saves 9.
    ("AH 2H 3H | KS KD KC KH | 9S 5D 6C 2S 4D 8H", "QC", "9S"),
    # Equal penalties (no pure sequence, capped): the higher value, then the higher rank,
    # then the suit order S H D C.
    ("KH 10S 8S QH 9H 6H JD 8D KD QC 10C 5C 4C", "2D", "KH"),
    ("AS AD 9S 9H 9D 9C 8S 8H 8D 8C 6S 6H 6D", "5C", "AS"),  # value before rank
    # The taken card is never the safe card (COM-11), however good.
    ("KH 10S 8S QH 9H 6H JD 8D KD QC 10C 5C 4C", "KS", "KH"),
    ("AH 2H 3H | 9S 9D 9C | KH QD 10C 4D 5S 6D 2C", "KS", "KH"),
])
def test_com_10_ind_27_safe_card(hand: str, taken: str, safe: str) -> None:
    game = ind_game([JUNK, hand], indicator="7C", discard=taken)
    play(game, "discard")
    assert game.safe_action() == Play(discard=card(safe))
    game.apply(game.safe_action())
    assert game.pile[-1] == card(safe) and card(taken) in game.hands[1]


# --------------------------------------------------------------------------- the game


def _deal(dealer: int, hands: dict[int, str]) -> list[Card]:
    """A stacked deal for seats 0..n-1, indicator 7C, first discard 4C, 8D on the stock."""
    return stacked_deck([hands[s] for s in range(len(hands))], extras=["7C", "4C"],
                        stock="8D", dealer=dealer)


def test_ind_28_com_13_several_deals_rotate_the_dealer_and_add_up() -> None:
    """Three deals, three players: each time the seat after the dealer declares at once."""
    pays_0 = "AH 2H 3H | 4D 5D 6D | 8S 9S 10S JS | QH QC QD"
    pays_35 = "AH 2H 3H | 6D 6S 6H | 9C 10C JC | QD KD 8S 7D"
    decks = [_deal(0, {0: PAYS_57, 1: VALID_17, 2: PAYS_22}),
             _deal(1, {0: PAYS_22, 1: PAYS_57, 2: VALID_17}),
             _deal(2, {0: VALID_17, 1: pays_0, 2: pays_35})]
    game = Indian13(seed=0, options={"players": 3, "match": {"deals": 3}}, decks=decks,
                    dealer=0)
    totals = [[57, 0, 22], [79, 57, 22], [79, 57, 57]]
    for deal, declarer in enumerate([1, 2, 0]):
        assert (game.round, game.dealer, game.to_act) == (deal + 1, deal, declarer)
        assert game.view(0).scores == tuple(totals[deal - 1] if deal else (0, 0, 0))
        play(game, "stock")
        play(game, "declare 8D")
        assert game.results[-1].reason == "declaration"
        assert game.totals == totals[deal]
    assert [r.dealer for r in game.results] == [0, 1, 2]
    assert [r.penalties for r in game.results] == [(57, 0, 22), (22, 57, 0), (0, 0, 35)]
    assert game.finished
    assert game.ranks() == (3, 1, 1)  # COM-13: equal totals share a rank


def test_ind_28_match_defaults_to_one_deal() -> None:
    game = ind_game([PAYS_57, VALID_17], indicator="7C", discard="4C", stock="8D")
    assert game.options["match"] == {"deals": 1}
    play(game, "stock")
    play(game, "declare 8D")
    assert game.finished and len(game.results) == 1


def test_com_15_a_wild_card_naming_nothing_after_its_equals_is_refused() -> None:
    """``JK=`` read as a joker naming nothing: the '=' was lost without a word."""
    with pytest.raises(BadInput, match="expected the card the wild card stands for after"):
        parse_action("meld 9H 10H JK=; discard KS")


@pytest.mark.parametrize("text", ["discard 8D; discard 9D", "declare 8D; discard 9D",
                                  "discard 8D; meld 3C 4C 5C; declare 8D"])
def test_a_play_has_one_discard_or_declare(text: str) -> None:
    """A second discard clause used to replace the first without a word; which one was meant?"""
    with pytest.raises(BadInput, match="follows another discard or declare"):
        parse_action(text)


def test_ind_29_there_is_no_drop() -> None:
    for text in ("drop", "fold", "pass"):
        with pytest.raises(BadInput):
            parse_action(text)
    game = ind_game([PAYS_57, VALID_17], indicator="7C", discard="4C", stock="8D")
    play(game, "stock")
    assert refused(game, Play(discard=None)).rule == "IND-16"


# --------------------------------------------------------------------------- views, timers


def test_com_5_what_a_seat_sees() -> None:
    game = ind_game([PAYS_57, PAYS_22, CAPPED], indicator="7C", discard="4C", stock="8H 2D")
    play(game, "stock")  # seat 1 draws 8H from the stock
    mine, theirs = game.view(1), game.view(2)
    assert mine.drawn == card("8H") and mine.drawn_from == "stock" and mine.kept is None
    assert theirs.drawn is None and theirs.drawn_from is None
    assert theirs.hand == tuple(game.hands[2]) and card("8H") not in theirs.hand
    assert theirs.history == () and theirs.hand_sizes == (13, 14, 13)
    assert theirs.stock_size == len(game.stock) and theirs.part.indicator == card("7C")
    assert theirs.scores == (0, 0, 0) and theirs.discard_top == card("4C")
    play(game, "discard 8H")
    play(game, "discard")  # seat 2 takes 8H
    seen = game.view(0)
    assert [(e.seat, e.kind, e.cards) for e in seen.history] == [
        (1, "discard", (card("8H"),)), (2, "take", (card("8H"),))]
    assert seen.discard_top == card("4C") and seen.legal_draws == ()
    assert game.view(2).kept == card("8H")


def test_com_6_refused_answers_change_nothing() -> None:
    game = ind_game([PAYS_57, VALID_17], indicator="7C", discard="4C", stock="8D")
    for bad in ("tournante", "discard KS"):
        refused(game, bad)
    play(game, "stock")
    for bad in ("stock", "discard 7H", "declare 7H", "meld 2S 3S 4S; discard 8D"):
        assert refused(game, bad).rule.startswith("IND-")
    play(game, "discard 8D")
    assert game.to_act == 0


def test_com_8_ind_26_two_decisions_and_their_default_clock() -> None:
    clock = Clock()
    assert (clock.draw_ms, clock.play_ms) == (15_000, 22_000)
    game = ind_game([PAYS_57, VALID_17], indicator="7C", discard="4C", stock="8D")
    assert game.decision == "draw"
    play(game, "stock")
    assert game.decision == "play"


# --------------------------------------------------------------------------- options


@pytest.mark.parametrize(("options", "named"), [
    ({"no_such_option": 1}, "no_such_option"),
    ({"players": 1}, "players"),
    ({"players": 7}, "players"),
    ({"players": "4"}, "players"),
    ({"players": True}, "players"),
    ({"invalid_declaration": "drop"}, "invalid_declaration"),
    ({"wild_suits": "red"}, "wild_suits"),
    ({"wild_suits": None}, "wild_suits"),
    ({"match": {"deals": 0}}, "match"),
    ({"match": {"rounds": 2}}, "match"),
    ({"match": {"deals": 2, "target": 3}}, "match"),
    ({"match": 3}, "match"),
    ({"draw_cap": 0}, "draw_cap"),
    ({"draw_cap": 2.5}, "draw_cap"),
])
def test_com_14_bad_options_are_rejected_by_name(options: dict[str, Any], named: str) -> None:
    with pytest.raises(BadInput, match=f"'{named}'"):
        Indian13(seed=0, options=options)


@pytest.mark.parametrize(("name", "rule"), [("players", "IND-1"), ("wild_suits", "IND-7"),
                                            ("invalid_declaration", "IND-20"),
                                            ("match", "IND-28"), ("draw_cap", "IND-25")])
def test_com_14_option_errors_cite_the_rule(name: str, rule: str) -> None:
    with pytest.raises(BadInput, match=rule):
        Indian13(seed=0, options={name: "???"})


def test_com_14_defaults() -> None:
    assert Indian13(seed=0).options == {"players": 4, "invalid_declaration": "eliminate",
                                        "wild_suits": "colour", "match": {"deals": 1},
                                        "draw_cap": 100}
    assert find_variant("ind") is Indian13 and find_variant("indian13/v1") is Indian13


def test_stacked_deck_helper_refuses_too_many_copies() -> None:
    with pytest.raises(ValueError, match="more copies"):
        stacked_deck([VALID_17, VALID_17, VALID_17], extras=["7C", "4C"])
