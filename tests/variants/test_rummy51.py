"""Rummy 51 and Rummy 71 (RULES.md section R51): stacked-deck scenarios citing their rules.

A scenario deals known hands (``r51_game``: the dealer's hand is given with its 15th card
last), plays the turns action by action as a bot would write them, and checks the state and
the points after each step. Most tables have two seats, dealer 0, so the first cycle is the
dealer's discard (the tournante) and one turn of seat 1.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from conftest import (
    all_cards,
    bot_target,
    card,
    cards,
    draw_and_discard,
    hand,
    play,
    refused,
    stacked_deck,
    state,
    table,
)
from test_conformance import assert_log_replays, playout

from arena.actions import Draw, LayOff, Placed, Play
from arena.advice import deadwood_points, going_out_card, hand_points, suggest_lay
from arena.cards import Card, deck
from arena.engine.view import View
from arena.errors import BadInput, IllegalAction
from arena.records import replay
from arena.referee import Clock, FaultPolicy, Referee, play_game
from arena.seats.bot import BotSpec
from arena.seats.make import make_seat
from arena.seats.protocol import ViewDecoder, encode_view
from arena.variants import find_variant
from arena.variants.laying.game import LayingRules
from arena.variants.laying.hand import whole_hand
from arena.variants.laying.table import (
    add_to_meld,
    build_meld,
    joker_readings,
    meld_points,
    resolved,
    take_back,
)
from arena.variants.rummy51 import Rummy51

R51_DECK = Counter(deck(decks=2, jokers=4))
R51 = LayingRules(prefix="R51")
RANDOM = BotSpec("random", "bots.random_bot:RandomBot")
GREEDY = BotSpec("greedy", "bots.greedy:GreedyBot")

# Two hands without a single combination, for seats that only draw and discard.
JUNK_15 = "2S 5S 8S JS 3H 6H 9H QH 4D 7D 10D KD AC 5C KS"
JUNK_14 = "AS 4S 7S 10S 2H 5H 8H JH 3D 6D 9D QD 2C 9C"


def r51_game(hands: Sequence[str], *, stock: str = "", dealer: int = 0, fill: bool = True,
             **options: Any) -> Rummy51:
    """A game whose first round deals ``hands`` by seat; the dealer's is given with 15
    cards, its last card being the one dealt after the others (R51-3)."""
    options.setdefault("players", len(hands))
    per_seat = [cards(h) for h in hands]
    extra = per_seat[dealer].pop()
    first = stacked_deck(per_seat, extras=[extra], stock=stock, dealer=dealer,
                         deck_cards=R51_DECK, fill=fill)
    return Rummy51(seed=0, options=options, decks=[first], dealer=dealer)


def placed(text: str) -> list[Placed]:
    """Cards as a bot places them: ``JK=8H 6H 7H``."""
    return [Placed.parse(t) for t in text.split()]


def first_cycle(game: Rummy51, tournante: str, *discards: str, take: bool = False) -> None:
    """The dealer discards the tournante; each other seat draws from the stock (or, with
    ``take``, the first one takes the tournante) and discards."""
    play(game, f"discard {tournante}")
    for i, out in enumerate(discards):
        play(game, "tournante" if take and i == 0 else "stock")
        play(game, f"discard {out}")


# --------------------------------------------------------------------------- table and deal


def test_r51_1_players_2_to_4_and_teams_need_four() -> None:
    assert Rummy51(seed=1).players == 4
    for n in (2, 3, 4):
        assert len(Rummy51(seed=1, options={"players": n}).hands) == n
    for bad in (1, 5, "4", True):
        with pytest.raises(BadInput, match=r"'players'.*R51-1"):
            Rummy51(seed=1, options={"players": bad})
    assert Rummy51(seed=1, options={"teams": True}).rules.teams
    with pytest.raises(BadInput, match=r"'teams' = True: expected false, or true with "
                                       r"players: 4 \(R51-1\)"):
        Rummy51(seed=1, options={"teams": True, "players": 3})


def test_r51_options_defaults_and_registry() -> None:
    assert Rummy51(seed=1).options == {
        "players": 4, "teams": False, "jokers": 4, "ace_high_value": 10, "opening": 51,
        "match": {"rounds": 4}, "draw_cap": 200}
    for options, rule in (({"jokers": 3}, "R51-2"), ({"ace_high_value": 1}, "R51-5"),
                          ({"opening": 61}, "R51-19"), ({"match": {"deals": 2}}, "R51-18"),
                          ({"match": {"rounds": 0}}, "R51-18"), ({"draw_cap": 0}, "R51-21"),
                          ({"mode": "simple"}, "unknown")):
        with pytest.raises(BadInput, match=rule):
            Rummy51(seed=1, options=options)
    for name in ("rummy51", "r51", "rami51", "Rummy51", "rummy51/v1"):
        assert find_variant(name) is Rummy51
    assert Rummy51.version == "rummy51/v1"


@pytest.mark.parametrize(("jokers", "size"), [(4, 108), (2, 106)])
def test_r51_2_deck_of_two_decks_and_jokers(jokers: int, size: int) -> None:
    game = Rummy51(seed=3, options={"jokers": jokers})
    assert sum(Counter(game.all_cards()).values()) == size
    assert Counter(game.all_cards())[Card.JOKER] == jokers
    assert all_cards(game) == Counter(deck(decks=2, jokers=jokers))


def test_r51_3_fourteen_each_fifteen_to_the_dealer_no_face_up_card() -> None:
    game = Rummy51(seed=5)
    dealer = game.dealer
    assert [len(h) for h in game.hands] == [15 if s == dealer else 14 for s in range(4)]
    assert len(game.stock) == 51 and game.pile == [] and game.tournante is None
    assert (game.to_act, game.decision) == (dealer, "play")  # his first turn has no draw
    view = game.view(dealer)
    assert view.legal_draws == () and view.drawn is None and view.kept is None
    with pytest.raises(IllegalAction, match="R51-7"):
        game.apply(Draw("stock"))


def test_r51_3_deal_order_from_the_dealers_left() -> None:
    game = r51_game([JUNK_15, JUNK_14], stock="8C 7C", dealer=0)
    assert hand(game, 0) == sorted(JUNK_15.split()) and hand(game, 1) == sorted(JUNK_14.split())
    assert game.stock[-2:] == cards("7C 8C")
    game = r51_game([JUNK_14, JUNK_15], stock="8C", dealer=1)
    assert len(game.hands[1]) == 15 and game.to_act == 1


def test_r51_4_first_dealer_from_the_rng_then_passes_on() -> None:
    for seed in range(4):
        game = Rummy51(seed=seed, options={"players": 3, "draw_cap": 1})
        first = random.Random(seed).randrange(3)
        for r in range(3):
            assert (game.round, game.dealer, game.to_act) == (r + 1, (first + r) % 3,
                                                              (first + r) % 3)
            play(game, f"discard {game.safe_card(game.to_act)}")
            play(game, "stock")
            game.apply(game.safe_action())
        assert game.finished and [r.reason for r in game.results] == ["draw_cap"] * 3


# --------------------------------------------------------------------------- values, combinations


def test_r51_5_card_values_and_the_rule_examples() -> None:
    for text, count in (("5H 6H 7H", 18), ("9S 9H 9D", 27), ("AH 2H 3H", 6),
                        ("QS KS AS", 30), ("AS AH AD", 30)):
        assert meld_points(cards(text), ace=10) == count, text
    assert meld_points(cards("QS KS AS"), ace=11) == 31
    assert meld_points(cards("AH 2H 3H"), ace=11) == 6  # low: the ace counts 1
    meld = build_meld(placed("JK=8H 6H 7H"), R51, owner=0)
    assert meld_points(resolved(meld), ace=10) == 21  # JK 6H 7H with JK=8H


def test_r51_6_combinations_from_the_rule_examples() -> None:
    for text in ("5H 6H 7H", "9S 9H 9D", "9S 9H JK", "QS KS AS", "AS 2S 3S"):
        assert Rummy51.meld_report(cards(text), wild=None, round=None, options={}).valid
    for text, why in (("JK 4H JK", "R51-6: at most 1 wild"), ("9S 9S 9H", "R51-6: a set needs"),
                      ("9S 9H 9D 9C JK", "R51-6: a set holds at most 4"),
                      ("KS AS 2S", "R51-6: ranks are not consecutive")):
        report = Rummy51.meld_report(cards(text), wild=None, round=None, options={})
        assert not report.valid and report.reason is not None
        assert report.reason.startswith(why), text


def test_com_15_joker_readings_and_naming() -> None:
    """COM-15: where two cards fit the player names one; where one fits it is inferred; in a
    3-card set the joker stands for any missing suit."""
    assert [str(c) for c in joker_readings(cards("6H 7H"), R51)] == ["5H", "8H"]
    assert [str(c) for c in joker_readings(cards("5H 7H"), R51)] == ["6H"]
    assert [str(c) for c in joker_readings(cards("QH KH"), R51)] == ["JH", "AH"]
    assert [str(c) for c in joker_readings(cards("AH 2H"), R51)] == ["3H"]
    assert [str(c) for c in joker_readings(cards("9S 9H"), R51)] == ["9D", "9C"]
    with pytest.raises(IllegalAction, match="COM-15: meld: two cards fit, name the one the "
                                            "joker stands for: JK=5H or JK=8H"):
        build_meld(placed("JK 6H 7H"), R51, owner=0)
    with pytest.raises(IllegalAction, match=r"COM-15.*cannot stand for 9H"):
        build_meld(placed("JK=9H 6H 7H"), R51, owner=0)
    with pytest.raises(IllegalAction, match="COM-15: meld: only a joker stands"):
        build_meld(placed("8H=8H 6H 7H"), R51, owner=0)
    hole = build_meld(placed("5H JK 7H"), R51, owner=1)
    assert (hole.owner, hole.stands_for) == (1, (None, card("6H"), None))
    three = build_meld(placed("JK 9S 9H"), R51, owner=0)
    assert [str(c) for c in resolved(three)] == ["9S", "9H", "9D"]


def test_r51_13_additions_and_take_backs_keep_combinations_valid() -> None:
    """R51-13 examples: 5S takes the joker of 4S JK 6S; 9D or 9C takes that of 9S 9H JK."""
    run = build_meld(placed("4S JK 6S"), R51, owner=0)
    back = take_back(run, card("5S"), R51)
    assert [str(c) for c in back.cards] == ["4S", "5S", "6S"] and back.stands_for == (None,) * 3
    with pytest.raises(IllegalAction, match="R51-13: take: 7S does not take the joker back: "
                                            "the joker stands for 5S"):
        take_back(run, card("7S"), R51)
    three = build_meld(placed("9S 9H JK"), R51, owner=0)
    for taker in ("9D", "9C"):
        assert [str(c) for c in take_back(three, card(taker), R51).cards] == \
            sorted(["9S", "9H", taker], key=lambda t: "SHDC".index(t[-1]))
    with pytest.raises(IllegalAction, match="R51-13"):
        take_back(three, card("9S"), R51)
    four = add_to_meld(three, [Placed(card("9D"))], R51)  # the joker is read again: 9C
    assert [str(c) for c in resolved(four)] == ["9S", "9H", "9D", "9C"]
    with pytest.raises(IllegalAction, match="R51-13"):
        take_back(four, card("9D"), R51)
    assert take_back(four, card("9C"), R51).stands_for == (None,) * 4
    longer = add_to_meld(run, [Placed(card("7S")), Placed(card("3S"))], R51)
    assert [str(c) for c in resolved(longer)] == ["3S", "4S", "5S", "6S", "7S"]
    with pytest.raises(IllegalAction, match=r"R51-13: lay: the joker stands for 5S: put it "
                                            r"down with a take-back \(take N 5S\)"):
        add_to_meld(run, [Placed(card("5S"))], R51)
    for bad, rule in (("5S", "R51-13"), ("8S", "R51-13"), ("JK=7S", "R51-6")):
        with pytest.raises(IllegalAction, match=rule):
            add_to_meld(run, [Placed.parse(bad)], R51)


# --------------------------------------------------------------------------- the first cycle


def test_r51_8_tournante_taken_by_the_next_seat() -> None:
    game = r51_game([JUNK_15, JUNK_14], stock="8C 7C 4C")
    assert refused(game, "meld 2S 5S 8S; discard KS").rule == "R51-8"  # nothing laid
    play(game, "discard KS")
    assert game.tournante == card("KS") and game.pile == [] and len(game.hands[0]) == 14
    assert game.history[-1].kind == "discard" and game.history[-1].cards == (card("KS"),)
    view = game.view(1)
    assert view.part.tournante == card("KS") and view.part.first_cycle
    assert view.legal_draws == ("stock", "tournante")
    assert refused(game, "discard").rule == "R51-8"  # taking the discard pile is impossible
    play(game, "tournante")
    assert game.tournante is None and game.draws == 1 and len(game.hands[1]) == 15
    assert game.history[-1].kind == "take" and game.view(1).kept == card("KS")
    assert refused(game, "discard KS").rule == "COM-11"
    assert refused(game, "meld 9C 9D JK; discard AS").rule == "R51-8"  # nothing is laid
    play(game, "discard AS")
    assert game.pile == cards("AS") and (game.to_act, game.decision) == (0, "draw")
    assert not game.first_cycle and game.view(0).legal_draws == ("stock", "discard")


def test_com_11_com_1_neither_copy_of_a_taken_card_is_discarded_that_turn() -> None:
    """COM-11 with COM-1's equal copies: the taken 8H goes to the table, and the other 8H in
    the hand may not be thrown in its place; another card may."""
    game = r51_game(["KC KD KS QS QH QD 6H 7H 8H 4D 10D 3C 5C 7S 9H",
                     "AS 4S 7S 10S 2H 5H 8H JH 3D 6D 9D QD 2C 9C"], stock="2S 3H 4C 8C")
    for move in ("discard 9H", "stock", "discard 2S", "stock",
                 "meld KC KD KS; meld QS QH QD; discard 3H", "stock", "discard 8H", "discard"):
        play(game, move)
    assert game.hands[0].count(card("8H")) == 2
    assert refused(game, "meld 6H 7H 8H; discard 8H").rule == "COM-11"
    play(game, "meld 6H 7H 8H; discard 4D")
    assert game.pile[-1] == card("4D") and card("8H") in game.hands[0]


def test_r51_8_untaken_tournante_goes_under_the_discard_pile() -> None:
    game = r51_game([JUNK_15, JUNK_14], stock="8C 7C 4C")
    first_cycle(game, "KS", "8C")
    assert game.tournante is None and game.pile == cards("KS 8C")
    assert game.view(0).legal_draws == ("stock", "discard")
    assert refused(game, "tournante").rule == "R51-8"


def test_r51_8_a_joker_tournante_can_never_be_taken() -> None:
    """R51-8 (b): the dealer's first discard is a joker: a discarded joker (R51-9), never
    taken; untaken, it goes under the discard pile (R51-8 (d)) and stays there."""
    game = r51_game([JUNK_15.replace("KS", "JK"), JUNK_14], stock="8C 7C 4C")
    play(game, "discard JK")
    assert game.tournante == Card.JOKER and game.view(1).legal_draws == ("stock",)
    err = refused(game, "tournante")
    assert err.rule == "R51-8" and "joker" in str(err)
    assert game.tournante == Card.JOKER and len(game.hands[1]) == 14  # nothing changed
    play(game, "stock")  # 8C
    play(game, "discard 8C")
    assert game.tournante is None and game.pile == cards("JK 8C")
    assert game.view(0).legal_draws == ("stock", "discard")  # 8C on top, the joker under it


def test_r51_8_nobody_lays_in_the_first_cycle_not_even_a_whole_hand() -> None:
    """R51-8 (c), R51-14: seat 1 could lay its whole hand but one; not in the first cycle."""
    whole = "AS 2S 3S 4H 5H 6H 7D 8D 9D 10C JC QC KH KD"
    game = r51_game([JUNK_15, whole], stock="KC 4C")
    play(game, "discard 2S")
    play(game, "stock")
    err = refused(game, "meld AS 2S 3S; meld 4H 5H 6H; meld 7D 8D 9D; meld 10C JC QC KC; "
                        "meld KH KD KS; discard 4C")
    assert err.rule == "R51-8"  # (and KS is the tournante, not in the hand)
    err = refused(game, "meld AS 2S 3S; meld 4H 5H 6H; meld 7D 8D 9D; meld 10C JC QC KC; "
                        "discard KH")
    assert err.rule == "R51-8" and "first cycle" in str(err)


# --------------------------------------------------------------------------- opening


OPENER_63 = "JS QS KS 9H 9D 9C AC 2C 3C 4H 6D 8S 2D 5H KD"  # 30 + 27 + 6, KD the tournante
OPENER_70 = "10H JH QH KH 10S 10D 10C AS 3S 5S 7D 8C 4C 6C"  # 40 + 30, AS to add
OPENER_80 = "10D JD QD KD AD QS QH QC 3H 5D 7C 4S 6S 2C"  # 50 + 30


def three_openers() -> Rummy51:
    game = r51_game([OPENER_63, OPENER_70, OPENER_80], stock="2S 3D 4D 7H 8H 5C")
    first_cycle(game, "KD", "2S", "3D")
    assert game.pile == cards("KD 2S 3D") and game.to_act == 0
    return game


def test_r51_10_r51_11_rising_threshold_rule_example() -> None:
    """R51-11 example: P1 opens with 63 (others need 64), P2 with 70 (P3 needs 71)."""
    game = three_openers()
    assert [game.view(s).part.threshold for s in range(3)] == [51, 51, 51]
    play(game, "stock")
    play(game, "meld JS QS KS; meld 9H 9D 9C; meld AC 2C 3C; discard 4D")
    assert game.opened == [True, False, False] and game.best_opening == 63
    assert table(game) == ["JS QS KS", "9H 9D 9C", "AC 2C 3C"]
    assert [e.kind for e in game.history[-4:]] == ["meld", "meld", "meld", "discard"]
    assert game.view(1).part.threshold == 64 and game.view(2).part.opened == (True, False, False)
    play(game, "stock")  # 7H
    # 60 in new combinations; the addition of AS (R51-13) does not count (R51-10):
    err = refused(game, "meld 10H JH QH; meld 10S 10D 10C; lay 0 AS; discard 7H")
    assert err.rule == "R51-11" and "needs 64" in str(err) and "count 60" in str(err)
    play(game, "meld 10H JH QH KH; meld 10S 10D 10C; lay 0 AS; discard 7H")
    assert table(game)[0] == "JS QS KS AS" and game.best_opening == 70
    assert hand(game, 1) == sorted(["3S", "5S", "7D", "8C", "4C", "6C"])
    assert game.view(2).part.threshold == 71
    play(game, "stock")  # 8H
    err = refused(game, "meld JD QD KD AD; meld QS QH QC; discard 8H")
    assert err.rule == "R51-11" and "needs 71" in str(err) and "count 70" in str(err)
    play(game, "meld 10D JD QD KD AD; meld QS QH QC; discard 8H")
    assert game.opened == [True, True, True] and game.view(0).part.threshold == 81


def test_r51_10_opening_rule_examples() -> None:
    """57 and 55 open at 51; 45 does not; the opening must leave a card to discard."""
    rest = "2D 4D 6D 8D 10D QD KH"  # no combination
    game = r51_game(["9S 9H 9D KC KD KS " + rest + " 4C 2C", JUNK_14], stock="8C 7C")
    first_cycle(game, "2C", "8C")
    play(game, "stock")  # 7C
    assert refused(game, "meld 9S 9H 9D; discard 7C").rule == "R51-10"
    play(game, "meld 9S 9H 9D; meld KC KD KS; discard 7C")
    assert game.best_opening == 57 and game.view(1).part.threshold == 58
    game = r51_game(["5H 6H 7H 8H 9H 10H JH 9S 9D AD 2D 4D 8D QC 2C", JUNK_14],
                    stock="8C 7C")
    first_cycle(game, "2C", "8C")
    play(game, "stock")
    err = refused(game, "meld 5H 6H 7H; meld 9S 9D AD; discard 7C")
    assert err.rule == "R51-6"  # not a combination at all
    err = refused(game, "meld 5H 6H 7H; discard 7C")
    assert err.rule == "R51-10" and "needs 51" in str(err) and "count 18" in str(err)
    play(game, "meld 5H 6H 7H 8H 9H 10H JH; discard 7C")
    assert game.best_opening == 55


def test_r51_10_additions_and_take_backs_come_after_an_opening() -> None:
    game = three_openers()
    play(game, "stock")
    play(game, "meld JS QS KS; meld 9H 9D 9C; meld AC 2C 3C; discard 4D")
    play(game, "stock")  # seat 1 has not opened: an addition alone is no opening
    assert refused(game, "lay 0 AS; discard 7H").rule == "R51-10"


# --------------------------------------------------------------------------- taking the discard


TAKER = "5H 6H 7H KS KH KD QS QH QC 2C 4C 6C 8C 10C JC"  # opens 18 + 30 + 30 = 78


def taker_game(**options: Any) -> Rummy51:
    """Seat 0 opens with 78; seat 1 then discards 8H, which seat 0 may take and add."""
    game = r51_game([TAKER, JUNK_14], stock="9S 3S 4S 9H 10H", **options)
    first_cycle(game, "JC", "9S")
    play(game, "stock")  # 3S
    play(game, "meld 5H 6H 7H; meld KS KH KD; meld QS QH QC; discard 3S")
    play(game, "stock")  # 4S
    play(game, "discard 8H")
    assert game.pile == cards("JC 9S 3S 8H") and game.draws == 3
    return game


def test_r51_9_take_the_discard_and_lay_it_rule_example() -> None:
    game = taker_game()
    play(game, "discard")
    assert game.view(0).kept == card("8H") and game.draws == 4
    assert play(game, "lay 0 8H; discard 2C") is None  # no remedy: 8H was laid
    assert table(game)[0] == "5H 6H 7H 8H"
    assert game.history[-2].kind == "lay" and game.history[-2].cards == (card("8H"),)


def test_r51_9_a_taken_discard_that_takes_a_joker_back_is_laid() -> None:
    """R51-9 lists the opening, a new combination, an addition and going out; our ruling
    (docs/rules.md): a taken discard put down to take back a table joker (R51-13) is laid,
    since it stays on the table in the joker's place: no remedy (which would count a
    fault)."""
    game = r51_game(["4S JK 6S KS KH KD QS QH QC 2D 4D 9C 3H 5C 7S",
                     "10S 10H 10D JS JH JD QD KC 5S 2H 4H 9D 3C 8H"],
                    stock="8S 6H 2C 4C 6D 8D 9H")
    first_cycle(game, "7S", "8S")
    play(game, "stock")  # 2C
    play(game, "meld 4S JK=5S 6S; meld KS KH KD; meld QS QH QC; discard 6H")
    play(game, "stock")  # 4C
    play(game, "discard 5S")
    play(game, "discard")  # seat 0, opened, takes 5S
    assert play(game, "take 0 5S; discard 2D") is None  # no remedy: 5S was laid
    assert table(game)[0] == "4S 5S 6S" and Card.JOKER in game.hands[0]


def test_r51_14_an_opening_that_reaches_the_threshold_may_go_out_with_additions() -> None:
    """R51-14 holds an unopened player to new combinations; one whose new combinations
    reach the threshold opens in that turn, and R51-13 then lets him add (docs/rules.md)."""
    game = r51_game(["4S 5S 6S KS KH KD QS QH QC 2D 4D 9C 3H 5C 7S",
                     "10S 10H 10D JS JH JD QD KC QH QC 9S 7S 8S 3C"],
                    stock="8C 6H 10S 4C 6D")
    first_cycle(game, "5C", "8C")
    play(game, "stock")  # 6H
    play(game, "meld 4S 5S 6S; meld KS KH KD; meld QS QH QC; discard 6H")  # 75: 76 next
    play(game, "stock")  # 10S
    play(game, "meld 10S 10H 10D; meld JS JH JD; meld QD QH QC; lay 0 7S 8S 9S 10S; "
               "lay 1 KC; discard 3C")  # 90 >= 76: opened, then adds, then goes out
    assert game.results[-1].penalties[1] == 0 < game.results[-1].penalties[0]


def test_r51_9_remedy_card_back_stock_drawn_asked_again() -> None:
    game = taker_game()
    play(game, "discard")
    remedy = play(game, "discard 2C")  # does not lay 8H: the remedy, not this play
    assert remedy is not None and remedy.startswith("R51-9: the taken discard 8H")
    assert game.pile == cards("JC 9S 3S 8H") and game.draws == 4  # the take is undone
    assert (game.to_act, game.decision) == (0, "play")
    assert game.view(0).drawn == card("9H") and game.view(0).drawn_from == "stock"
    assert card("8H") not in game.hands[0] and card("2C") in game.hands[0]
    assert [str(a) for _, a in game.log[-2:]] == ["discard", "stock"]
    assert [e.kind for e in game.history[-2:]] == ["take", "return"]
    assert play(game, "discard 9H") is None  # the play asked again
    assert game.to_act == 1 and game.pile[-1] == card("9H")


def test_r51_9_remedy_replays_from_the_log() -> None:
    game = taker_game()
    play(game, "discard")
    remedy = play(game, "meld 4C 6C 8C; discard 2C")  # not a combination either: the remedy
    assert remedy is not None and game.view(0).drawn == card("9H")
    again = r51_game([TAKER, JUNK_14], stock="9S 3S 4S 9H 10H")
    for seat, action in game.log:
        assert again.to_act == seat
        again.apply(action)
    assert state(again) == state(game)


def test_r51_9_asking_for_the_stock_is_the_remedy_too() -> None:
    game = taker_game()
    play(game, "discard")
    assert play(game, "stock") is not None and game.view(0).drawn == card("9H")
    assert refused(game, "stock").rule == "R51-7"  # once is all


def test_r51_9_lays_the_card_but_breaks_a_rule_is_an_ordinary_refusal() -> None:
    game = taker_game()
    play(game, "discard")
    assert refused(game, "meld 8H 8C JK; discard 2C").rule == "R51-7"  # no such joker
    assert refused(game, "lay 0 8H; discard 8H").rule == "R51-7"  # not in hand after laying


def test_r51_9_a_discarded_joker_is_never_taken() -> None:
    game = r51_game([TAKER, JUNK_14.replace("8H", "JK")], stock="9S 3S 4S 9H 10H")
    first_cycle(game, "JC", "9S")
    play(game, "stock")
    play(game, "meld 5H 6H 7H; meld KS KH KD; meld QS QH QC; discard 3S")
    play(game, "stock")
    play(game, "discard JK")
    assert game.view(0).legal_draws == ("stock",)
    err = refused(game, "discard")
    assert err.rule == "R51-9" and "joker can never be taken" in str(err)


def test_r51_9_a_player_holding_one_card_draws_from_the_stock() -> None:
    game = taker_game()
    game.hands[0][:] = cards("2C")  # as if he had laid all but one card
    assert game.view(0).legal_draws == ("stock",)
    err = refused(game, "discard")
    assert err.rule == "R51-9" and "holds one card" in str(err)


# --------------------------------------------------------------------------- after opening


JOKERS_54 = "6H 7H JK 9S 9H JK AS 2S 3S 4D 10D QC 5C 2H KC"  # 21 + 27 + 6, KC the tournante
TAKES_70 = "10S 10H 10D 10C 8H QC KC 9C 4S 5D 7C 9H JD AD"  # 40 + (QC KC JK) 30
OPENS_70 = "10S 10H 10D 10C JD QD KD 8H 9C 4S 5D 7C 9H AD"  # 40 + 30 of its own
OPEN_AND_TAKE = "meld 10S 10H 10D 10C; meld JD QD KD; take 0 8H; lay 0 JK=9H; discard 7S"


def jokers_game(second: str = OPENS_70) -> Rummy51:
    game = r51_game([JOKERS_54, second], stock="8C 6S 7S JS 2D")
    first_cycle(game, "KC", "8C")
    play(game, "stock")  # 6S
    err = refused(game, "meld 6H 7H JK; meld 9S 9H JK; meld AS 2S 3S; discard 6S")
    assert err.rule == "COM-15" and "JK=5H or JK=8H" in str(err)
    play(game, "meld 6H 7H JK=8H; meld 9S 9H JK; meld AS 2S 3S; discard 6S")
    assert table(game) == ["6H 7H JK=8H", "9S 9H JK=9D", "AS 2S 3S"]
    assert game.best_opening == 54
    return game


def test_com_15_r51_13_the_table_shows_what_each_joker_stands_for() -> None:
    game = jokers_game()
    view = game.view(1)
    assert view.table[0].stands_for == (None, None, card("8H"))
    assert view.table[0].owner == 0 and view.part.opened == (True, False)


def test_r51_10_a_joker_taken_back_in_the_opening_turn_never_counts() -> None:
    """R51-10: 40 of its own and QC KC with the joker taken back (30) would open at 70, but
    that joker may not count toward the opening, whatever the order of the play."""
    game = jokers_game(TAKES_70)
    play(game, "stock")  # 7S
    before = (hand(game, 1), table(game), game.best_opening)
    assert refused(game, "take 0 8H; discard 7S").rule == "R51-10"  # no opening with it
    for text in ("meld 10S 10H 10D 10C; take 0 8H; meld QC KC JK=AC; discard 7S",
                 "take 0 8H; meld 10S 10H 10D 10C; meld QC KC JK=AC; discard 7S"):
        err = refused(game, text)
        assert err.rule == "R51-10" and "never counts toward the opening" in str(err)
    assert (hand(game, 1), table(game), game.best_opening) == before  # nothing was laid
    assert refused(game, "meld 10S 10H 10D 10C; discard 7S").rule == "R51-11"  # 40 < 55


def test_r51_13_take_back_in_the_opening_turn_and_add_the_joker() -> None:
    """R51-13: from his opening turn on, including the rest of it; the joker taken back goes
    into an addition, which does not count toward the opening (R51-10)."""
    game = jokers_game()
    play(game, "stock")  # 7S
    err = refused(game, "meld 10S 10H 10D 10C; meld JD QD KD; take 0 7C; discard 7S")
    assert err.rule == "R51-13" and "the joker stands for 8H" in str(err)
    play(game, OPEN_AND_TAKE)
    assert table(game) == ["6H 7H 8H JK=9H", "9S 9H JK=9D", "AS 2S 3S", "10S 10H 10D 10C",
                           "JD QD KD"]
    assert game.best_opening == 70 and jokers_on_table(game) == 2
    assert [e.kind for e in game.history[-5:]] == ["take_back", "lay", "meld", "meld",
                                                   "discard"]
    assert game.history[-5].cards == (card("8H"), Card.JOKER)
    assert hand(game, 1) == sorted(["9C", "4S", "5D", "7C", "9H", "AD"])


def test_r51_13_three_card_set_any_missing_suit_takes_the_joker_back() -> None:
    game = jokers_game()
    play(game, "stock")
    play(game, OPEN_AND_TAKE)
    play(game, "stock")  # JS
    assert refused(game, "take 1 9C; discard JS").rule == "R51-7"  # seat 0 holds no 9C
    assert refused(game, "take 5 4D; discard JS").rule == "R51-13"  # no combination 5
    play(game, "discard JS")
    play(game, "stock")  # 2D
    err = refused(game, "take 1 9H; discard 2D")  # 9H is in the set already
    assert err.rule == "R51-13" and "another missing suit" in str(err)
    play(game, "take 1 9C; lay 2 4S JK=5S; discard 2D")  # JK stood for 9D: 9C takes it too
    assert table(game)[1:3] == ["9S 9H 9C", "AS 2S 3S 4S JK=5S"]
    assert hand(game, 1) == sorted(["5D", "7C", "9H", "AD"])


def test_r51_13_a_joker_taken_back_may_be_kept() -> None:
    game = jokers_game()
    play(game, "stock")
    play(game, OPEN_AND_TAKE)
    play(game, "stock")
    play(game, "discard JS")
    play(game, "stock")
    play(game, "take 1 9C; discard 2D")
    assert Card.JOKER in game.hands[1] and jokers_on_table(game) == 1
    assert game.view(0).hand_sizes == (5, 6)


def jokers_on_table(game: Rummy51) -> int:
    return sum(m.cards.count(Card.JOKER) for m in game.table)


# --------------------------------------------------------------------------- going out


LOW_WHOLE = "AS 2S 3S AH 2H 3H 4D 5D 6D 7D AC 2C 3C 4C"  # 6 + 6 + 22 + 10 = 44
OPENS_67 = "JS QS KS 9H 9D 9C AC 2C 3C 4C KH 4D JK AH 8S"  # 67; keeps KH 4D JK AH


def test_r51_14_rami_sec_below_the_threshold_nothing_doubled() -> None:
    game = r51_game([JUNK_15, LOW_WHOLE], stock="KH 8C 9S")
    first_cycle(game, "KS", "KH")
    play(game, "stock")
    play(game, "discard 8C")
    play(game, "stock")  # 9S
    play(game, "meld AS 2S 3S; meld AH 2H 3H; meld 4D 5D 6D 7D; meld AC 2C 3C 4C; discard 9S")
    result = game.results[0]
    assert (result.reason, result.penalties) == ("rami_sec", (100, 0))  # R51-16: not opened
    assert game.last_summary.hands[1] == () and game.round == 2


def test_r51_14_r51_16_going_out_at_once_after_another_opened() -> None:
    """R51-16 example: the opened seat holding KS 4D JK AH (here KH) pays 44."""
    game = r51_game([OPENS_67, LOW_WHOLE], stock="KD 5C 9S")
    first_cycle(game, "8S", "KD")
    play(game, "stock")  # 5C
    play(game, "meld JS QS KS; meld 9H 9D 9C; meld AC 2C 3C 4C; discard 5C")
    assert hand(game, 0) == sorted(["KH", "4D", "JK", "AH"]) and game.view(1).part.threshold == 68
    play(game, "stock")  # 9S
    err = refused(game, "meld AS 2S 3S; meld AH 2H 3H; meld 4D 5D 6D 7D; meld AC 2C 3C; "
                        "lay 1 9S; discard 4C")
    assert err.rule == "R51-14" and "new combinations only" in str(err)
    play(game, "meld AS 2S 3S; meld AH 2H 3H; meld 4D 5D 6D 7D; meld AC 2C 3C 4C; discard 9S")
    assert game.results[0].penalties == (44, 0) and game.results[0].reason == "rami_sec"
    assert game.totals == [44, 0]


def test_r51_16_ace_high_value_11_in_hand_and_in_counts() -> None:
    game = r51_game([OPENS_67, LOW_WHOLE], stock="KD 5C 9S", ace_high_value=11)
    first_cycle(game, "8S", "KD")
    play(game, "stock")
    play(game, "meld JS QS KS; meld 9H 9D 9C; meld AC 2C 3C 4C; discard 5C")
    assert game.best_opening == 67  # the ace of AC 2C 3C 4C is low: 1
    play(game, "stock")
    play(game, "meld AS 2S 3S; meld AH 2H 3H; meld 4D 5D 6D 7D; meld AC 2C 3C 4C; discard 9S")
    assert game.results[0].penalties == (45, 0)  # KH 10 + 4D 4 + JK 20 + AH 11


WHOLE_WITH_JOKER = "KS KH KD KC QS QH QD 9S 9H 9D 4C 5C 6C JK 3C"  # 3C the tournante


def test_r51_7_r51_15_the_last_card_may_be_a_joker_and_a_card_is_left_for_it() -> None:
    game = r51_game([WHOLE_WITH_JOKER, JUNK_14], stock="8C 7C")
    first_cycle(game, "3C", "8C")
    play(game, "stock")  # 7C
    err = refused(game, "meld KS KH KD KC; meld QS QH QD; meld 9S 9H 9D; "
                        "meld 4C 5C 6C 7C JK=8C; discard 5C")
    assert err.rule == "R51-7" and "a card must be left" in str(err)
    play(game, "meld KS KH KD KC; meld QS QH QD; meld 9S 9H 9D; meld 4C 5C 6C 7C; discard JK")
    assert game.results[0].reason == "rami_sec" and game.results[0].penalties == (0, 100)
    assert game.last_summary.hands[0] == ()


# --------------------------------------------------------------------------- teams


TEAM_HANDS = ["KS KH KD QS QH QD 2S 5S 8S 3H 6H 9H 7D 10D JC", JUNK_14,
              "AD 2D 3D 2S 2H 2C 3S 3H 3C 4S 4H 4C 4D KC",
              "3S 6S 9S KH 7H 10H AD 5D 8D JD 4C 7C 10C KC"]
TEAM_STOCK = "5C 6C 7C 8C 9H JS 10S QC 5H 6D"


def team_game(**options: Any) -> Rummy51:
    """Seat 0 opens with 60 in its second turn; seat 2 is its partner."""
    game = r51_game(TEAM_HANDS, stock=TEAM_STOCK, **{"teams": True, **options})
    first_cycle(game, "JC", "5C", "6C", "7C")
    play(game, "stock")  # 8C
    play(game, "meld KS KH KD; meld QS QH QD; discard 8C")
    return game


def test_r51_12_partner_treated_as_opened_lays_below_the_threshold() -> None:
    game = team_game()
    assert game.view(1).part.opened == (True, False, True, False)
    assert game.view(3).part.threshold == 61
    draw_and_discard(game)  # seat 1
    play(game, "stock")
    play(game, "meld AD 2D 3D; discard JS")  # 6 points: no threshold for seat 2
    assert game.opened == [True, False, False, False]  # R51-11: he makes no opening
    assert game.view(3).part.threshold == 61 and table(game)[-1] == "AD 2D 3D"
    alone = r51_game(TEAM_HANDS, stock=TEAM_STOCK)  # the same play without teams
    first_cycle(alone, "JC", "5C", "6C", "7C")
    play(alone, "stock")
    play(alone, "meld KS KH KD; meld QS QH QD; discard 8C")
    draw_and_discard(alone)
    play(alone, "stock")
    assert refused(alone, "meld AD 2D 3D; discard JS").rule == "R51-11"  # needs 61


def test_r51_17_partner_goes_out_the_other_team_pays_its_sum() -> None:
    game = team_game()
    for _ in range(1):
        draw_and_discard(game)  # seat 1
    play(game, "stock")
    play(game, "meld AD 2D 3D; discard JS")
    for _ in range(3):
        draw_and_discard(game)  # seats 3, 0, 1
    play(game, "stock")  # 6D
    play(game, "meld 2S 2H 2C; meld 3S 3H 3C; meld 4S 4H 4C 4D; lay 0 KC; discard 6D")
    result = game.results[0]
    assert (result.reason, result.penalties) == ("out", (0, 200, 0, 200))
    assert game.totals == [0, 200, 0, 200] and game.round == 2  # a new deal: empty table
    assert game.table == [] and game.view(1).scores == (0, 200, 0, 200)


def test_r51_17_r51_21_draw_cap_in_teams_each_team_pays_its_sum() -> None:
    """Nobody scores 0; seat 2, treated as opened, pays his cards and not 100 (R51-12)."""
    game = team_game(draw_cap=4)  # the opening turn made the fourth draw
    result = game.results[0]
    assert result.reason == "draw_cap"
    # seat 0: 2S 5S 8S 3H 6H 9H 7D 10D = 50; seat 2: 56; seats 1 and 3 never opened: 100
    assert result.penalties == (106, 200, 106, 200)
    assert game.ranks() == (1, 3, 1, 3)


# --------------------------------------------------------------------------- Rummy 71


OPENS_WITH_JOKER = "JK KS AS 10H 10D 10C JH JD JC 4S 7D 9C 2H 5C QD"  # QS=JK: 30 + 30 + 30


def test_r51_19_rummy_71_no_joker_in_the_opening_turn() -> None:
    game = r51_game([OPENS_WITH_JOKER, JUNK_14], stock="8C QS 3D 6C", opening=71)
    assert game.view(0).part.threshold == 71 and game.rules.joker_free_opening
    first_cycle(game, "QD", "8C")
    play(game, "stock")  # QS
    err = refused(game, "meld JK=QS KS AS; meld 10H 10D 10C; meld JH JD JC; discard 4S")
    assert err.rule == "R51-19"
    assert refused(game, "meld 10H 10D 10C; meld JH JD JC; discard 4S").rule == "R51-10"
    play(game, "meld QS KS AS; meld 10H 10D 10C; meld JH JD JC; discard 4S")
    assert game.best_opening == 90 and game.view(1).part.threshold == 91
    draw_and_discard(game)  # seat 1
    play(game, "stock")  # 6C: from the next turn on, jokers are free
    play(game, "lay 0 JK=JS; discard 6C")
    assert table(game)[0] == "JK=JS QS KS AS"


def test_r51_19_rummy_71_no_joker_going_out_at_once_unopened() -> None:
    game = r51_game([WHOLE_WITH_JOKER, JUNK_14], stock="8C 7C", opening=71)
    first_cycle(game, "3C", "8C")
    play(game, "stock")  # 7C
    err = refused(game, "meld KS KH KD KC; meld QS QH QD; meld 9S 9H JK; meld 4C 5C 6C 7C; "
                        "discard 9D")
    assert err.rule == "R51-19"
    play(game, "meld KS KH KD KC; meld QS QH QD; meld 9S 9H 9D; meld 4C 5C 6C 7C; discard JK")
    assert game.results[0].penalties == (0, 100)


def test_r51_19_rummy71_by_name_opens_at_71() -> None:
    """The name ``rummy71`` plays Rummy 71 (a 71 opening, no joker in it) without any
    option; ``rummy51`` keeps 51; either takes the other's opening as an option."""
    r71, r51 = find_variant("rummy71"), find_variant("r51")
    assert r71 is not r51 and find_variant("r71") is r71
    game = r71(seed=5)
    assert game.options["opening"] == 71 and game.rules.joker_free_opening
    assert game.view(game.to_act).part.threshold == 71
    assert r51(seed=5).options["opening"] == 51
    assert r71(seed=5, options={"opening": 51}).rules.opening == 51
    record = play_game(r71, [BotSpec("g", "bots.greedy:GreedyBot")] * 2, seed=3,
                       options={"players": 2})
    assert record.variant == "rummy71/v1"
    assert tuple(replay(record).totals) == record.totals


# --------------------------------------------------------------------------- game length


def quick_rounds(game: Rummy51) -> None:
    """Every round ends at its first stock draw (draw_cap 1): both seats pay 100."""
    while not game.finished:
        game.apply(game.safe_action())


def test_r51_18_rounds_default_to_the_number_of_players() -> None:
    game = Rummy51(seed=2, options={"players": 3, "draw_cap": 1})
    quick_rounds(game)
    assert len(game.results) == 3 and game.totals == [300, 300, 300]
    assert game.ranks() == (1, 1, 1)  # ties share (COM-13)
    game = Rummy51(seed=2, options={"players": 2, "draw_cap": 1, "match": {"rounds": 5}})
    quick_rounds(game)
    assert len(game.results) == 5


def test_r51_18_target_ends_after_the_round_that_reaches_it() -> None:
    game = Rummy51(seed=2, options={"players": 2, "draw_cap": 1, "match": {"target": 250}})
    quick_rounds(game)
    assert len(game.results) == 3 and game.totals == [300, 300]


# --------------------------------------------------------------------------- stock, cap, safe


def test_r51_20_empty_stock_is_reshuffled_from_the_pile() -> None:
    game = r51_game([JUNK_15, JUNK_14], stock="8C 7C 4C", fill=False)
    first_cycle(game, "KS", "8C")
    draw_and_discard(game)  # 7C
    draw_and_discard(game)  # 4C
    assert game.stock == [] and game.pile == cards("KS 8C 7C 4C")
    play(game, "stock")  # COM-12: KS 8C 7C become the stock, 4C stays up
    assert game.pile == cards("4C") and len(game.stock) == 2
    assert Counter([*game.stock, game.turn.drawn]) == Counter(cards("KS 8C 7C"))


def test_r51_20_r51_21_dead_stock_nobody_scores_zero() -> None:
    game = r51_game([JUNK_15, JUNK_14], fill=False)
    play(game, "discard KS")  # the tournante is set aside: the pile is empty
    play(game, "stock")
    result = game.results[0]
    assert (result.reason, result.penalties) == ("dead_stock", (100, 100))


def test_r51_21_draw_cap_after_the_capping_turn_opened_seat_pays_cards() -> None:
    game = r51_game([OPENS_67, JUNK_14], stock="KD 5C 9S", draw_cap=2)
    first_cycle(game, "8S", "KD")
    play(game, "stock")  # the second draw: seat 0 still plays his turn
    assert not game.results
    play(game, "meld JS QS KS; meld 9H 9D 9C; meld AC 2C 3C 4C; discard 5C")
    result = game.results[0]
    assert (result.reason, result.penalties) == ("draw_cap", (44, 100))


def test_r51_22_safe_action_dealers_first_turn_makes_the_tournante() -> None:
    game = r51_game([JUNK_15, JUNK_14], stock="8C 7C")
    safe = game.safe_action()  # the costliest non-joker: value 10, rank K, then S first
    assert safe == Play(discard=card("KS"))
    game.apply(safe)
    assert game.tournante == card("KS") and game.pile == []


def test_r51_22_safe_action_keeps_a_taken_tournante() -> None:
    game = r51_game([JUNK_15, JUNK_14], stock="8C 7C")
    play(game, "discard KS")
    assert game.safe_action() == Draw("stock")
    play(game, "tournante")
    assert game.safe_action() == Play(discard=card("QD"))  # not KS, taken this turn
    game.apply(game.safe_action())
    assert card("KS") in game.hands[1] and game.pile == cards("QD")


def test_r51_22_safe_action_returns_a_taken_discard_first() -> None:
    game = taker_game()
    play(game, "discard")
    safe = game.safe_action()
    assert isinstance(safe, Play) and not safe.lays_anything
    remedy = game.apply(safe)  # the remedy: 8H goes back, 9H is drawn ...
    assert remedy is not None and game.view(0).drawn == card("9H")
    assert game.safe_action() == Play(discard=card("9H"))  # ... and is discarded
    game.apply(game.safe_action())
    assert game.pile[-2:] == cards("8H 9H") and game.to_act == 1


# --------------------------------------------------------------------------- the referee


class TakesAndDiscards:
    """Takes every discard it may, never lays it: the R51-9 remedy each time."""

    def draw(self, view: View) -> Draw:
        return Draw("discard" if "discard" in view.legal_draws else "stock")

    def play(self, view: View) -> Play:
        keep = [c for c in view.hand if c != view.kept]
        return Play(discard=view.drawn if view.drawn_from == "stock" else keep[0])


class TakesAndLaysBadly:
    """Takes every discard it may and lays it in no combination: an ordinary fault."""

    def draw(self, view: View) -> Draw:
        return Draw("discard" if "discard" in view.legal_draws else "stock")

    def play(self, view: View) -> Play | str:
        if view.drawn_from == "discard":
            return f"meld {view.kept} {view.kept} {view.kept}; discard {view.hand[0]}"
        return Play(discard=view.drawn or view.hand[0])


def _spec(cls: type) -> BotSpec:
    return BotSpec(cls.__name__, f"{__file__}:{cls.__name__}")


@pytest.mark.parametrize("seed", [1, 2])
def test_r51_9_remedy_through_the_referee_one_fault_each_and_replays(seed: int) -> None:
    record = play_game(Rummy51, [_spec(TakesAndDiscards), GREEDY], seed=seed,
                       options={"players": 2, "match": {"rounds": 1}})
    taker = record.seats[0]
    takes = [i for i, a in enumerate(record.actions) if a == "0 discard"]
    assert takes and taker.faults["illegal"] == len(takes) == sum(taker.faults.values())
    assert all(record.actions[i + 1] == "0 stock" for i in takes)
    assert sum(record.seats[1].faults.values()) == 0
    assert tuple(replay(record).totals) == record.totals


def test_r51_9_r51_22_taken_card_laid_badly_is_a_fault_then_the_safe_action() -> None:
    record = play_game(Rummy51, [_spec(TakesAndLaysBadly), GREEDY], seed=3,
                       options={"players": 2, "match": {"rounds": 1}})
    takes = [i for i, a in enumerate(record.actions) if a == "0 discard"]
    assert takes and record.seats[0].faults["illegal"] == len(takes)
    for i in takes:  # the card went back, the stock card drawn in its place was discarded
        assert record.actions[i + 1] == "0 stock"
        assert record.actions[i + 2].startswith("0 discard ")
    assert tuple(replay(record).totals) == record.totals


# --------------------------------------------------------------------------- advice and bots


def test_r51_advice_suggests_the_opening_without_the_take_back() -> None:
    """R51-10: the advice opens with the hand's own cards, never with a joker taken back."""
    game = jokers_game(TAKES_70)
    play(game, "stock")  # 7S
    view = game.view(1)
    lay = suggest_lay(view)  # 8H 9H 10H | 10S 10D 10C = 57 of its own
    assert lay is not None and not lay.goes_out
    assert hand_points(view) == 100  # not opened yet (R51-16)
    game.apply(lay.play(next(c for c in lay.rest if c != view.kept)))
    assert game.opened[1] and game.best_opening >= 55
    game = jokers_game(TAKES_70)
    play(game, "stock")
    game.hands[1].remove(card("9H"))  # without 8H 9H 10H only taken jokers would reach 55
    game.hands[1].append(card("2D"))
    assert suggest_lay(game.view(1)) is None


def test_r51_advice_taking_a_discard_only_when_it_can_be_laid() -> None:
    game = taker_game()
    view = game.view(0)
    lay = suggest_lay(view, taking=card("8H"))
    assert lay is not None and card("8H") in lay.placed
    assert LayOff(0, (Placed(card("8H")),)) in lay.layoffs
    assert suggest_lay(view, taking=card("2D")) is None
    assert going_out_card(view) is None  # R51 goes out by laying
    assert deadwood_points(view) == sum(game.rules.hand_value(c) for c in game.hands[0])


def test_r51_hand_and_meld_calculators() -> None:
    report = Rummy51.hand_report(cards("KS 4D JK AH"), wild=None, round=None, options={})
    assert (report.points, report.valid_declaration, report.deadwood) == (
        44, False, tuple(sorted(cards("KS 4D JK AH"))))
    report = Rummy51.hand_report(cards(LOW_WHOLE + " 9S"), wild=None, round=None, options={})
    assert report.valid_declaration and len(report.melds) == 4 and report.points == 80
    spare_joker = cards("KS KH KD KC QS QH QD 9S 9H 9D 4C 5C 6C JK")  # JK the discard
    needs_joker = cards("KS KH KD KC QS QH QD 9S 9H 2D 4C 5C 6C JK")  # 9S 9H JK
    for hand_, in_71 in ((spare_joker, True), (needs_joker, False)):
        assert Rummy51.hand_report(hand_, wild=None, round=None, options={}).valid_declaration
        assert Rummy51.hand_report(hand_, wild=None, round=None,
                                   options={"opening": 71}).valid_declaration is in_71
    rules_71 = Rummy51.laying_rules(Rummy51(seed=0, options={"opening": 71}).options)
    assert whole_hand(needs_joker, rules_71, opened=True) is not None  # R51-19: opened
    for few in ("AS", "AS 2S 3S"):  # no combination and a discard
        assert not Rummy51.hand_report(cards(few), wild=None, round=None,
                                       options={}).valid_declaration
    assert Rummy51.hand_report(cards("AS 2S 3S 9C"), wild=None, round=None,
                               options={}).valid_declaration
    assert Rummy51.hand_report(cards("AS 2S 3S"), wild=None, round=None,
                               options={"ace_high_value": 11}).points == 16
    with pytest.raises(BadInput, match="--wild"):
        Rummy51.hand_report(cards("AS"), wild=card("7C"), round=None, options={})
    with pytest.raises(BadInput, match="opening"):
        Rummy51.meld_report(cards("AS 2S 3S"), wild=None, round=None, options={"opening": 1})
    assert Rummy51.meld_report(cards("JK 6H 7H"), wild=None, round=None,
                               options={}).kind == "sequence"


def test_r51_views_travel_through_the_protocol() -> None:
    game = jokers_game()
    play(game, "stock")
    view = game.view(1)
    assert ViewDecoder().decode(encode_view(view, 0)) == view
    game = r51_game([JUNK_15, JUNK_14], stock="8C")
    play(game, "discard KS")
    view = game.view(1)
    assert view.part.tournante == card("KS") and view.part.first_cycle and view.allows("take_back")
    assert ViewDecoder().decode(encode_view(view, 0)) == view


@pytest.mark.parametrize(("seed", "options"), [
    (1, {}), (2, {"teams": True}), (3, {"players": 3, "opening": 71}),
    (4, {"players": 2, "jokers": 2, "ace_high_value": 11, "match": {"target": 150}}),
])
def test_r51_bots_play_legally_and_games_replay(seed: int, options: dict[str, Any]) -> None:
    players = options.get("players", 4)
    record = play_game(Rummy51, ([GREEDY, RANDOM] * 2)[:players], seed=seed, options=options)
    assert all(sum(s.faults.values()) == 0 for s in record.seats)
    assert record.termination in ("normal", "draw_cap")
    game = replay(record)
    assert tuple(game.totals) == record.totals and game.finished
    if options.get("teams"):
        assert record.totals[0] == record.totals[2] and record.totals[1] == record.totals[3]


def test_r51_greedy_beats_random() -> None:
    greedy = randoms = 0
    for seed in range(4):
        seats = [GREEDY, RANDOM] if seed % 2 == 0 else [RANDOM, GREEDY]
        record = play_game(Rummy51, seats, seed=seed, options={"players": 2})
        g = seed % 2
        greedy += record.totals[g]
        randoms += record.totals[1 - g]
    assert greedy < randoms


def test_r51_same_game_in_process_and_isolated() -> None:
    options = {"players": 2, "match": {"rounds": 1}, "draw_cap": 30}
    here = play_game(Rummy51, [GREEDY, RANDOM], seed=6, options=options)
    apart = play_game(Rummy51, [GREEDY, RANDOM], seed=6, options=options,
                      isolation="process")
    assert here.actions == apart.actions and here.totals == apart.totals
    assert all(sum(s.faults.values()) == 0 for s in apart.seats)


def test_r51_random_policy_after_a_take_finishes_the_turn() -> None:
    """COM-6 with ``random_legal``: a random draw may take the discard; the remedy and the
    safe action then finish the turn (one fault for the seat that failed)."""
    record = play_game(Rummy51, [_spec(TakesAndLaysBadly), RANDOM], seed=4,
                       options={"players": 2, "match": {"rounds": 1}, "draw_cap": 60},
                       faults=FaultPolicy(policy="random_legal"), clock=Clock())
    assert tuple(replay(record).totals) == record.totals
    assert record.seats[0].faults["illegal"] > 0
    assert sum(record.seats[1].faults.values()) == 0


def with_defaults(**defaults: Any) -> type[Rummy51]:
    """Rummy 51 with other defaults, for the conformance playouts (which use defaults)."""
    options = tuple(dataclasses.replace(o, default=defaults[o.name]) if o.name in defaults
                    else o for o in Rummy51.OPTIONS)
    return type("Rummy51Variant", (Rummy51,), {"OPTIONS": options})


@pytest.mark.parametrize("defaults", [
    {"teams": True}, {"players": 3, "opening": 71},
    {"players": 2, "jokers": 2, "ace_high_value": 11, "match": {"target": 300}},
])
def test_r51_12_r51_19_random_playouts_with_other_options(defaults: dict[str, Any]) -> None:
    """The conformance invariants (COM-4 to COM-6, COM-10) with teams, Rummy 71, 106 cards."""
    variant = with_defaults(**defaults)
    for seed in range(2):
        game = playout(variant, seed)
        assert game.finished
        assert_log_replays(variant, game)
        if defaults.get("teams"):
            assert game.totals[0] == game.totals[2] and game.totals[1] == game.totals[3]


def test_an_accepted_play_is_checked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """R51-10: the opening's lays are made (and its rules checked) once, not again to apply
    them."""
    import arena.variants.laying.game as laying_game

    calls: list[int] = []
    real = laying_game.lay_cards

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(laying_game, "lay_cards", counting)
    game = jokers_game()
    play(game, "stock")
    calls.clear()
    assert play(game, OPEN_AND_TAKE) is None and game.best_opening == 70
    assert len(calls) == 1


def test_r51_7_and_r51_13_refusals_say_what_is_wrong_not_more() -> None:
    """A discard not held, with nothing laid, was refused as 'not in the hand after laying';
    a lay onto an empty table as 'the table has combinations 0 to -1'."""
    game = Rummy51(seed=5)
    held = game.hands[game.to_act]
    other = next(c for c in game.all_cards() if c not in held)
    with pytest.raises(IllegalAction) as refused:
        game.apply(Play(discard=other))
    assert str(refused.value) == f"R51-7: {other} is not in the hand"
    for _ in range(13):  # past the first cycle (R51-8), the table still empty
        game.apply(game.safe_action())
    while game.decision != "play":
        game.apply(game.safe_action())
    assert game.table == []
    hand = game.hands[game.to_act]
    with pytest.raises(IllegalAction) as refused:
        game.apply(Play(discard=hand[0], layoffs=(LayOff(0, (Placed(hand[1]),)),)))
    assert str(refused.value) == f"R51-13: lay 0 {hand[1]}: the table has no combination yet"


class _DeadStock(Rummy51):
    """Rummy 51 whose first round deals two hands and leaves no stock at all (COM-12)."""

    def __init__(self, *, seed: int, options: dict[str, Any] | None = None) -> None:
        per_seat = [cards("KS KH QS QH QD 2S 5S 8S 3H 6H 9H 4D 7D 10D AC"),
                    cards("AS 4S 7S 10S 2H 5H 8H JH 3D 6D 9D QD 2C KC")]
        extra = per_seat[0].pop()
        first = stacked_deck(per_seat, extras=[extra], stock="", dealer=0,
                             deck_cards=R51_DECK, fill=False)
        super().__init__(seed=seed, options=options, decks=[first], dealer=0)


def test_com_10_r51_22_a_remedy_that_ends_the_round_plays_nothing_of_the_next() -> None:
    """Seat 1 takes a discard and crashes: the safe action puts the card back and draws
    from the stock, which is dead, so the round ends (COM-12). Seat 1 deals the next round,
    and the referee played its first discard (the tournante) without asking it."""
    scripts = [["discard AC", "discard", "meld KS KH KC; meld QS QH QD; discard 2S"],
               ["tournante", "discard KC", "discard", "RAISE"]]
    specs = [BotSpec(f"p{i}", bot_target("Scripted"), {"script": s})
             for i, s in enumerate(scripts)]
    seats = [make_seat(s, isolation="inprocess") for s in specs]
    record = Referee(_DeadStock, seats, ["p0", "p1"], seed=5,
                     options={"players": 2, "match": {"rounds": 2}},
                     clock=Clock(draw_ms=5000, play_ms=5000),
                     faults=FaultPolicy(forfeit_after_consecutive=None)).play()
    assert record.rounds[0].reason == "dead_stock"
    assert [sum(s.faults.values()) for s in record.seats] == [0, 1]
    asked = seats[1].bot.asked  # type: ignore[attr-defined]
    in_round_2 = [a for a in asked if a[0] == 2]
    assert in_round_2[0] == (2, "play", 15), asked  # the dealer's first turn: no draw
