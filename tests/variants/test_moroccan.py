"""Moroccan rummy, Tallaj and Simple (RULES.md section MAR): stacked-deck scenarios.

A scenario deals known hands (``mar_game``: the dealer's hand is given with its extra card
last, then the face-up card), plays the turns action by action as a bot would write them,
and checks the state and the points after each step.
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
    card,
    cards,
    draw_and_discard,
    hand,
    play,
    refused,
    stacked_deck,
    table,
)
from test_conformance import assert_log_replays, playout

from arena.actions import Placed, Play
from arena.advice import hand_points, suggest_lay
from arena.cards import Card, deck
from arena.engine.view import View
from arena.errors import BadInput, IllegalAction
from arena.records import replay
from arena.referee import play_game
from arena.seats.bot import BotSpec
from arena.seats.protocol import ViewDecoder, encode_view
from arena.variants import find_variant
from arena.variants.laying.game import LayingRules
from arena.variants.laying.table import build_meld, meld_points, resolved, take_back
from arena.variants.moroccan import Moroccan

MAR_DECK = Counter(deck(decks=2, jokers=4))
MAR = LayingRules(prefix="MAR", franc=True, rights_at_opening=False, lay_in_first_cycle=True,
                  take_joker=True, never_opened_pays=None, opening=71)
RANDOM = BotSpec("random", "bots.random_bot:RandomBot")
GREEDY = BotSpec("greedy", "bots.greedy:GreedyBot")

OPENS_75 = "9H 10H JH QH KS KH KD AS 2S 3S 5C 8C 4D 7H QC"  # MAR-9 example: 39 + 30 + 6
JUNK_14 = "4S 7S 10S 2H 5H 8H JH 3D 6D 9D QD 2C 9C 6S"
JUNK_15 = "2S 5S 8S JS 3H 6H 9H QH 4D 7D 10D KD AC 5C KS"


def mar_game(hands: Sequence[str], *, pile: str, stock: str = "", dealer: int = 0,
             fill: bool = True, **options: Any) -> Moroccan:
    """A game whose first round deals ``hands`` by seat (the dealer's with its extra card
    last), then turns ``pile`` face up; ``stock`` is the stock from its top down."""
    options.setdefault("players", len(hands))
    per_seat = [cards(h) for h in hands]
    extra = per_seat[dealer].pop()
    first = stacked_deck(per_seat, extras=[extra, card(pile)], stock=stock, dealer=dealer,
                         deck_cards=MAR_DECK, fill=fill)
    return Moroccan(seed=0, options=options, decks=[first], dealer=dealer)


# --------------------------------------------------------------------------- table, deal


def test_mar_1_deck_of_108_cards() -> None:
    game = Moroccan(seed=4)
    assert all_cards(game) == MAR_DECK and sum(MAR_DECK.values()) == 108
    assert MAR_DECK[Card.JOKER] == 4


def test_mar_2_players_2_to_6_default_4() -> None:
    assert Moroccan(seed=1).players == 4
    for n in range(2, 7):
        assert len(Moroccan(seed=1, options={"players": n}).hands) == n
    for bad in (1, 7, "3"):
        with pytest.raises(BadInput, match=r"'players'.*MAR-2"):
            Moroccan(seed=1, options={"players": bad})


def test_mar_options_defaults_and_registry() -> None:
    assert Moroccan(seed=1).options == {"players": 4, "mode": "tallaj", "opening": 71,
                                        "joker_in_hand": 20, "match": {"target": 201},
                                        "draw_cap": 200}
    assert Moroccan(seed=1, options={"opening": 51}).rules.opening == 51
    for options, rule in (({"mode": "fast"}, "MAR-3"), ({"opening": 61}, "MAR-9"),
                          ({"mode": "simple", "opening": 51}, "MAR-9"),
                          ({"joker_in_hand": -1}, "MAR-16"), ({"match": {"target": 300}},
                                                               "MAR-17"),
                          ({"match": {"rounds": 3}}, "MAR-17"), ({"draw_cap": 0}, "MAR-19"),
                          ({"teams": True}, "unknown")):
        with pytest.raises(BadInput, match=rule):
            Moroccan(seed=1, options=options)
    for name in ("moroccan", "mar", "rami", "Tallaj", "moroccan/v1"):
        assert find_variant(name) is Moroccan


@pytest.mark.parametrize(("mode", "size"), [("tallaj", 14), ("simple", 13)])
def test_mar_3_mar_4_deal_one_face_up_card_dealer_plays_first(mode: str, size: int) -> None:
    game = Moroccan(seed=6, options={"mode": mode})
    dealer = game.dealer
    assert game.dealer == random.Random(6).randrange(4)  # COM-3
    assert [len(h) for h in game.hands] == [size + (s == dealer) for s in range(4)]
    assert len(game.pile) == 1 and len(game.stock) == 108 - 4 * size - 2
    assert (game.to_act, game.decision) == (dealer, "play")  # no draw: lay, then discard
    view = game.view(dealer)
    assert view.legal_draws == () and view.part.threshold == (71 if mode == "tallaj" else None)


def test_mar_4_the_deal_passes_to_the_next_seat() -> None:
    game = Moroccan(seed=2, options={"players": 3, "draw_cap": 1, "match": {"target": 1000}})
    while not game.finished:
        game.apply(game.safe_action())
    dealers = [r.dealer for r in game.results]
    assert len(dealers) > 3 and dealers == [(dealers[0] + i) % 3 for i in range(len(dealers))]


# --------------------------------------------------------------------------- values, combinations


def test_mar_6_combinations_from_the_rule_examples() -> None:
    check = Moroccan.meld_report
    assert check(cards("KS KH KD"), wild=None, round=None, options={}).kind == "set"
    assert check(cards("QC QD JK"), wild=None, round=None, options={}).kind == "set"
    assert check(cards("AS 2S 3S"), wild=None, round=None, options={}).kind == "pure_sequence"
    assert check(cards("QS KS AS"), wild=None, round=None, options={}).valid
    for bad, why in (("JK 4H JK", "MAR-6: at most 1 wild"), ("5S 5S 5H", "MAR-6: a set needs"),
                     ("KS AS 2S", "MAR-6: ranks"), ("9S 9H 9D 9C JK", "MAR-6: a set holds")):
        report = check(cards(bad), wild=None, round=None, options={})
        assert not report.valid and report.reason is not None and report.reason.startswith(why)


def test_mar_7_values_ace_low_in_a_low_suite() -> None:
    assert meld_points(cards("AS 2S 3S"), ace=10) == 6
    assert meld_points(cards("QS KS AS"), ace=10) == 30
    assert meld_points(cards("AS AH AD"), ace=10) == 30
    assert [MAR.hand_value(c) for c in cards("AS KS 7D JK")] == [10, 10, 7, 20]


def test_mar_11_three_card_tierce_any_missing_suit_takes_the_joker() -> None:
    three = build_meld([Placed.parse(t) for t in ("QC", "QD", "JK")], MAR, owner=1)
    for taker in ("QS", "QH"):
        assert Card.JOKER not in take_back(three, card(taker), MAR).cards
    with pytest.raises(IllegalAction, match="MAR-11"):
        take_back(three, card("QC"), MAR)
    assert [str(c) for c in resolved(three)] == ["QS", "QD", "QC"]  # the first missing suit


# --------------------------------------------------------------------------- first cycle


def test_mar_5_first_cycle_nobody_takes_the_discard_laying_is_allowed() -> None:
    game = mar_game([JUNK_15, JUNK_14], pile="KC", stock="3C 8D 4C")
    play(game, "discard KS")
    assert game.pile == cards("KC KS") and game.view(1).legal_draws == ("stock",)
    err = refused(game, "discard")
    assert err.rule == "MAR-5" and "first cycle" in str(err)
    assert refused(game, "tournante").rule == "MAR-8"
    draw_and_discard(game)  # 3C
    assert not game.first_cycle and game.view(0).legal_draws == ("stock", "discard")


def test_mar_5_a_player_holding_one_card_never_takes_the_discard() -> None:
    game = mar_game([JUNK_15, JUNK_14], pile="KC", stock="3C 8D 4C")
    play(game, "discard KS")
    draw_and_discard(game)
    game.hands[0][:] = cards("2S")  # as if he had laid all but one card
    assert game.view(0).legal_draws == ("stock",)
    err = refused(game, "discard")
    assert err.rule == "MAR-5" and "holds one card" in str(err)  # it cited MAR-8


# --------------------------------------------------------------------------- first lay-down


def test_mar_9_first_lay_down_rule_example_48_refused() -> None:
    game = mar_game(["5H 6H 7H KS KH KD QC QD JK 2C 4C 8D 10S 3D 9C", JUNK_14], pile="KC")
    err = refused(game, "meld 5H 6H 7H; meld KS KH KD; meld QC QD JK; discard 2C")
    assert err.rule == "MAR-9" and "needs 71" in str(err) and "count 48" in str(err)
    assert refused(game, "meld 5H 6H 7H; meld KS KH KD; discard JK").rule == "MAR-9"


def test_mar_9_first_lay_down_rule_example_75_accepted_in_the_dealers_first_turn() -> None:
    game = mar_game([OPENS_75, JUNK_14], pile="KC")
    err = refused(game, "meld 9H 10H JH QH; meld AS 2S 3S; discard 5C")
    assert err.rule == "MAR-9" and "franc tierce" in str(err)
    play(game, "meld 9H 10H JH QH; meld KS KH KD; meld AS 2S 3S; discard 5C")
    assert game.opened == [True, False] and game.best_opening == 75
    assert table(game) == ["9H 10H JH QH", "KS KH KD", "AS 2S 3S"]
    assert game.view(1).part.threshold == 76 and game.view(1).part.opened == (True, False)


def test_mar_9_mar_10_rising_threshold_and_joker_combinations_count_zero() -> None:
    """MAR-10 example: the largest so far is 78, the next player needs 79."""
    s1 = "JD QD KD 9S 9H 9C 6C 7C 8C 2H 4H 2D 5S 10D"  # 30 + 27 + 21 = 78
    s2 = "10S 10H 10D 10C JS QS KS AH 2H 3H 4H 6D JK QH"  # 40 + 30 + 10 = 80
    game = mar_game([OPENS_75, s1, s2], pile="2C", stock="3C 5D")
    play(game, "meld 9H 10H JH QH; meld KS KH KD; meld AS 2S 3S; discard 5C")
    play(game, "stock")  # 3C; laying in the first cycle is allowed (MAR-5)
    play(game, "meld JD QD KD; meld 9S 9H 9C; meld 6C 7C 8C; discard 3C")
    assert game.best_opening == 78 and game.view(2).part.threshold == 79
    play(game, "stock")  # 5D
    err = refused(game, "meld 10S 10H 10D 10C; meld JS QS KS; meld AH 2H 3H; discard 5D")
    assert err.rule == "MAR-10" and "needs 79" in str(err) and "count 76" in str(err)
    err = refused(game, "meld 10S 10H 10D 10C; meld JS QS KS; meld QH JK 6D; discard 5D")
    assert err.rule == "MAR-6"  # QH JK 6D is no combination
    err = refused(game, "meld 10S 10H 10D 10C JK; meld JS QS KS; meld AH 2H 3H; discard 5D")
    assert err.rule == "MAR-6"
    # 40 + 30 counted; 4H 5H JK laid with them counts 0: 70, refused ...
    err = refused(game, "meld 10S 10H 10D 10C; meld JS QS KS; meld 2H 3H 4H JK=5H; discard 5D")
    assert err.rule == "MAR-10" and "count 70" in str(err)
    play(game, "meld 10S 10H 10D 10C; meld JS QS KS; meld AH 2H 3H 4H; discard 5D")
    assert game.best_opening == 80 and game.view(0).part.threshold == 81


# --------------------------------------------------------------------------- after a lay-down


S1_78 = "JD QD KD 9S 9C 9D 6C 7C 8C 5H 6H JK 4S 10D"  # 78, a joker combination, 4S to add


def laid_game(stock: str = "8H 3D 7D 2D 3C") -> Moroccan:
    """Seat 0 lays 75 in the dealer's turn; seat 1 lays 78 and 5H 6H JK=7H in the first
    cycle, then discards 8H."""
    game = mar_game([OPENS_75, S1_78], pile="2C", stock=stock)
    play(game, "meld 9H 10H JH QH; meld KS KH KD; meld AS 2S 3S; discard 5C")
    play(game, "stock")  # 8H
    err = refused(game, "meld JD QD KD; meld 9S 9C 9D; meld 6C 7C 8C; lay 2 4S; discard 8H")
    assert err.rule == "MAR-11"  # in the turn of his first lay-down: nothing else
    play(game, "meld JD QD KD; meld 9S 9C 9D; meld 6C 7C 8C; meld 5H 6H JK=7H; discard 8H")
    assert game.best_opening == 78 and table(game)[-1] == "5H 6H JK=7H"
    assert hand(game, 1) == ["10D", "4S"]
    return game


def test_mar_8_mar_11_take_the_discard_lay_it_take_a_joker_back() -> None:
    game = laid_game()
    assert game.view(0).legal_draws == ("stock", "discard")  # the first cycle is over
    play(game, "discard")  # 8H, which must be laid this turn
    play(game, "lay 0 8H; take 6 7H; lay 1 JK; discard 4D")
    assert table(game)[0] == "8H 9H 10H JH QH" and table(game)[1] == "KS KH KD JK=KC"
    assert table(game)[6] == "5H 6H 7H"
    assert [e.kind for e in game.history[-4:]] == ["take_back", "lay", "lay", "discard"]
    play(game, "stock")  # 3D: from his next turn on, seat 1 adds to any combination
    play(game, "lay 2 4S; discard 3D")
    assert table(game)[2] == "AS 2S 3S 4S" and hand(game, 1) == ["10D"]


def test_mar_8_remedy_taken_discard_not_laid() -> None:
    game = laid_game()
    play(game, "discard")
    remedy = play(game, "discard 4D")
    assert remedy is not None and remedy.startswith("MAR-8: the taken discard 8H")
    assert game.pile[-1] == card("8H") and game.view(0).drawn == card("3D")
    assert [str(a) for _, a in game.log[-2:]] == ["discard", "stock"]
    assert play(game, "discard 3D") is None
    assert game.to_act == 1


def test_mar_8_a_discarded_joker_may_be_taken_and_laid() -> None:
    game = laid_game(stock="8H 3D JK 2D")
    draw_and_discard(game)  # seat 0: 3D
    play(game, "stock")  # seat 1 draws the joker and throws it
    play(game, "discard JK")
    assert game.view(0).legal_draws == ("stock", "discard")
    play(game, "discard")
    play(game, "lay 2 JK; discard 4D")
    assert table(game)[2] == "AS 2S 3S JK=4S"


def test_mar_11_rights_start_the_turn_after_the_first_lay_down() -> None:
    game = laid_game()
    draw_and_discard(game)  # seat 0
    play(game, "stock")  # 7D: seat 1 lays a new combination of any value
    assert refused(game, "lay 2 10D; discard 7D").rule == "MAR-11"  # 10D does not fit
    play(game, "lay 2 4S; discard 7D")
    assert hand(game, 1) == ["10D"]


# --------------------------------------------------------------------------- whole hand


RAMI_SEC = "AS 2S 3S 4S 5S KS KH KD 7C 8C 9C QH QD JK"  # + any card: whole hand


def test_mar_12_mar_15_rami_sec_whole_hand_before_anyone_laid() -> None:
    game = mar_game([JUNK_15, RAMI_SEC], pile="KC", stock="10D")
    play(game, "discard KS")
    play(game, "stock")  # 10D
    err = refused(game, "meld AS 2S 3S 4S 5S; meld KS KH KD; discard 10D")
    assert err.rule == "MAR-9" and "count 45" in str(err)  # a part needs 71
    play(game, "meld AS 2S 3S 4S 5S; meld KS KH KD; meld 7C 8C 9C; meld QH QD JK; discard 10D")
    result = game.results[0]  # 15 + 30 + 24: no 71 needed for the whole hand
    assert (result.reason, result.penalties) == ("rami_sec", (200, 0))
    assert game.totals == [200, 0] and game.finished is False


def test_mar_12_whole_hand_needs_a_franc_tierce() -> None:
    whole = "AS 2S 3S 4S 5S 7C 8C 9C 6H 7H 8H KH KD JK"  # the only tierce has the joker
    game = mar_game([JUNK_15, whole], pile="KC", stock="10D")
    play(game, "discard KS")
    play(game, "stock")
    err = refused(game, "meld AS 2S 3S 4S 5S; meld 7C 8C 9C; meld 6H 7H 8H; meld KH KD JK; "
                        "discard 10D")
    assert err.rule == "MAR-12" and "franc tierce" in str(err)


def test_mar_14_mar_16_rami_after_someone_laid_the_others_pay_their_hands() -> None:
    whole = "JD QD KD 9S 9C 9D 6C 7C 8C 5H 6H JK 4H 10D"
    game = mar_game([OPENS_75, whole], pile="2C", stock="7H")
    play(game, "meld 9H 10H JH QH; meld KS KH KD; meld AS 2S 3S; discard 5C")
    play(game, "stock")  # 7H
    play(game, "meld JD QD KD; meld 9S 9C 9D; meld 6C 7C 8C; meld 4H 5H 6H 7H JK=8H; "
               "discard 10D")
    result = game.results[0]  # the table was not empty: a rami, not a rami sec
    assert (result.reason, result.penalties) == ("out", (8 + 4 + 7 + 10, 0))
    assert game.last_summary.hands[0] == tuple(cards("8C 4D 7H QC"))


def test_mar_16_payments_rule_example() -> None:
    assert Moroccan.hand_report(cards("KS 4D JK AH"), wild=None, round=None,
                                options={}).points == 44
    assert Moroccan.hand_report(cards("KS 4D JK AH"), wild=None, round=None,
                                options={"joker_in_hand": 25}).points == 49


# --------------------------------------------------------------------------- Simple


def test_mar_13_simple_only_the_whole_hand_at_once() -> None:
    dealer = "AS 2S 3S 4S KS KH KD 7C 8C 9C QH QD 5D JK"  # 14: 13 laid, 5D discarded
    game = mar_game([dealer, JUNK_14[:-3]], pile="KC", mode="simple")
    assert [len(h) for h in game.hands] == [14, 13] and game.view(0).part.threshold is None
    err = refused(game, "meld AS 2S 3S 4S; meld KS KH KD; discard 5D")
    assert err.rule == "MAR-13" and "whole hand" in str(err)
    play(game, "meld AS 2S 3S 4S; meld KS KH KD; meld 7C 8C 9C; meld QH QD JK; discard 5D")
    result = game.results[0]
    assert result.reason == "out"  # Simple has no rami sec (MAR-15)
    assert result.penalties == (0, sum(MAR.hand_value(c) for c in cards(JUNK_14[:-3])))


def test_mar_13_simple_discard_taken_freely_after_the_first_cycle() -> None:
    game = mar_game([JUNK_15[:-3], JUNK_14[:-3]], pile="KC", stock="3C 8D", mode="simple")
    play(game, "discard KD")
    assert game.view(1).legal_draws == ("stock",)  # MAR-5
    draw_and_discard(game)  # 3C
    play(game, "discard")  # 3C, not laid: no remedy in Simple
    assert refused(game, "discard 3C").rule == "COM-11"
    assert play(game, "discard 2S") is None
    assert card("3C") in game.hands[0]


# --------------------------------------------------------------------------- game, stock, cap


def test_mar_17_the_game_ends_after_the_round_that_reaches_the_target() -> None:
    for target in (201, 500):
        game = Moroccan(seed=3, options={"players": 2, "draw_cap": 1,
                                         "match": {"target": target}})
        before: list[int] = [0, 0]
        while not game.finished:
            before = list(game.totals)
            game.apply(game.safe_action())
        assert max(before) < target <= max(game.totals)


def test_mar_18_empty_stock_is_reshuffled() -> None:
    game = mar_game([JUNK_15, JUNK_14], pile="KC", stock="3C 8D", fill=False)
    play(game, "discard KS")
    draw_and_discard(game)  # 3C
    draw_and_discard(game)  # 8D
    assert game.stock == [] and game.pile == cards("KC KS 3C 8D")
    play(game, "stock")
    assert game.pile == cards("8D") and len(game.stock) == 2


def test_mar_19_draw_cap_every_player_pays_his_hand() -> None:
    game = mar_game([JUNK_15, JUNK_14], pile="KC", stock="3C", draw_cap=1)
    play(game, "discard KS")
    draw_and_discard(game)
    result = game.results[0]
    assert result.reason == "draw_cap"
    assert result.penalties == tuple(sum(MAR.hand_value(c) for c in h) for h in (
        cards(JUNK_15)[:-1], cards(JUNK_14)))


def test_mar_19_dead_stock_every_player_pays_his_hand() -> None:
    """In MAR the pile holds two cards or more at every stock draw (the face-up card and
    each discard), so a stock always re-forms; the shared ending is checked directly."""
    game = mar_game([JUNK_15, JUNK_14], pile="KC", stock="3C")
    play(game, "discard KS")
    game.forced_end("dead_stock")
    result = game.results[0]
    assert result.reason == "dead_stock" and 0 not in result.penalties


def test_mar_20_safe_actions() -> None:
    game = mar_game([JUNK_15, JUNK_14], pile="KC", stock="3C")
    assert game.safe_action() == Play(discard=card("KS"))  # the dealer's first turn
    game.apply(game.safe_action())
    assert game.pile == cards("KC KS")
    game = laid_game()
    play(game, "discard")  # 8H
    remedy = game.apply(game.safe_action())  # goes back; 3D drawn ...
    assert remedy is not None and game.safe_action() == Play(discard=card("3D"))
    game.apply(game.safe_action())  # ... and discarded
    assert game.pile[-2:] == cards("8H 3D")


# --------------------------------------------------------------------------- bots, calculators


def test_mar_12_hand_calculator_needs_franc_tierce_and_suite() -> None:
    report = Moroccan.hand_report(cards(RAMI_SEC), wild=None, round=None, options={})
    assert report.valid_declaration
    no_tierce = cards("AS 2S 3S 4S 5H 6H 7H 7C 8C 9C QH QD JK 5D")
    assert Moroccan.hand_report(cards("AS 2S 3S 4S QC QH QD JK 5H 6H 7H 7C 8C 9C"),
                                wild=None, round=None, options={}).valid_declaration
    assert not Moroccan.hand_report(no_tierce, wild=None, round=None,
                                    options={}).valid_declaration


def test_mar_views_travel_through_the_protocol() -> None:
    game = laid_game()
    view = game.view(0)
    assert view.part.rules.prefix == "MAR"
    assert ViewDecoder().decode(encode_view(view, 0)) == view


class SimpleDefault(Moroccan):
    """Moroccan with Simple as its default mode, for the conformance playouts."""

    OPTIONS = tuple(dataclasses.replace(o, default="simple") if o.name == "mode" else o
                    for o in Moroccan.OPTIONS)


@pytest.mark.parametrize("seed", range(3))
def test_mar_13_simple_random_playouts_keep_every_invariant(seed: int) -> None:
    game = playout(SimpleDefault, seed)
    assert game.finished
    assert_log_replays(SimpleDefault, game)


@pytest.mark.parametrize(("seed", "options"), [
    (1, {}), (2, {"mode": "simple"}), (3, {"players": 3, "opening": 51}),
    (4, {"players": 6, "joker_in_hand": 30, "match": {"target": 500}}),
])
def test_mar_bots_play_legally_and_games_replay(seed: int, options: dict[str, Any]) -> None:
    players = options.get("players", 4)
    record = play_game(Moroccan, ([GREEDY, RANDOM] * 3)[:players], seed=seed, options=options)
    assert all(sum(s.faults.values()) == 0 for s in record.seats)
    assert tuple(replay(record).totals) == record.totals


def test_mar_advice_and_greedy_beats_random() -> None:
    game = laid_game()
    view: View = game.view(0)
    assert hand_points(view) == sum(MAR.hand_value(c) for c in game.hands[0])
    lay = suggest_lay(view, taking=card("8H"))
    assert lay is not None and card("8H") in lay.placed
    greedy = randoms = 0
    for seed in range(4):
        seats = [GREEDY, RANDOM] if seed % 2 == 0 else [RANDOM, GREEDY]
        record = play_game(Moroccan, seats, seed=seed, options={"players": 2})
        greedy += record.totals[seed % 2]
        randoms += record.totals[1 - seed % 2]
    assert greedy < randoms
