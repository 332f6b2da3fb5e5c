"""A variant plugs in from outside ``arena/``: Knock Seven (tests/toy/knock7.py), one module and
one ``register`` call, passes the conformance suite and is played by the built-in bots."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import test_conformance as conformance
from toy.knock7 import Knock7

from arena import variants
from arena.errors import BadInput
from arena.records import replay
from arena.referee import play_game
from arena.seats.bot import BotSpec

SUITE: list[tuple[Callable[..., None], dict[str, Any]]] = [
    (conformance.test_random_playouts_keep_every_invariant, {}),
    (conformance.test_com_4_same_seed_same_game, {"seed": 3}),
    (conformance.test_com_4_seed_decides_the_deal, {}),
    (conformance.test_com_10_safe_draw_then_safe_play_leaves_the_hand_unchanged, {}),
    (conformance.test_com_14_every_default_is_accepted, {}),
    (conformance.test_com_14_unknown_option_is_rejected_by_name, {}),
    (conformance.test_com_14_bad_value_is_rejected_by_name, {}),
    (conformance.test_com_14_a_yaml_boolean_where_none_is_taken_is_told_as_one, {}),
    (conformance.test_com_14_every_option_value_keeps_every_invariant, {"per_set": 2}),
    (conformance.test_variant_is_found_by_name_and_version, {}),
    (conformance.test_com_5_every_view_survives_the_wire_with_its_family_part, {}),
    (conformance.test_com_5_a_decoder_shares_only_what_did_not_change, {}),
]


def test_the_toy_variant_meets_every_conformance_test() -> None:
    """A conformance test added for the built-in variants is run on the toy one too."""
    every = {name for name in dir(conformance) if name.startswith("test_")}
    assert {check.__name__ for check, _ in SUITE} == every


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> type[Knock7]:
    """Knock Seven in the registry for this test only."""
    monkeypatch.setattr(variants, "VARIANTS", list(variants.VARIANTS))
    return variants.register(Knock7)  # type: ignore[return-value]


@pytest.mark.parametrize(("check", "args"), SUITE, ids=[f.__name__ for f, _ in SUITE])
def test_the_conformance_suite_holds_for_a_toy_variant(
        registered: type[Knock7], check: Callable[..., None], args: dict[str, Any]) -> None:
    check(registered, **args)


def test_the_built_in_bots_play_a_toy_variant(registered: type[Knock7]) -> None:
    """Its advice comes from the variant: greedy goes out, and the game replays (COM-4)."""
    specs = [BotSpec("greedy", "bots.greedy:GreedyBot"),
             BotSpec("random", "bots.random_bot:RandomBot")]
    records = [play_game(registered, specs, seed=seed) for seed in range(20)]
    assert all(tuple(replay(r).totals) == r.totals for r in records)
    assert all(sum(s.faults.values()) == 0 for r in records for s in r.seats)
    assert any(r.rounds[0].reason == "out" for r in records)
    assert variants.find_variant("k7") is Knock7


def test_a_taken_name_is_refused(registered: type[Knock7]) -> None:
    class Impostor(Knock7):
        name = "impostor"
        version = "impostor/v1"
        aliases = ("ind",)  # Indian Rummy's

    with pytest.raises(BadInput, match="'impostor': ind already taken"):
        variants.register(Impostor)
