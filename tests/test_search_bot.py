"""The search bot: what it counts as unseen, its clock (COM-8), its seed, and its strength."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import bots.search as search
from arena.actions import Placed
from arena.advice import (
    chance_taken,
    deadwood_cards,
    deadwood_points,
    sample_game,
    suggest_lay,
    unseen_cards,
)
from arena.cards import Card, parse_cards
from arena.engine.game import Game
from arena.engine.view import TableMeld, View
from arena.errors import BadInput, IllegalAction
from arena.referee import Clock, play_game
from arena.seats.bot import BotSpec, GameInfo
from arena.seats.protocol import hello, info_of
from arena.tournament.config import load_config
from arena.variants import find_variant
from arena.variants.laying import LayingPart
from arena.variants.laying.table import add_to_meld, takes_back
from bots.greedy import GreedyBot
from bots.search import SearchBot

GREEDY = BotSpec("greedy", "bots.greedy:GreedyBot")
ROOT = Path(__file__).resolve().parents[1]
TABLES = [("indian13", {"players": 2}), ("three_thirteen", {"players": 3}),
          ("rummy51", {"players": 4}), ("rummy51", {"players": 4, "teams": True}),
          ("moroccan", {"players": 2, "mode": "tallaj"}),
          ("moroccan", {"players": 3, "mode": "simple"})]
LAYING = ("rummy51", "moroccan")


def search_spec(**params: Any) -> BotSpec:
    return BotSpec("search", "bots.search:SearchBot", params=params)


@pytest.mark.parametrize(("variant", "options"), TABLES)
def test_unseen_cards_hold_every_card_the_seat_cannot_see(variant: str,
                                                          options: dict[str, Any]) -> None:
    """COM-5: every card of the stock is among the unseen cards, and nothing the seat holds
    is counted beyond the deck's copies. (Other hands hold cards it saw them take.)"""
    game = find_variant(variant)(seed=11, options=options)
    deck = Counter(game.deck_counts(game.options))
    greedy = GreedyBot()
    checked = 0
    while not game.finished and checked < 400:
        seat = game.to_act
        view = game.view(seat)
        unseen = unseen_cards(view, game.options)
        assert not Counter(game.stock) - unseen, f"{variant}: a stock card counted as seen"
        assert not (unseen + Counter(view.hand)) - deck
        game.apply(greedy.draw(view) if view.decision == "draw" else greedy.play(view))
        checked += 1
    assert checked > 20


@pytest.mark.parametrize(("variant", "options"), [t for t in TABLES if t[0] in LAYING])
def test_unseen_cards_are_the_stock_and_the_hidden_hands_where_cards_are_laid(
        variant: str, options: dict[str, Any]) -> None:
    """COM-5: in R51 and MAR the seat can count exactly what it has not seen: the stock and
    the other hands, less what it saw them take and still hold. Only MAR's card turned up at
    the deal is lost from the views once covered, and is counted unseen."""
    game = find_variant(variant)(seed=12, options=options)
    greedy = GreedyBot()
    for _ in range(300):
        if game.finished:
            break
        view = game.view(game.to_act)
        hidden = Counter(game.stock) + sum((Counter(h) for s, h in enumerate(game.hands)
                                            if s != view.seat), Counter[Card]())
        unseen = unseen_cards(view, game.options)
        assert not unseen - hidden - Counter(game.pile[:1]), "a seen card counted as unseen"
        assert sum(unseen.values()) <= sum(hidden.values()) + 1
        game.apply(greedy.draw(view) if view.decision == "draw" else greedy.play(view))


@pytest.mark.parametrize(("variant", "options"), [t for t in TABLES if t[0] in LAYING])
def test_a_sampled_game_looks_the_same_to_the_seat_and_holds_the_deck(
        variant: str, options: dict[str, Any]) -> None:
    """COM-5: a game dealt from one seat's view (sample_game) shows that seat exactly the
    view it came from, holds every card of the deck once, and plays on under the rules."""
    game = find_variant(variant)(seed=13, options=options)
    deck = Counter(game.deck_counts(game.options))
    greedy, rng = GreedyBot(), random.Random(1)
    for step in range(300):
        if game.finished:
            break
        view = game.view(game.to_act)
        if step % 5 == 0:
            sampled = sample_game(view, game.options, rng)
            assert sampled.view(view.seat) == view
            assert Counter(sampled.all_cards()) == deck
            sampled.apply(greedy.draw(view) if view.decision == "draw" else greedy.play(view))
        game.apply(greedy.draw(view) if view.decision == "draw" else greedy.play(view))


def test_sample_game_names_the_variants_it_serves_and_the_options_it_needs() -> None:
    game = find_variant("indian13")(seed=1, options={"players": 2})
    with pytest.raises(BadInput, match="indian13/v1: sample_game is for the variants that "
                                       r"lay combinations \(R51, MAR\)"):
        sample_game(game.view(game.to_act), game.options, random.Random(1))
    game = find_variant("rummy51")(seed=1, options={"players": 2})
    with pytest.raises(BadInput, match="rummy51/v1: the options give 4 players, the view 2: "
                                       "pass the options start_game gave"):
        sample_game(game.view(game.to_act), {}, random.Random(1))


def test_deadwood_cards_counts_the_fewest_cards_left_outside_combinations() -> None:
    """MAR-6: a set, a run and a joker joining the set leave the king alone (1 card), where
    the split with the least value left would count points, not cards; IND lays nothing."""
    view = find_variant("moroccan")(seed=3, options={"players": 2}).view(0)
    hand = parse_cards("5H 6H 7H 9S 9D 9C KD JK")
    assert deadwood_cards(view, hand) == 1
    assert deadwood_points(view, hand) == 10
    assert deadwood_cards(view, parse_cards("2S 7D KC")) == 3
    with pytest.raises(BadInput, match=r"indian13.*deadwood_cards"):
        deadwood_cards(find_variant("indian13")(seed=3, options={"players": 2}).view(0))


def _r51_decisions(seeds: range) -> Iterator[tuple[Game, View]]:
    """Every decision of greedy bots at 2-seat R51 tables, first rounds, with its game."""
    for seed in seeds:
        game = find_variant("rummy51")(seed=seed, options={"players": 2})
        greedy = GreedyBot()
        while not game.finished and game.round == 1:
            view = game.view(game.to_act)
            yield game, view
            game.apply(greedy.draw(view) if view.decision == "draw" else greedy.play(view))


def _next_seat_has_opened(view: View) -> bool:
    part = view.part_as(LayingPart)
    return not part.first_cycle and part.has_opened(view.next_seat)


def test_chance_taken_is_certain_for_what_extends_the_table_and_nil_for_a_lone_card() -> None:
    """R51-9, R51-13: once the next seat has opened, it can take and lay any card that
    extends a combination on the table or takes a joker back, whatever it holds; holding one
    card, it can lay nothing else (two cards make no combination). The shares replay from
    the same seed."""
    deck = sorted(set(find_variant("rummy51").deck_counts({})))
    fitting: list[float] = []
    lone_seen = 0
    for _, view in _r51_decisions(range(30, 40)):
        if view.decision != "play" or not _next_seat_has_opened(view):
            continue
        fits = [c for c in deck if not c.is_joker and any(
            _extends_meld(m, c, view) or takes_back(m, c) for m in view.table)]
        rest = [c for c in deck if c not in fits and not c.is_joker]
        shares = chance_taken(view, {"players": 2}, fits + rest, random.Random(1), hands=8)
        assert all(0 <= s <= 1 for s in shares)
        # all but the odd hand that holds the very card (two decks): the suggestion never
        # discards a copy of the card it took (COM-11)
        assert min(shares[:len(fits)], default=1) >= 0.75
        fitting += shares[:len(fits)]
        if view.hand_sizes[view.next_seat] == 1:
            assert shares[len(fits):] == [0.0] * len(rest)
            lone_seen += 1
        again = chance_taken(view, {"players": 2}, fits + rest, random.Random(1), hands=8)
        assert again == shares
    assert len(fitting) > 100 and sum(fitting) / len(fitting) > 0.97 and lone_seen
    with pytest.raises(BadInput, match=r"indian13.*chance_taken"):
        chance_taken(find_variant("indian13")(seed=3, options={"players": 2}).view(0),
                     {"players": 2}, [Card.parse("5H")], random.Random(1))


def _extends_meld(meld: TableMeld, card: Card, view: View) -> bool:
    rules = view.part_as(LayingPart).rules
    try:
        add_to_meld(meld, [Placed(card)], rules)
    except IllegalAction:
        return False
    return True


def test_search_plays_greedy_at_r51_but_weighs_its_discard_once_the_next_seat_opened(
        ) -> None:
    """R51-9, R51-16: half the openings take the other seat's discard. There search draws
    as greedy does and discards greedy's card, except once the next seat has opened: then
    one of greedy's first three, the one the next seat's possible hands take least often;
    and once it has opened alone, the card whose loss leaves fewest cards outside
    combinations (the other seat pays a flat 100 if it goes out first)."""
    bot = SearchBot(samples=2)
    bot.start_game(GameInfo(0, 2, "rummy51", {"players": 2}, 5))
    guarded = changed = raced = faster = 0
    for _, view in _r51_decisions(range(40, 46)):
        greedy = GreedyBot()
        if view.decision == "draw":
            assert bot.draw(view) == greedy.draw(view)
            continue
        mine, theirs = bot.play(view), greedy.play(view)
        lay = suggest_lay(view)
        rest = list(view.hand if lay is None else lay.rest)
        assert mine.melds == theirs.melds
        if not _next_seat_has_opened(view):
            part = view.part_as(LayingPart)
            opened = part.has_opened(view.seat) or bool(lay and lay.melds)
            if not opened or part.first_cycle:
                assert mine == theirs
                continue
            assert mine.discard == _fastest_first(view, rest)[0]
            raced += 1
            faster += mine.discard != theirs.discard
            continue
        costs, cards = greedy._shed(view, rest, keep=view.kept)
        first = [c for _, c in sorted(zip(costs, cards, strict=True))][:search.GUARD_CANDIDATES]
        assert mine.discard in first
        guarded += 1
        changed += mine.discard != theirs.discard
    assert guarded > 20 and 0 < changed < guarded and raced > 5 and faster > 0


@pytest.mark.parametrize(("variant", "options"), [t for t in TABLES if t[0] in LAYING])
def test_search_races_in_mar_tallaj_before_it_lays_and_in_r51_once_it_opened_alone(
        variant: str, options: dict[str, Any]) -> None:
    """MAR-15, R51-16: where a rami sec pays, before its seat has laid, and in R51 once its
    seat has opened while no opponent has (a partner's opening counts as its own, R51-12),
    search's first candidate discard leaves the fewest cards outside combinations;
    elsewhere its candidates are greedy's shed order."""
    game = find_variant(variant)(seed=21, options=options)
    bot, greedy = SearchBot(samples=1), GreedyBot()
    bot.start_game(GameInfo(0, game.players, variant, game.options, 5))
    raced = shed_as_greedy = faster = 0
    tallaj = variant == "moroccan" and options["mode"] == "tallaj"
    while not game.finished and game.round == 1:
        view = game.view(game.to_act)
        if view.decision == "play":
            part = view.part_as(LayingPart)
            opened = part.has_opened(view.seat)
            against = [s for s in range(game.players) if s != view.seat and not (
                options.get("teams") and (s - view.seat) % 2 == 0)]
            alone = variant == "rummy51" and opened and not part.first_cycle and not any(
                part.has_opened(s) for s in against)
            hand = list(view.hand)
            order = bot._short_list(view, hand, bot._scorer(view, opened=opened),
                                    opened=opened)
            costs, cards = greedy._shed(view, hand, keep=view.kept)
            if (tallaj and not opened) or alone:
                assert order == _fastest_first(view, hand)
                raced += 1
                faster += order[0] != min(zip(costs, cards, strict=True))[1]
            else:
                assert order == [c for _, c in sorted(zip(costs, cards, strict=True))]
                shed_as_greedy += 1
        game.apply(greedy.draw(view) if view.decision == "draw" else greedy.play(view))
    assert (faster > 0) == (tallaj or variant == "rummy51")
    assert shed_as_greedy > 0 or tallaj


def _fastest_first(view: View, hand: list[Card]) -> list[Card]:
    """A racing seat's shed order: jokers last; first the card whose loss leaves fewest cards
    outside combinations, then the one with fewest partners, then the costlier."""
    rules = view.part_as(LayingPart).rules

    def speed(card: Card) -> tuple[bool, int, int, int, Card]:
        rest = search.without(hand, card)
        return (card.is_joker, deadwood_cards(view, rest), search.partners(card, rest),
                -rules.hand_value(card), card)
    return sorted({c for c in hand if c != view.kept}, key=speed)


def test_start_game_tells_the_clock() -> None:
    """COM-8: the limits a bot must answer within travel in start_game (protocol 3)."""
    info = GameInfo(1, 2, "indian13/v1", {"players": 2}, 5, draw_ms=700, play_ms=900)
    assert info_of(hello(info)) == info
    old = {k: v for k, v in hello(info).items() if k != "clock"}  # a version 2 referee
    assert (info_of(old).draw_ms, info_of(old).play_ms) == (15_000, 22_000)


class FakeTime:
    """A clock that moves 1 ms at each look, so the test counts looks, not seconds."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 0.001
        return self.now


def test_search_stops_at_a_quarter_of_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """COM-8: with a budget far beyond the clock, the bot still stops at a quarter of it."""
    fake = FakeTime()
    monkeypatch.setattr(search, "time", fake)
    dealt: list[int] = []
    real_sample = search.random.Random.sample

    def counted(self: Any, pool: Any, k: int) -> Any:
        dealt.append(k)
        return real_sample(self, pool, k)

    monkeypatch.setattr(search.random.Random, "sample", counted)
    game = find_variant("indian13")(seed=3, options={"players": 2})
    bot = SearchBot(budget_ms=60_000)
    bot.start_game(GameInfo(game.to_act, 2, game.version, game.options, 1,
                            draw_ms=100, play_ms=100))
    game.apply(bot.draw(game.view(game.to_act)))
    assert 5 <= len(dealt) <= 26  # 25 ms of looks: the deadline, not the budget, stopped it
    dealt.clear()
    bot.play(game.view(game.to_act))
    assert 5 <= len(dealt) <= 26


def test_search_with_fixed_samples_replays_the_same() -> None:
    """Its own seed (COM-4) and a fixed number of futures give the same game every time."""
    specs = [search_spec(samples=6), GREEDY]
    first, again = (play_game(find_variant("indian13"), specs, seed=8,
                              options={"players": 2}) for _ in range(2))
    assert first.actions == again.actions
    assert first.actions != play_game(find_variant("indian13"), specs, seed=9,
                                      options={"players": 2}).actions


@pytest.mark.parametrize(("variant", "options"), TABLES)
def test_search_plays_every_variant_without_a_fault(variant: str,
                                                    options: dict[str, Any]) -> None:
    """COM-6: every answer of search is legal, in every variant, isolated, at tight clocks."""
    game = find_variant(variant)
    specs = [search_spec(budget_ms=10, depth=1), *[GREEDY] * (int(options["players"]) - 1)]
    record = play_game(game, specs, seed=4, options=options, isolation="process",
                       clock=Clock(draw_ms=2000, play_ms=2000))
    assert sum(record.seats[0].faults.values()) == 0
    assert record.seats[0].decisions > 5


def test_search_parameters_are_checked() -> None:
    with pytest.raises(ValueError, match="budget_ms"):
        SearchBot(budget_ms=0)
    with pytest.raises(ValueError, match="samples"):
        SearchBot(samples=0)
    with pytest.raises(ValueError, match="mistakes"):
        SearchBot(mistakes=1.5)


@pytest.mark.parametrize("params", [{"budget_ms": "fast"}, {"budget_ms": True},
                                    {"depth": 1.5}, {"samples": "8"}, {"mistakes": None}])
def test_search_says_what_it_expects_of_a_parameter_of_the_wrong_type(
        params: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="budget_ms > 0, depth >= 0, samples >= 1"):
        SearchBot(**params)


@pytest.mark.parametrize(("variant", "options"), TABLES)
def test_search_at_its_weakest_still_plays_only_legal_moves(variant: str,
                                                            options: dict[str, Any]) -> None:
    """COM-6: with every draw and discard picked at random (``mistakes: 1``), no answer is
    illegal: a taken discard it cannot lay is never a choice (R51-9, MAR-8), nor the card
    it took (COM-11)."""
    specs = [search_spec(samples=2, mistakes=1.0), *[GREEDY] * (int(options["players"]) - 1)]
    for seed in (4, 5):
        record = play_game(find_variant(variant), specs, seed=seed, options=options)
        assert sum(record.seats[0].faults.values()) == 0
        assert record.seats[0].decisions > 5


def test_mistakes_are_that_share_of_decisions_from_the_bots_own_seed() -> None:
    """A quarter of the decisions at ``mistakes: 0.25``, the same ones for the same seed; at
    0 the seed's stream is not touched, so the full-strength bot plays as it always did."""
    info = GameInfo(0, 2, "indian13", {"players": 2}, 77)
    picks = []
    for _ in range(2):
        bot = SearchBot(mistakes=0.25)
        bot.start_game(info)
        picks.append([bot._errs() for _ in range(4000)])
    assert picks[0] == picks[1]
    assert 900 <= sum(picks[0]) <= 1100
    sure = SearchBot()
    sure.start_game(info)
    assert not any(sure._errs() for _ in range(100))
    assert sure.rng.getstate() == random.Random(77).getstate()


@pytest.mark.slow
@pytest.mark.parametrize("ladder", ["indian13", "rummy51", "rummy71", "moroccan",
                                    "moroccan_simple"])
def test_the_shipped_ladders_levels_pay_more_the_more_mistakes_they_make(ladder: str) -> None:
    """The levels of ``configs/ladder/<variant>.yaml`` are ordered: over 30 duplicate deals
    against greedy (fixed samples, so the same games every run), search-easy pays more than
    search-medium, which pays more than search. MAR Tallaj takes 90: a rami sec swings a
    round by 200 points (MAR-15), and over its first 30 deals easy paid 16,917 and medium
    17,227."""
    config = load_config(ROOT / "configs" / "ladder" / f"{ladder}.yaml")
    game = find_variant(config.variant)
    deals = 90 if ladder == "moroccan" else 30
    paid = Counter[str]()
    for bot in config.bots:
        if not bot.name.startswith("search"):
            continue
        level = search_spec(**{**bot.params, "samples": 4})
        for deal in range(deals):
            for order in (0, 1):
                specs = [level, GREEDY] if order == 0 else [GREEDY, level]
                record = play_game(game, specs, seed=2000 + deal, options=config.options)
                paid[bot.name] += record.totals[order]
    assert paid["search-easy"] > paid["search-medium"] > paid["search"]


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["indian13", "three_thirteen"])
def test_search_scores_better_than_greedy_over_duplicate_deals(variant: str) -> None:
    """Over 30 duplicate deals (seats swapped on the same deck), search pays less than greedy
    in all: the strength docs/bots.md measures with an SPRT, here at a fixed effort."""
    game = find_variant(variant)
    options = {"players": 2}
    paid = Counter[str]()
    for deal in range(30):
        for specs in ([search_spec(samples=12), GREEDY], [GREEDY, search_spec(samples=12)]):
            record = play_game(game, specs, seed=1000 + deal, options=options)
            for seat, points in zip(record.seats, record.totals, strict=True):
                paid[seat.bot] += points
    assert paid["search"] < paid["greedy"]
