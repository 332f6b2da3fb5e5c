"""One conformance suite over every registered variant (arena.variants.VARIANTS).

Seeded random playouts check, after every action: card conservation, that the safe action
(COM-10) is legal whenever a decision is due, that an illegal answer changes nothing
(COM-6), and that no view reaches the game state or another seat's cards (COM-5).
The same playouts run under each value of every option. Nothing here knows a particular
variant: only the generic engine surface is used, and option values are listed by name.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any, get_args

import pytest
from conftest import all_cards

from arena.actions import SOURCES, Action, Draw, Play
from arena.advice import going_out_card, suggest_lay
from arena.cards import ALL_CARDS, Card
from arena.engine.game import Game
from arena.engine.options import OptionSpec, resolve_options
from arena.engine.view import PlayKind, View
from arena.errors import BadInput, IllegalAction
from arena.seats.protocol import ViewDecoder, encode_view
from arena.variants import VARIANTS, find_variant

GAMES = 24  # random playouts per variant ...
ROUNDS = 30  # ... or fewer, once this many rounds were played (long matches), but at least
MIN_GAMES = 3
RULE_ID = re.compile(r"^[A-Z0-9]+-\d+$")
WIRE_STEPS = 800  # actions of a playout whose views go through the wire: a few rounds
MAX_STEPS = 50_000  # far beyond any capped game; a loop that never ends fails instead

variants = pytest.mark.parametrize("variant", VARIANTS, ids=[v.name for v in VARIANTS])


def probed(variant: type[Game]) -> type[Game]:
    """The variant, remembering the full deck each round is dealt from (its ``shuffled_deck``
    argument), which is what the round's cards must add up to."""

    class Probe(variant):  # type: ignore[valid-type, misc]
        deck_dealt: Counter[Card]

        def shuffled_deck(self, cards: list[Card]) -> list[Card]:
            self.deck_dealt = Counter(cards)
            return super().shuffled_deck(cards)

    Probe.__name__ = Probe.__qualname__ = f"Probe{variant.__name__}"
    return Probe


# --------------------------------------------------------------------------- the random seat


def _try_going_out(view: View) -> Card | None:
    try:
        return going_out_card(view)
    except KeyError:  # no rules calculator for this variant yet
        return None


def random_answer(game: Game, rng: random.Random) -> Action:
    """A mostly legal, sometimes illegal, answer for the seat to act."""
    view = game.view(game.to_act)
    r = rng.random()
    if game.decision == "draw":
        return Draw(rng.choice(view.legal_draws if r < 0.9 else SOURCES))
    out = _try_going_out(view) if r < 0.6 else None
    if out is not None:
        return Play(discard=out, declare=True)
    lay = suggest_lay(view) if r < 0.5 else None  # laying variants (R51, MAR) only
    if lay is not None:
        return lay.play(rng.choice([c for c in lay.rest if c != view.kept]))
    if r < 0.02:  # a claim to declare / go out that is probably wrong
        return Play(discard=rng.choice(view.hand), declare=True)
    if r < 0.08:  # may be the card just taken (COM-11)
        return Play(discard=rng.choice(view.hand))
    if r < 0.11:
        return Play(discard=next(c for c in ALL_CARDS if c not in view.hand))
    if r < 0.2:
        return game.safe_action()
    return Play(discard=rng.choice(view.discardable or view.hand))


# --------------------------------------------------------------------------- invariants


def fingerprint(game: Game) -> tuple[Any, ...]:
    """Everything an illegal answer must leave untouched."""
    return (tuple(map(tuple, game.hands)), tuple(game.stock), tuple(game.pile),
            tuple(game.table), tuple(game.history), tuple(game.totals), len(game.log),
            game.decision, game.to_act, game.draws, game.round, game.finished,
            tuple(game.active), repr(game.rng.getstate()))


def assert_conserved(game: Game) -> None:
    deck_dealt: Counter[Card] = game.deck_dealt  # type: ignore[attr-defined]
    held = all_cards(game)
    assert held == deck_dealt, (f"round {game.round}: cards gained {held - deck_dealt}, "
                                f"lost {deck_dealt - held}")


def assert_safe_action_legal(game: Game) -> Action:
    """COM-10: the safe action is always a legal answer to the decision due."""
    safe = game.safe_action()
    if game.decision == "draw":
        assert isinstance(safe, Draw)
        assert safe.source in game.legal_draws()
    else:
        assert isinstance(safe, Play)
        assert not safe.declare and not safe.lays_anything
        game.check_play(game.to_act, safe)
    return safe


def state_ids(game: Game) -> set[int]:
    """Ids of the game and of the mutable containers that make up its state (hands, stock,
    pile, table, bookkeeping objects), one level into each container."""
    out = {id(game)}
    for value in vars(game).values():
        if isinstance(value, (list, dict, set)):
            out.add(id(value))
            items = value.values() if isinstance(value, dict) else value
            out.update(id(v) for v in items if isinstance(v, (list, dict, set)))
        elif not isinstance(value, (str, int, float, bool, tuple, frozenset, type(None))) \
                and not _frozen(value):
            out.add(id(value))
    return out


def _frozen(obj: object) -> bool:
    params = getattr(obj, "__dataclass_params__", None)
    return params is not None and params.frozen


def walk(obj: object, seen: set[int] | None = None) -> Iterator[object]:
    """Every object reachable from a view: dataclass fields, tuples, sets, mappings."""
    seen = set() if seen is None else seen
    if id(obj) in seen or isinstance(obj, (Card, str, int, type(None))):
        return
    seen.add(id(obj))
    yield obj
    if isinstance(obj, (tuple, list, set, frozenset)):
        children: Any = obj
    elif isinstance(obj, dict):
        children = [*obj.keys(), *obj.values()]
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        children = [getattr(obj, f.name) for f in dataclasses.fields(obj)]
    else:
        children = ()
    for child in children:
        yield from walk(child, seen)


def assert_view_is_private(game: Game, seat: int, forbidden: set[int]) -> None:
    """COM-5: the view is a value of its own: the seat's exact hand, nothing of the state."""
    view = game.view(seat)
    assert view.seat == seat
    assert view.hand == tuple(game.hands[seat])
    assert view.hand_sizes == tuple(len(h) for h in game.hands)
    assert view.stock_size == len(game.stock)
    for obj in walk(view):
        assert id(obj) not in forbidden, f"view of seat {seat} reaches the game state: {obj!r}"
        assert not isinstance(obj, (Game, list, dict, set, random.Random)), \
            f"view of seat {seat} holds a mutable {type(obj).__name__}: {obj!r}"


def assert_hidden_cards_unseen(game: Game, rng: random.Random) -> None:
    """COM-5: moving hidden cards (another hand, the stock order) must not change a view.

    The game is changed in place and put back: a card of another seat's hand swaps with a
    stock card, and the stock is reordered; its bottom card stays (the IND indicator is
    public). The seat's view must be the same before and after.
    """
    seat = rng.randrange(game.players)
    others = [s for s in range(game.players) if s != seat and game.hands[s]]
    if not others or len(game.stock) < 3:
        return
    other = rng.choice(others)
    before = game.view(seat)
    hand, stock = list(game.hands[other]), list(game.stock)
    i, j = rng.randrange(len(hand)), rng.randrange(1, len(stock))
    game.hands[other][i], game.stock[j] = game.stock[j], game.hands[other][i]
    top = game.stock[1:]
    rng.shuffle(top)
    game.stock[1:] = top
    after = game.view(seat)
    game.hands[other][:], game.stock[:] = hand, stock
    assert before == after, \
        f"seat {seat}'s view changes with seat {other}'s hidden cards or the stock order"


# --------------------------------------------------------------------------- the playout


def playout(variant: type[Game], seed: int, *, checks: bool = True,
            options: dict[str, Any] | None = None) -> Game:
    """Play one game with random answers, checking the invariants after every action."""
    game = probed(variant)(seed=seed, options=options)
    rng = random.Random(seed * 7919 + 1)
    for step in range(MAX_STEPS):
        if game.finished:
            break
        safe = assert_safe_action_legal(game)
        answer = random_answer(game, rng)
        before = fingerprint(game)
        try:
            game.apply(answer)
        except IllegalAction as exc:
            assert RULE_ID.match(exc.rule), f"IllegalAction without a rule ID: {exc}"
            assert fingerprint(game) == before, f"{answer} was refused but changed the state"
            game.apply(safe)
        if not checks:
            continue
        assert_conserved(game)
        if step % 4 == 0:
            assert_view_is_private(game, step // 4 % game.players, state_ids(game))
        if step % 9 == 0 and not game.finished:
            assert_hidden_cards_unseen(game, rng)
    else:
        pytest.fail(f"{variant.name} seed {seed}: no end after {MAX_STEPS} actions")
    return game


@variants
def test_random_playouts_keep_every_invariant(variant: type[Game]) -> None:
    """COM-3 to COM-6, COM-10, COM-13: conservation, a legal safe action, private views,
    a log that replays."""
    rounds = 0
    for seed in range(GAMES):
        if rounds >= ROUNDS and seed >= MIN_GAMES:
            break
        game = playout(variant, seed)
        rounds += len(game.results)
        assert game.finished
        assert len(game.totals) == game.players
        assert game.totals == [sum(r.penalties[s] for r in game.results)
                               for s in range(game.players)]
        assert all(p >= 0 for r in game.results for p in r.penalties)
        dealers = [r.dealer for r in game.results]  # COM-3: the deal passes to the next seat
        assert dealers == [(dealers[0] + i) % game.players for i in range(len(dealers))]
        ranks = game.ranks()
        assert min(ranks) == 1
        assert all((ranks[a] < ranks[b]) == (game.totals[a] < game.totals[b])
                   for a in range(game.players) for b in range(game.players))
        with pytest.raises(IllegalAction):
            game.apply(Draw("stock"))
        if seed < MIN_GAMES:
            assert_log_replays(variant, game)


# Every value worth a game of each option, by option name: a new option of a built-in
# variant needs its values here (the test below fails until it has them); an option of a
# variant plugged in from outside that is not listed keeps its default. Small draw caps end
# rounds by COM-9.
OPTION_VALUES: dict[str, list[Any]] = {
    "players": [2, 3, 4, 5, 6], "teams": [False, True], "jokers": [0, 2, 4],
    "ace_high_value": [10, 11], "opening": [51, 71], "mode": ["tallaj", "simple"],
    "invalid_declaration": ["eliminate", "end_deal"], "wild_suits": ["colour", "all"],
    "joker_in_hand": [0, 20, 50], "draw_cap": [4, 40],
    "match": [{"deals": 2}, {"rounds": 1}, {"rounds": 3}, {"rounds": 11}, {"target": 100},
              {"target": 201}, {"target": 500}],
}


def option_sets(variant: type[Game], rng: random.Random) -> Iterator[dict[str, Any]]:
    """For each option and each of its values the variant accepts, one set of options that
    holds it, the other options drawn at random (or left at their defaults) until the
    variant accepts the whole set."""
    for spec in variant.OPTIONS:
        for value in values_of(variant, spec):
            if not _accepted(variant, spec.name, value):
                continue
            tries = (_drawn(variant, spec, value, rng) for _ in range(200))
            yield next(options for options in tries if options is not None)


def _drawn(variant: type[Game], spec: OptionSpec, value: Any,
           rng: random.Random) -> dict[str, Any] | None:
    """``spec`` at ``value``, each other option at a random value half the time; None when
    the variant refuses the set."""
    chosen = {o.name: rng.choice(values_of(variant, o)) for o in variant.OPTIONS
              if o is not spec and values_of(variant, o) and rng.random() < 0.5}
    try:
        return resolve_options(variant.name, variant.OPTIONS, {**chosen, spec.name: value})
    except BadInput:
        return None


def values_of(variant: type[Game], spec: OptionSpec) -> list[Any]:
    """The values of an option to play: listed above, or none (a variant from outside: its
    default is played)."""
    assert spec.name in OPTION_VALUES or not variant.__module__.startswith("arena."), \
        f"{variant.name}: no values to play for option {spec.name!r} (OPTION_VALUES)"
    return OPTION_VALUES.get(spec.name, [])


@variants
@pytest.mark.parametrize("per_set", [2, pytest.param(12, marks=pytest.mark.slow)])
def test_com_14_every_option_value_keeps_every_invariant(variant: type[Game],
                                                         per_set: int) -> None:
    """COM-3 to COM-6, COM-9, COM-13, COM-14: random playouts under each value of each
    option (with the others drawn at random) keep the invariants of the default game;
    ``per_set`` games a set of options (the slow soak draws other sets, and plays more)."""
    rng = random.Random(f"{variant.name}/{per_set}")
    played: dict[str, set[str]] = {}
    for number, options in enumerate(option_sets(variant, rng)):
        for seed in range(2000 + per_set * number, 2000 + per_set * (number + 1)):
            game = playout(variant, seed, options=options)
            assert game.finished and game.options == options
            assert game.totals == [sum(r.penalties[s] for r in game.results)
                                   for s in range(game.players)]
            if seed % 8 == 0:
                assert_log_replays(variant, game)
        for name, value in options.items():
            played.setdefault(name, set()).add(repr(value))
    for spec in variant.OPTIONS:  # every value accepted alone was played at least once
        accepted = {repr(v) for v in values_of(variant, spec) if _accepted(variant, spec.name, v)}
        assert accepted <= played.get(spec.name, set()), (spec.name, accepted)


def _accepted(variant: type[Game], name: str, value: Any) -> bool:
    try:
        resolve_options(variant.name, variant.OPTIONS, {name: value})
    except BadInput:
        return False
    return True


def assert_log_replays(variant: type[Game], game: Game) -> None:
    """COM-4: the logged actions, applied to a new game of the same seed, give the same game
    (every action that changes the game, such as a draw that finds the stock dead, is in the
    log)."""
    again = variant(seed=game.seed, options=game.options)
    for seat, action in game.log:
        assert again.to_act == seat
        again.apply(action)
    assert again.finished
    assert again.results == game.results and again.totals == game.totals
    assert again.hands == game.hands and again.pile == game.pile


@variants
@pytest.mark.parametrize("seed", [3])
def test_com_4_same_seed_same_game(variant: type[Game], seed: int) -> None:
    """COM-4: the same seed and the same decisions give the same game, action for action."""
    one, two = playout(variant, seed, checks=False), playout(variant, seed, checks=False)
    assert one.log == two.log
    assert one.results == two.results
    assert one.totals == two.totals


@variants
def test_com_4_seed_decides_the_deal(variant: type[Game]) -> None:
    deals = {seed: variant(seed=seed) for seed in range(6)}
    again = variant(seed=4)
    assert again.hands == deals[4].hands and again.stock == deals[4].stock
    assert again.dealer == deals[4].dealer
    assert len({tuple(map(tuple, g.hands)) for g in deals.values()}) == len(deals)


@variants
def test_com_10_safe_draw_then_safe_play_leaves_the_hand_unchanged(variant: type[Game]) -> None:
    """COM-10: in the draw decision, draw the top stock card and discard that same card."""
    for seed in range(4):
        game = variant(seed=seed)
        while game.decision != "draw":
            game.apply(game.safe_action())
        seat = game.to_act
        hand = Counter(game.hands[seat])
        top = game.stock[-1]
        game.apply(game.safe_action())
        assert game.view(seat).drawn == top
        safe = game.safe_action()
        assert safe == Play(discard=top)
        game.apply(safe)
        assert Counter(game.hands[seat]) == hand
        assert game.pile[-1] == top


@variants
def test_com_14_every_default_is_accepted(variant: type[Game]) -> None:
    defaults = {spec.name: spec.default_for({}) for spec in variant.OPTIONS
                if not callable(spec.default)}
    game = variant(seed=0, options=defaults)
    assert {s.name for s in variant.OPTIONS} <= set(game.options)


@variants
def test_com_14_unknown_option_is_rejected_by_name(variant: type[Game]) -> None:
    with pytest.raises(BadInput, match="no_such_option"):
        variant(seed=0, options={"no_such_option": 1})


@variants
def test_com_14_bad_value_is_rejected_by_name(variant: type[Game]) -> None:
    for spec in variant.OPTIONS:
        with pytest.raises(BadInput, match=re.escape(repr(spec.name))):
            variant(seed=0, options={spec.name: "not a value"})


@variants
def test_com_14_a_yaml_boolean_where_none_is_taken_is_told_as_one(variant: type[Game]) -> None:
    """'players: yes' is True to YAML: the message echoed "= True" with no word of why; a
    true or false an option does take (teams) is refused without that word."""
    for spec in variant.OPTIONS:
        for value in (True, False):
            try:
                variant(seed=0, options={spec.name: value})
            except BadInput as exc:
                assert ("YAML reads yes, no, on and off" in str(exc)) == \
                    (not spec.check(value)), (spec.name, value, str(exc))


@variants
def test_variant_is_found_by_name_and_version(variant: type[Game]) -> None:
    assert find_variant(variant.name) is variant
    assert find_variant(variant.version) is variant
    assert "/v" in variant.version
    for alias in variant.aliases:
        assert find_variant(alias) is variant


@variants
def test_com_5_a_decoder_shares_only_what_did_not_change(variant: type[Game]) -> None:
    """The decoder reads a table's combination, the wild cards and the family part once and
    shares them while they stay the same: a view in which any of them changes, grows or
    shrinks comes back equal, and what did not change is the same object as before."""
    game = playout(variant, 2)
    again = variant(seed=game.seed, options=game.options)
    decoder = ViewDecoder()
    previous: View | None = None
    for seat, action in game.log[:WIRE_STEPS]:
        view = again.view(seat)
        decoded = decoder.decode(encode_view(view, 0))
        assert decoded == view
        if previous is not None:
            assert (decoded.wilds is previous.wilds) == (view.wilds == previous.wilds)
            assert (decoded.part is previous.part) == (view.part == previous.part)
            for old, new in zip(previous.table, decoded.table, strict=False):
                assert (old is new) == (old == new)
        previous = decoded
        again.apply(action)


@variants
def test_com_5_every_view_survives_the_wire_with_its_family_part(variant: type[Game]) -> None:
    """A process seat's bot is given exactly the view an in-process bot gets: the view of
    the seat to act at every step of a playout (every seat's at every fifth) comes back equal
    from the wire, its part is the one the
    variant names, and it offers only the kinds of play the view vocabulary has."""
    game = playout(variant, 1)
    again = variant(seed=game.seed, options=game.options)
    decoders = [ViewDecoder() for _ in range(game.players)]
    kinds = set(get_args(PlayKind))
    for step, (seat, action) in enumerate(game.log[:WIRE_STEPS]):
        for who in range(game.players) if step % 5 == 0 else (seat,):
            view = again.view(who)
            assert ViewDecoder().decode(encode_view(view, 0)) == view
            assert decoders[who].decode(encode_view(view, 0)) == view  # history replaced
            assert view.plays <= kinds
            assert (view.part is None) == (variant.view_part is None)
            if variant.view_part is not None:
                assert view.part_as(variant.view_part) is view.part
        again.apply(action)
