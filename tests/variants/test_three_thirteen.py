"""Three-Thirteen (RULES.md section TT): stacked-deck scenarios, each test citing its rule.

A scenario deals known hands (``tt_game``), plays the turns action by action and asserts the
points after each step. Round 1 deals 3 cards with 3s wild, which keeps hands readable.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from arena.actions import Draw, LayOff, Placed, Play
from arena.advice import going_out_card, hand_points
from arena.cards import Card, deck, parse_cards
from arena.engine.game import Game
from arena.engine.melds import check_meld
from arena.engine.view import View
from arena.errors import BadInput, IllegalAction
from arena.referee import play_game
from arena.seats.bot import BotSpec, GameInfo
from arena.variants import find_variant
from arena.variants.three_thirteen import (
    TT_MELDS,
    ThreeThirteen,
    card_values,
    going_out_discard,
    penalty,
    wild_cards,
)
from bots.greedy import GreedyBot
from bots.random_bot import RandomBot

RANDOM = BotSpec("r", "bots.random_bot:RandomBot")
GREEDY = BotSpec("g", "bots.greedy:GreedyBot")


def tt_deck(jokers: int = 0) -> Counter[Card]:
    return Counter(deck(decks=2, jokers=jokers))


def cards(text: str) -> list[Card]:
    return parse_cards(text)


def all_cards(game: Game) -> Counter[Card]:
    """Every card of the round: hands, stock and discard pile (TT lays nothing down)."""
    return Counter([c for h in game.hands for c in h] + game.stock + game.pile)


def stacked_deck(hands: Sequence[Sequence[Card]], *, pile: str, stock: str = "",
                 dealer: int = 0, full: Counter[Card] | None = None) -> list[Card]:
    """The deck, first card first, that deals ``hands[s]`` to seat ``s`` one card at a time
    from the dealer's left (TT-4), turns up ``pile``, then leaves ``stock`` from its top
    down; with ``full``, the rest of that deck lies under ``stock`` in sorted order."""
    n, size = len(hands), len(hands[0])
    order = [hands[(dealer + 1 + i) % n][i // n] for i in range(size * n)]
    order += cards(pile) + cards(stock)
    assert not Counter(order) - (full or Counter(order)), "more copies than the deck holds"
    return order + sorted(((full or Counter()) - Counter(order)).elements())


def tt_game(hands: Sequence[str], *, pile: str, stock: str = "", dealer: int = 0,
            full: bool = True, more: Sequence[list[Card]] = (), **options: Any) -> ThreeThirteen:
    """A game whose first round deals ``hands`` by seat, then ``pile``, then ``stock``."""
    options.setdefault("players", len(hands))
    first = stacked_deck([cards(h) for h in hands], pile=pile, stock=stock, dealer=dealer,
                         full=tt_deck(int(options.get("jokers", 0))) if full else None)
    return ThreeThirteen(seed=0, options=options, decks=[first, *more], dealer=dealer)


def turn(game: Game, discard: str, *, source: str = "stock", out: bool = False) -> None:
    """One whole turn of the seat to act: a draw, then a discard (or going out)."""
    game.apply(Draw.parse(source))
    game.apply(Play(discard=Card.parse(discard), declare=out))


def hand(game: Game, seat: int) -> list[str]:
    return sorted(str(c) for c in game.hands[seat])


def snapshot(game: Game) -> tuple[object, ...]:
    return (tuple(map(tuple, game.hands)), tuple(game.stock), tuple(game.pile),
            tuple(game.history), game.to_act, game.decision, game.draws, game.round,
            tuple(game.totals), len(game.log))


# --------------------------------------------------------------------------- options, table


def test_tt_1_players_2_to_6_default_4() -> None:
    assert ThreeThirteen(seed=1).players == 4
    for n in range(2, 7):
        game = ThreeThirteen(seed=1, options={"players": n})
        assert [len(h) for h in game.hands] == [3] * n
    for bad in (1, 7, "4", True):
        with pytest.raises(BadInput, match=r"players.*TT-1"):
            ThreeThirteen(seed=1, options={"players": bad})


@pytest.mark.parametrize("jokers", [0, 2, 4])
def test_tt_2_two_decks_plus_jokers(jokers: int) -> None:
    game = ThreeThirteen(seed=3, options={"jokers": jokers, "players": 6})
    assert all_cards(game) == tt_deck(jokers)
    assert sum(all_cards(game).values()) == 104 + jokers


def test_tt_2_joker_and_other_options_rejected() -> None:
    for options, rule in (({"jokers": 1}, "TT-2"), ({"jokers": 3}, "TT-2"),
                          ({"match": {"rounds": 10}}, "TT-3"), ({"match": {"deals": 11}}, "TT-3"),
                          ({"draw_cap": 0}, "TT-15"), ({"wild_suits": "all"}, "unknown")):
        with pytest.raises(BadInput, match=rule):
            ThreeThirteen(seed=1, options=options)
    assert ThreeThirteen(seed=1).options == {"players": 4, "jokers": 0,
                                             "match": {"rounds": 11}, "draw_cap": 200}


def test_tt_registry_names_and_aliases() -> None:
    for name in ("three_thirteen", "tt", "3-13", "Three-Thirteen", "three_thirteen/v1"):
        assert find_variant(name) is ThreeThirteen
    assert ThreeThirteen.version == "three_thirteen/v1"


def test_tt_3_eleven_rounds_dealing_r_plus_2_cards() -> None:
    game = ThreeThirteen(seed=2, options={"players": 2, "draw_cap": 1})
    sizes = []
    while not game.finished:
        sizes.append(len(game.hands[(game.dealer + 1) % 2]))
        turn(game, str(game.stock[-1]))
    assert sizes == list(range(3, 14)) and len(game.results) == 11


def test_tt_4_deal_one_at_a_time_then_face_up_card_then_stock() -> None:
    game = tt_game(["AS 2S 3S", "4H 5H 6H", "7D 8D 9D"], pile="KC", stock="QC JC",
                   dealer=1)
    assert game.stacked == []
    assert [hand(game, s) for s in range(3)] == [["2S", "3S", "AS"], ["4H", "5H", "6H"],
                                                 ["7D", "8D", "9D"]]
    assert game.pile == cards("KC")
    assert game.stock[-2:] == cards("JC QC")  # the top of the stock is the end of the list
    assert game.to_act == 2
    assert all_cards(game) == tt_deck()


def test_tt_5_first_dealer_from_rng_then_passes_left() -> None:
    for seed in range(5):
        game = ThreeThirteen(seed=seed, options={"draw_cap": 1})
        first = random.Random(seed).randrange(4)  # COM-3: the game RNG's first draw
        assert game.dealer == first
        for r in range(1, 12):
            assert (game.round, game.dealer, game.to_act) == (r, (first + r - 1) % 4,
                                                              (first + r) % 4)
            turn(game, str(game.stock[-1]))
    assert game.finished


# --------------------------------------------------------------------------- turn


def test_tt_6_turn_is_a_draw_then_a_discard() -> None:
    game = tt_game(["AS 9D KC", "4H 5H 9C", "2D 7S QH"], pile="10S", stock="6H JD")
    with pytest.raises(IllegalAction, match="TT-6"):
        game.apply(Play(discard=Card.parse("4H")))  # no play before the draw
    game.apply(Draw("stock"))
    assert hand(game, 1) == ["4H", "5H", "6H", "9C"] and game.draws == 1
    with pytest.raises(IllegalAction, match="TT-6"):
        game.apply(Draw("stock"))  # one draw per turn
    with pytest.raises(IllegalAction, match="TT-6: 8C is not in the hand"):
        game.apply(Play(discard=Card.parse("8C")))
    game.apply(Play(discard=Card.parse("9C")))
    assert game.pile == cards("10S 9C") and game.to_act == 2
    game.apply(Draw("discard"))  # COM-11: the taken 9C stays for the turn
    with pytest.raises(IllegalAction, match="COM-11"):
        game.apply(Play(discard=Card.parse("9C")))
    game.apply(Play(discard=Card.parse("QH")))
    assert hand(game, 2) == ["2D", "7S", "9C"] and game.pile == cards("10S QH")


def test_tt_6_nothing_is_laid_on_the_table() -> None:
    game = tt_game(["AS 9D KC", "4H 5H 9C", "2D 7S QH"], pile="10S", stock="6H JD")
    game.apply(Draw("stock"))
    before = snapshot(game)
    meld = tuple(Placed(c) for c in cards("4H 5H 6H"))
    for play in (Play(discard=Card.parse("9C"), melds=(meld,)),
                 Play(discard=Card.parse("9C"), declare=True, melds=(meld,)),
                 Play(discard=Card.parse("9C"), layoffs=(LayOff(0, meld),))):
        with pytest.raises(IllegalAction, match=r"TT-6.*TT-11"):
            game.apply(play)
        assert snapshot(game) == before


# --------------------------------------------------------------------------- wild cards, melds


def test_tt_7_wild_rank_by_round() -> None:
    game = ThreeThirteen(seed=11, options={"draw_cap": 1, "jokers": 2, "players": 3})
    for r in range(1, 12):
        rank = r + 2  # 3 .. 10, then J Q K
        view = game.view(game.to_act)
        assert (game.round, game.wild_rank(), view.part.wild_rank) == (r, rank, rank)
        assert view.wilds.wild == {Card.of(rank, s).code for s in range(4)} | {Card.JOKER.code}
        assert [len(h) for h in game.hands] == [r + 2] * 3
        assert all_cards(game) == tt_deck(2)
        turn(game, str(game.stock[-1]))
        assert len(game.results) == r and game.results[-1].reason == "draw_cap"
    assert game.finished and game.round == 11
    with pytest.raises(IllegalAction, match="COM-13"):
        game.apply(Draw("stock"))


def test_tt_7_king_round_kings_are_wild_and_worth_15() -> None:
    values = card_values(13)
    assert [values[c.code] for c in cards("KS QS JS 3S")] == [15, 10, 10, 3]
    assert penalty(cards("KS 9D 2C"), wild_cards(13), values) == 15 + 9 + 2
    assert penalty(cards("KS 9D 10D"), wild_cards(13), values) == 0  # KS=8D or JD


def test_tt_8_wild_melds_from_the_rule_examples() -> None:
    wilds = wild_cards(7)  # round 5: 7s are wild
    for group in ("4H 7S 6H", "9C 9C 7D", "7S 7H JK", "JK JK JK", "7S 8S 9S"):
        assert check_meld(cards(group), TT_MELDS, wilds).valid, group
        assert penalty(cards(group), wilds, card_values(7)) == 0


def test_tt_8_all_wild_hand_goes_out() -> None:
    """Round 1 with jokers: JK JK JK is a meld, so the hand goes out (TT-8, TT-10)."""
    game = tt_game(["AS 9D KC", "JK JK 9C", "2D 7S QH"], pile="10S", stock="JK", jokers=4)
    turn(game, "9C", out=True)
    assert game.out == 1 and game.history[-1].cards == tuple(cards("JK JK JK"))


def test_tt_9_ace_low_only_duplicates_and_long_sets() -> None:
    wilds = wild_cards(3)
    assert check_meld(cards("AS 2S 3S"), TT_MELDS, wilds).valid
    assert check_meld(cards("AS 2S 4S"), TT_MELDS, wild_cards(5)).valid is False
    for group in ("QS KS AS", "KS AS 2S"):
        assert not check_meld(cards(group), TT_MELDS, wild_cards(5)).valid, group
    for group in ("9C 9C 9D", "9C 9C 9D 9D 9S 9H"):
        assert check_meld(cards(group), TT_MELDS, wilds).kind == "set", group
    assert penalty(cards("QS KS AS"), wild_cards(5), card_values(5)) == 21


# --------------------------------------------------------------------------- going out


def test_tt_10_going_out_then_one_final_turn_each() -> None:
    game = tt_game(["AS 2S 7C", "4H 5H 9C", "KS QD 8C"], pile="10S", stock="6H JD 3S 2H")
    assert game.to_act == 1
    assert going_out_card(game.view(1)) is None  # draw decision: nothing to go out with yet
    game.apply(Draw("stock"))
    assert going_out_card(game.view(1)) == Card.parse("9C")
    game.apply(Play(discard=Card.parse("9C"), declare=True))  # going out on the first turn
    assert game.out == 1 and not game.results
    assert game.history[-1].kind == "out" and game.history[-1].cards == tuple(cards("4H 5H 6H"))
    assert game.view(2).history[-1] == game.history[-1]  # the hand is shown to all (COM-5)
    assert game.to_act == 2
    turn(game, "JD")  # seat 2's final turn
    assert not game.results and game.to_act == 0
    turn(game, "7C")  # seat 0's final turn: AS 2S + the wild 3S make a run
    result = game.results[0]
    assert (result.reason, result.penalties) == ("out", (0, 0, 28))
    assert game.totals == [0, 0, 28]
    assert (game.round, game.dealer, game.to_act) == (2, 1, 2)
    assert game.last_summary.hands[1] == tuple(cards("4H 5H 6H"))


def test_tt_10_complete_hand_still_draws_and_discards() -> None:
    game = tt_game(["AS 9D KC", "4H 5H 6H", "2D 7S QH"], pile="10S", stock="JD")
    with pytest.raises(IllegalAction, match="TT-6"):
        game.apply(Play(discard=Card.parse("6H"), declare=True))  # a draw comes first
    game.apply(Draw("stock"))
    game.apply(Play(discard=Card.parse("JD"), declare=True))
    assert game.out == 1 and game.history[-2:][0].kind == "discard"


def test_tt_10_taken_discard_cannot_be_the_going_out_card() -> None:
    game = tt_game(["AS 9D KC", "4H 5H 6H", "2D 7S QH"], pile="10S", stock="JD")
    game.apply(Draw("discard"))
    assert going_out_card(game.view(1)) is None  # only 10S would leave melds, and it is kept
    before = snapshot(game)
    with pytest.raises(IllegalAction, match="COM-11"):
        game.apply(Play(discard=Card.parse("10S"), declare=True))
    assert snapshot(game) == before


def test_tt_10_false_claim_is_illegal_and_changes_nothing() -> None:
    game = tt_game(["AS 9D KC", "4H 5H 9C", "2D 7S QH"], pile="10S", stock="JD 8H")
    game.apply(Draw("stock"))
    before = snapshot(game)
    with pytest.raises(IllegalAction, match="TT-10: cannot go out discarding 9C") as err:
        game.apply(Play(discard=Card.parse("9C"), declare=True))
    assert err.value.rule == "TT-10"
    assert snapshot(game) == before and game.out is None
    game.apply(Play(discard=Card.parse("JD")))  # the turn goes on as if nothing was said
    assert game.to_act == 2 and game.totals == [0, 0, 0]


class FalseClaimer:
    """Discards what it drew, claiming to go out whenever that claim is false."""

    def draw(self, view: View) -> Draw:
        return Draw("stock")

    def play(self, view: View) -> Play:
        assert view.drawn is not None
        rest = list(view.hand)
        rest.remove(view.drawn)
        return Play(discard=view.drawn, declare=hand_points(view, rest) > 0)


def test_tt_10_false_claims_are_faults_and_the_safe_action_plays() -> None:
    spec = BotSpec("liar", f"{__file__}:FalseClaimer")
    record = play_game(ThreeThirteen, [spec, RANDOM], seed=5,
                       options={"players": 2, "draw_cap": 20})
    liar = record.seats[0]
    assert liar.faults["illegal"] > 0 and sum(liar.faults.values()) == liar.faults["illegal"]
    assert len(record.rounds) == 11
    # Only applied answers are recorded: no claim of seat 0 ever went through.
    assert not [a for a in record.actions if a.startswith("0 declare")]


def test_tt_11_final_turns_do_not_go_out_again() -> None:
    """A true claim in a final turn is a plain discard (its hand scores 0 anyway, TT-12);
    a false one is still illegal (TT-10); the round ends after the last final turn."""
    game = tt_game(["AS 2S 7C", "4H 5H 9C", "KS KD 8C", "2D 7S QH"], pile="10S",
                   stock="6H KH 3S 2H", dealer=0)
    turn(game, "9C", out=True)
    assert game.to_act == 2
    game.apply(Draw("stock"))  # KH: KS KD KH
    before = snapshot(game)
    with pytest.raises(IllegalAction, match="TT-10"):
        game.apply(Play(discard=Card.parse("KH"), declare=True))
    assert snapshot(game) == before
    game.apply(Play(discard=Card.parse("8C"), declare=True))
    assert [e.kind for e in game.history].count("out") == 1 and game.out == 1
    assert game.to_act == 3 and not game.results
    turn(game, "3S")  # seat 3
    assert not game.results and game.to_act == 0
    turn(game, "7C")  # seat 0 draws 2H: AS 2S 2H, no meld
    assert game.results[0].penalties == (1 + 2 + 2, 0, 0, 2 + 7 + 10)
    assert game.round == 2


def test_tt_11_two_players_one_final_turn() -> None:
    game = tt_game(["KS QD 8C", "4H 5H 9C"], pile="10S", stock="6H JD")
    turn(game, "9C", out=True)
    assert game.to_act == 0 and not game.results
    turn(game, "JD")
    assert game.results[0].penalties == (28, 0) and game.round == 2


# --------------------------------------------------------------------------- scoring


def test_tt_12_rule_example_round_4() -> None:
    hand4 = cards("2C 3C 4C 6D KS QH")
    assert penalty(hand4, wild_cards(6), card_values(6)) == 20
    # Leaving 6D out instead would cost 35:
    assert penalty(cards("2C 3C 4C"), wild_cards(6), card_values(6)) == 0
    assert card_values(6)[Card.parse("6D").code] + 20 == 35


def test_tt_12_card_values() -> None:
    values = card_values(3)
    expected = {"AS": 1, "2H": 2, "5D": 5, "9C": 9, "10S": 10, "JH": 10, "QD": 10, "KC": 10,
                "3S": 15, "3C": 15, "JK": 20}
    assert {t: values[Card.parse(t).code] for t in expected} == expected


def test_tt_12_scoring_each_card_kind_at_the_draw_cap() -> None:
    game = tt_game(["AS JD KC", "3H 10S 5D", "JK 9S 5D", "JK 3C 3D"], pile="2C",
                   stock="8H", dealer=3, jokers=2, draw_cap=1)
    assert game.to_act == 0
    turn(game, "8H")  # the capping draw: the turn is played, then the round ends (TT-15)
    result = game.results[0]
    assert result.reason == "draw_cap"
    # A 1 + J 10 + K 10 | wild 3H 15 + 10 + 5 | joker 20 + 9 + 5 | all-wild meld 0
    assert result.penalties == (21, 30, 34, 0)
    assert game.totals == [21, 30, 34, 0]


def test_tt_12_points_through_the_bot_advice() -> None:
    game = tt_game(["AS JD KC", "3H 10S 5D"], pile="2C", stock="4D")
    game.apply(Draw("stock"))
    view = game.view(1)
    assert hand_points(view) == 10  # 3H 4D 5D (3H stands for 3D or 6D), and 10S
    assert hand_points(view, cards("3H 4D 5D")) == 0
    assert hand_points(view, cards("3H 10S 5D")) == 30
    assert going_out_card(view) == Card.parse("10S")


def test_tt_13_ties_after_round_11_share_first_place() -> None:
    """Seats 0 and 1 hold the same cards every round; the capping turn changes no hand."""
    pair = cards("AS 2H 4S 6H 8S 10H QS KH 5S 7H 9S JH 4H")
    third = cards("KD QC 9D 7C 5D 3C AD JC 10D 8C 6D 4C 2D")
    decks = []
    for r in range(1, 12):
        size = r + 2
        decks.append(stacked_deck([pair[:size], pair[:size], third[:size]], pile="2C",
                                  dealer=(2 + r - 1) % 3, full=tt_deck()))
    game = ThreeThirteen(seed=0, options={"players": 3, "draw_cap": 1}, decks=decks, dealer=2)
    expected = [0, 0, 0]
    for r in range(1, 12):
        wilds, values = wild_cards(r + 2), card_values(r + 2)
        owed = [penalty(pair[:r + 2], wilds, values)] * 2 + [penalty(third[:r + 2], wilds,
                                                                      values)]
        turn(game, str(game.stock[-1]))
        expected = [t + p for t, p in zip(expected, owed, strict=True)]
        assert game.results[-1].penalties == tuple(owed)
        assert game.totals == expected
    assert game.results[0].penalties == (7, 7, 29)  # AS 2H 4S; KD QC 9D (3s wild)
    assert game.finished and expected[0] == expected[1] < expected[2]
    assert game.ranks() == (1, 1, 3)


# --------------------------------------------------------------------------- stock, cap, safe


def test_tt_14_reshuffle_keeps_the_top_discard() -> None:
    game = tt_game(["AS 9D KC", "4H 5H 9C"], pile="10S", stock="JD 8H", full=False)
    turn(game, "JD")
    turn(game, "8H")
    assert game.stock == [] and game.pile == cards("10S JD 8H")
    game.apply(Draw("stock"))  # COM-12: 10S and JD become the stock, 8H stays up
    assert game.pile == cards("8H") and len(game.stock) == 1
    assert sorted(game.hands[1] + game.stock) == sorted(cards("4H 5H 9C 10S JD"))


def test_tt_14_dead_stock_everyone_scores_his_hand() -> None:
    game = tt_game(["KS QD 8C", "4H 5H 9C"], pile="10S", full=False)
    turn(game, "9C", source="discard")  # the stock is empty; the pile holds only 9C
    game.apply(Draw("stock"))
    result = game.results[0]
    assert (result.reason, result.penalties) == ("dead_stock", (28, 19))
    assert game.round == 2


def test_tt_14_dead_stock_during_final_turns() -> None:
    """The seat that went out keeps its 0; a seat still owed a final turn pays its hand."""
    game = tt_game(["KS QD 8C", "4H 5H 9C"], pile="6H", full=False)
    turn(game, "9C", source="discard", out=True)
    assert game.out == 1
    game.apply(Draw("stock"))  # seat 0's final turn finds no stock (COM-12)
    result = game.results[0]
    assert (result.reason, result.penalties) == ("dead_stock", (28, 0))


def test_tt_15_draw_cap_ends_the_round_after_the_capping_turn() -> None:
    game = tt_game(["AS 9D KC", "4H 5H 9C", "2D 7S QH"], pile="10S", stock="JD 8H 2S 3S",
                   draw_cap=3)
    turn(game, "JD")
    turn(game, "8H")
    assert not game.results and game.draws == 2
    game.apply(Draw("stock"))  # draw 3 of 3: seat 0 still plays its discard
    assert game.decision == "play" and not game.results
    game.apply(Play(discard=Card.parse("KC")))  # AS 9D 2S
    result = game.results[0]
    assert (result.reason, result.penalties) == ("draw_cap", (12, 18, 19))


def test_tt_15_final_turns_are_played_past_the_cap() -> None:
    game = tt_game(["AS 9D KC", "4H 5H 9C", "2D 7S QH"], pile="10S", stock="6H JD 8H",
                   draw_cap=1)
    turn(game, "9C", out=True)  # the capping draw, and going out
    assert not game.results
    turn(game, "JD")
    assert not game.results and game.draws == 2
    turn(game, "8H")
    result = game.results[0]
    assert (result.reason, result.penalties) == ("out", (20, 0, 19))


def test_tt_16_safe_action_discards_the_drawn_card_and_never_goes_out() -> None:
    game = tt_game(["AS 9D KC", "4H 5H 9C", "2D 7S QH"], pile="10S", stock="6H")
    assert game.safe_action() == Draw("stock")
    game.apply(game.safe_action())
    assert game.safe_action() == Play(discard=Card.parse("6H"))  # although 9C would go out
    game.apply(game.safe_action())
    assert game.out is None and game.to_act == 2 and hand(game, 1) == ["4H", "5H", "9C"]


def test_tt_16_safe_card_after_taking_the_discard() -> None:
    game = tt_game(["AS 9D KC", "3S 5H 9C", "2D 7S QH"], pile="6H", stock="JD")
    game.apply(Draw("discard"))
    # Candidates: not the wild 3S, not the taken 6H. Losing 9C leaves 3S 5H 6H (0 points).
    assert game.safe_action() == Play(discard=Card.parse("9C"))
    game.apply(game.safe_action())
    assert game.out is None and game.to_act == 2


def test_tt_16_safe_card_ties_go_to_the_higher_value_then_rank() -> None:
    game = tt_game(["AS 9D KC", "5H 6H 8H", "2D 7S QH"], pile="7H", stock="JD")
    game.apply(Draw("discard"))
    # Losing 5H or 8H both leave a run (0 points): the higher value, 8H, goes (COM-10).
    assert game.safe_action() == Play(discard=Card.parse("8H"))
    game = tt_game(["AS 9D KC", "KC QC 2S", "2D 7S QH"], pile="9D", stock="JD")
    game.apply(Draw("discard"))
    # Losing KC or QC both leave 21 points, and both are worth 10: the higher rank goes.
    assert game.safe_action() == Play(discard=Card.parse("KC"))


# --------------------------------------------------------------------------- advice, play


def test_tt_12_hand_calculator() -> None:
    report = ThreeThirteen.hand_report(cards("2C 3C 4C 6D KS QH"), wild=None, round=4,
                                       options={})
    assert (report.points, report.wild, report.valid_declaration) == (20, "6", False)
    assert [str(c) for c in report.deadwood] == ["KS", "QH"]
    same = ThreeThirteen.hand_report(cards("2C 3C 4C 6D KS QH"), wild=Card.parse("6S"),
                                     round=None, options={})
    assert same.points == 20
    out = ThreeThirteen.hand_report(cards("4H 5H 3S"), wild=None, round=1, options={})
    assert out.points == 0 and out.valid_declaration
    assert ThreeThirteen.meld_report(cards("7S 7H JK"), wild=None, round=5, options={}).valid
    for wild, rnd in ((None, None), (Card.parse("7S"), 1), (None, 12), (Card.JOKER, None),
                      (Card.parse("2S"), None)):
        with pytest.raises(BadInput, match="TT-"):
            ThreeThirteen.hand_report(cards("4H 5H 3S"), wild=wild, round=rnd, options={})
    with pytest.raises(BadInput, match="jokers"):
        ThreeThirteen.hand_report(cards("4H 5H 3S"), wild=None, round=1, options={"jokers": 3})


def test_tt_10_going_out_discard_prefers_the_non_wild_card() -> None:
    wilds, values = wild_cards(3), card_values(3)
    assert going_out_discard(cards("4H 5H 6H 7H"), None, wilds, values) in cards("4H 7H")
    assert going_out_discard(cards("4H 5H 6H 3S"), None, wilds, values) == Card.parse("6H")
    # 5H and 3D both go out; the natural card goes first. The kept card never goes:
    assert going_out_discard(cards("4H 5H 3S 3D"), Card.parse("3S"), wilds,
                             values) == Card.parse("5H")
    assert going_out_discard(cards("9C 9D 3S KS"), Card.parse("KS"), wilds, values) is None
    assert going_out_discard(cards("9C 9D 3S KS"), None, wilds, values) == Card.parse("KS")
    assert going_out_discard(cards("JK JK JK 3S"), None, wilds, values) is not None
    assert going_out_discard(cards("4H 5H 9C KD"), None, wilds, values) is None


def _conserving_game(seed: int, bots: Sequence[object], **options: Any) -> ThreeThirteen:
    """Plays bots in this process, checking card conservation after every action."""
    game = ThreeThirteen(seed=seed, options={"players": len(bots), **options})
    full = tt_deck(int(game.options["jokers"]))
    for seat, bot in enumerate(bots):
        start = getattr(bot, "start_game", None)
        if start is not None:
            start(GameInfo(seat, game.players, game.version, game.options, seed * 10 + seat))
    while not game.finished:
        seat = game.to_act
        view = game.view(seat)
        bot: Any = bots[seat]
        game.apply(bot.draw(view) if view.decision == "draw" else bot.play(view))
        assert all_cards(game) == full
        if not game.finished:
            assert sorted(len(h) for h in game.hands)[:-1] == [game.round + 2] * (
                game.players - 1)
    return game


@pytest.mark.parametrize("seed", range(3))
def test_tt_random_play_conserves_cards(seed: int) -> None:
    game = _conserving_game(seed, [RandomBot() for _ in range(3)], jokers=2 * (seed % 3),
                            draw_cap=60)
    assert len(game.results) == 11
    assert game.totals == [sum(r.penalties[s] for r in game.results) for s in range(3)]


def test_tt_greedy_plays_legally_and_conserves_cards() -> None:
    game = _conserving_game(1, [GreedyBot(), RandomBot()], jokers=4)
    assert len(game.results) == 11


def test_tt_13_greedy_beats_random_and_replays_the_same() -> None:
    record = play_game(ThreeThirteen, [GREEDY, RANDOM, GREEDY, RANDOM], seed=7)
    assert all(sum(s.faults.values()) == 0 for s in record.seats)
    assert record.totals[0] + record.totals[2] < record.totals[1] + record.totals[3]
    assert record.termination == "normal"
    again = play_game(ThreeThirteen, [GREEDY, RANDOM, GREEDY, RANDOM], seed=7)
    assert again.actions == record.actions and again.totals == record.totals


def test_com_11_com_1_no_discard_take_that_would_leave_nothing_to_discard() -> None:
    """Three jokers in a 3-card hand and the fourth on the pile (`jokers: 4`): taking it
    left only copies of the taken card, none of which may be discarded that turn (COM-11,
    COM-1), and the safe action itself was refused: the referee's IllegalAction ended the
    game."""
    game = tt_game(["4C 8D QS", "JK JK JK"], pile="JK", stock="7C 8C 9C 4C 5C 6C",
                   jokers=4)
    assert game.to_act == 1 and game.pile[-1] == Card.JOKER
    assert game.view(1).legal_draws == ("stock",)
    with pytest.raises(IllegalAction, match=r"^COM-11: every card in the hand is a copy of "
                                            r"JK: taking it would leave nothing to discard"):
        game.apply(Draw("discard"))
    game.apply(game.safe_action())
    assert game.turn.source == "stock"
