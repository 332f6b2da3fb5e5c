"""The rules calculators (docs/calculators.md): `arena open` on every opening example of
docs/rules.md, `arena meld` with jokers named and counted, `arena hand` saying why a hand
does not declare, strict cards, the variants' decks, and exit 0 for every answer."""

from __future__ import annotations

import json
import re
import shlex
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import all_cards, stacked_deck
from typer.testing import CliRunner

from arena.actions import parse_action
from arena.cards import Card, deck
from arena.cli.app import app
from arena.errors import IllegalAction
from arena.variants import VARIANTS, find_variant

runner = CliRunner()
DOC = (Path(__file__).parents[2] / "docs" / "calculators.md").read_text("utf-8")


def words(text: str) -> list[str]:
    return text.split()


def answer(*args: str) -> str:
    """Exit 0 and nothing on stderr: the calculator answered."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    assert result.stderr == ""
    return result.stdout


def as_json(*args: str) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(answer(*args, "--json"))
    return out


def refused(*args: str) -> str:
    """Exit 2, nothing on stdout, one `arena: error:` line; the message."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, (result.stdout, result.stderr, result.exception)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: error: "), result.stderr
    return lines[0].removeprefix("arena: error: ")


def opening(variant: str, *melds: str, **flags: str) -> dict[str, Any]:
    extra = [a for k, v in flags.items() for a in (f"--{k}", v)]
    return as_json("open", variant, *melds, *extra)


def verdict(report: dict[str, Any]) -> tuple[bool, int | None, str | None]:
    return report["opens"], report["total"], report["rule"]


# ---------------------------------------------------------------- arena open: the rule book


def test_r51_10_opening_examples_count_57_and_55_and_45() -> None:
    """R51-10: `9S 9H 9D | KC KD KS` counts 57 and `5H ... JH` 55, so each opens at 51;
    `5H 6H 7H | 9S 9H 9D` counts 45 and does not."""
    seed = opening("rummy51", "9S 9H 9D", "KC KD KS")
    assert verdict(seed) == (True, 57, None)
    assert [m["points"] for m in seed["melds"]] == [27, 30] and seed["level"] == 51
    assert verdict(opening("rummy51", "5H 6H 7H 8H 9H 10H JH")) == (True, 55, None)
    short = opening("rummy51", "5H 6H 7H", "9S 9H 9D")
    assert verdict(short) == (False, 45, "R51-10")
    assert "needs 51" in short["reason"] and "count 45" in short["reason"]


def test_r51_10_a_joker_taken_back_never_counts_toward_the_opening() -> None:
    """R51-10 example: `take 0 8H; meld 10S 10H 10D; meld QC KC JK=AC` would count 60 and
    reaches 51 only thanks to the joker taken back from `6H 7H JK=8H`."""
    report = opening("rummy51", "10S 10H 10D", "QC KC JK=AC", table="6H 7H JK=8H",
                     take="0 8H")
    assert verdict(report) == (False, 60, "R51-10")
    assert "taken back" in report["reason"]
    own = opening("rummy51", "10S 10H 10D", "QC KC AC")  # the same without the joker
    assert verdict(own) == (True, 60, None)


def test_r51_10_an_opening_of_no_combination_cites_r51_6() -> None:
    report = opening("rummy51", "5H 6H 7H", "9S 9D AD")
    assert verdict(report) == (False, None, "R51-6")
    assert [m["points"] for m in report["melds"]] == [18, None]


def test_r51_11_a_63_opening_fails_once_the_level_is_64() -> None:
    """R51-11 example: P1 opens with 63, so every other player now needs 64; then P2 opens
    with 70, and P3 needs 71."""
    p1 = ("9S 9H 9D", "KC KD KS", "AH 2H 3H")  # 27 + 30 + 6
    assert verdict(opening("rummy51", *p1)) == (True, 63, None)
    risen = opening("rummy51", *p1, level="64")
    assert verdict(risen) == (False, 63, "R51-11")
    assert risen["level"] == 64 and "needs 64" in risen["reason"]
    p2 = ("10H JH QH KH", "10S 10D 10C")  # 40 + 30
    assert verdict(opening("rummy51", *p2, level="64")) == (True, 70, None)
    assert verdict(opening("rummy51", *p2, level="71")) == (False, 70, "R51-11")


def test_r51_19_rummy_71_opens_at_71_and_lays_no_joker() -> None:
    """R51-19: the starting threshold is 71, and no joker is laid in the opening turn."""
    sets = ("9S 9H 9D", "KC KD KS")
    assert verdict(opening("rummy71", *sets)) == (False, 57, "R51-10")
    assert opening("rummy71", *sets)["level"] == 71
    assert verdict(opening("rummy71", *sets, "QC QD QS")) == (True, 87, None)
    with_joker = opening("rummy71", *sets, "QC QD JK")
    assert verdict(with_joker) == (False, 87, "R51-19")
    assert verdict(opening("rummy51", *sets, "QC QD JK", option="opening=71")) == \
        (False, 87, "R51-19")
    assert verdict(opening("rummy51", *sets, "QC QD JK")) == (True, 87, None)  # R51 lays it


def test_r51_11_r51_19_the_level_never_falls_below_the_start() -> None:
    assert "R51-11" in refused("open", "rummy51", "9S 9H 9D", "--level", "50")
    assert "expected 71 or more" in refused("open", "rummy71", "9S 9H 9D", "--level", "51")


def test_mar_9_first_lay_down_examples() -> None:
    """MAR-9: `5H 6H 7H` (18) + `KS KH KD` (30) + `QC QD JK` (0) counts 48 and is refused;
    `9H 10H JH QH` (39) + `KS KH KD` (30) + `AS 2S 3S` (6) counts 75 and is accepted."""
    refused_48 = opening("moroccan", "5H 6H 7H", "KS KH KD", "QC QD JK")
    assert verdict(refused_48) == (False, 48, "MAR-9")
    assert [m["points"] for m in refused_48["melds"]] == [18, 30, 0]
    accepted = opening("moroccan", "9H 10H JH QH", "KS KH KD", "AS 2S 3S")
    assert verdict(accepted) == (True, 75, None)
    assert [m["points"] for m in accepted["melds"]] == [39, 30, 6]


def test_mar_9_a_first_lay_down_needs_a_franc_tierce_and_a_franc_suite() -> None:
    sets_only = opening("moroccan", "KS KH KD", "QS QH QD", "JS JH JD")
    assert verdict(sets_only) == (False, 90, "MAR-9") and "franc suite" in sets_only["reason"]
    runs_only = opening("moroccan", "9H 10H JH QH", "9C 10C JC QC")
    assert verdict(runs_only) == (False, 78, "MAR-9")
    joker_tierce = opening("moroccan", "9H 10H JH QH KH", "KS KD JK", "QC KC AC")
    assert verdict(joker_tierce) == (False, 79, "MAR-9")
    assert verdict(opening("moroccan", "KS KH KD", "AS 2S 3S", option="opening=51")) == \
        (False, 36, "MAR-9")


def test_mar_10_if_the_biggest_so_far_counted_78_the_next_needs_79() -> None:
    """MAR-10 example: the biggest first lay-down counted 78, so the next player needs 79."""
    counts_78 = ("AS 2S 3S", "KS KH KD", "10C JC QC", "3D 4D 5D")  # 6 + 30 + 30 + 12
    counts_79 = ("AS 2S 3S 4S", "KS KH KD", "10C JC QC", "2D 3D 4D")  # 10 + 30 + 30 + 9
    assert verdict(opening("moroccan", *counts_78)) == (True, 78, None)
    assert verdict(opening("moroccan", *counts_78, level="79")) == (False, 78, "MAR-10")
    assert verdict(opening("moroccan", *counts_79, level="79")) == (True, 79, None)


def test_mar_11_no_take_back_in_the_turn_of_the_first_lay_down() -> None:
    report = opening("moroccan", "9H 10H JH QH", "KS KH KD", "AS 2S 3S",
                     table="6C 7C JK=8C", take="0 8C")
    assert verdict(report) == (False, 75, "MAR-11")


def test_mar_13_simple_mode_has_no_first_lay_down() -> None:
    report = opening("moroccan", "9H 10H JH QH", "KS KH KD", "AS 2S 3S", option="mode=simple")
    assert verdict(report) == (False, None, "MAR-13") and report["level"] is None
    assert "MAR-13" in refused("open", "moroccan", "KS KH KD", "--level", "71",
                               "-o", "mode=simple")


def test_com_15_a_joker_with_two_readings_must_be_named_in_an_opening() -> None:
    report = opening("rummy51", "JK 9H 10H", "KS KH KD", "QS QH QD")
    assert verdict(report) == (False, None, "COM-15") and "JK=8H or JK=JH" in report["reason"]
    assert verdict(opening("rummy51", "JK=JH 9H 10H", "KS KH KD", "QS QH QD")) == \
        (True, 89, None)


# ---------------------------------------------------------------- arena open: the referee agrees


def referee_rule(variant: str, melds: list[str], **options: Any) -> str | None:
    """The rule a real game cites when the dealer, not yet opened, lays ``melds`` and keeps
    cards back (None: the play is accepted): what `arena open` must answer."""
    game_cls = find_variant(variant)
    full = Counter(deck(decks=2, jokers=4))
    laid = [Card.parse(t.partition("=")[0]) for m in melds for t in m.split()]
    spare = sorted((full - Counter(laid)).elements(), key=lambda c: (c.is_joker, c.code))
    size = 13 if options.get("mode") == "simple" else 14  # R51-3, MAR-3; the dealer one more
    dealer = laid + spare[:size + 1 - len(laid)]
    other = spare[size + 1 - len(laid):2 * size + 1 - len(laid)]
    first = stacked_deck([dealer[:-1], other], extras=[dealer[-1]], deck_cards=full)
    game = game_cls(seed=0, options={"players": 2, **options}, decks=[first], dealer=0)
    assert sorted(game.hands[0]) == sorted(dealer)
    if not game.rules.lay_in_first_cycle:  # R51-8: the tournante, then seat 1's turn
        game.apply(parse_action(f"discard {dealer[-2]}"))
        game.apply(parse_action("stock"))
        game.apply(parse_action(f"discard {game.turn.drawn}"))
        game.apply(parse_action("stock"))
    play = "; ".join(f"meld {m}" for m in melds) + f"; discard {dealer[-1]}"
    try:
        game.check_play(0, parse_action(play))
    except IllegalAction as exc:
        return exc.rule
    return None


@pytest.mark.parametrize(("variant", "melds", "options"), [
    ("rummy51", ["9S 9H 9D", "KC KD KS"], {}),
    ("rummy51", ["5H 6H 7H", "9S 9H 9D"], {}),
    ("rummy51", ["5H 6H 7H 8H 9H 10H JH"], {}),
    ("rummy51", ["5H 6H 7H", "9S 9D AD"], {}),
    ("rummy51", ["JK 9H 10H", "KS KH KD", "QS QH QD"], {}),
    ("rummy51", ["JK=JH 9H 10H", "KS KH KD", "QS QH QD"], {}),
    ("rummy51", ["9S 9H 9D", "KC KD KS", "QC QD JK"], {"opening": 71}),
    ("rummy51", ["9S 9H 9D", "KC KD KS", "QC QD QS"], {"opening": 71}),
    ("rummy51", ["AS 2S 3S", "QS KS AS"], {"ace_high_value": 11}),
    ("moroccan", ["5H 6H 7H", "KS KH KD", "QC QD JK"], {}),
    ("moroccan", ["9H 10H JH QH", "KS KH KD", "AS 2S 3S"], {}),
    ("moroccan", ["KS KH KD", "QS QH QD", "JS JH JD"], {}),
    ("moroccan", ["9H 10H JH QH", "KS KH KD", "AS 2S 3S"], {"mode": "simple"}),
], ids=lambda v: str(v) if not isinstance(v, dict) else ",".join(f"{k}={x}" for k, x in
                                                                  v.items()) or "defaults")
def test_arena_open_answers_as_the_referee_checks_the_play(variant: str, melds: list[str],
                                                           options: dict[str, Any]) -> None:
    flags = [a for k, v in options.items() for a in ("-o", f"{k}={v}")]
    report = as_json("open", variant, *melds, *flags)
    expected = referee_rule(variant, melds, **options)
    assert (report["opens"], report["rule"]) == (expected is None, expected)


# ---------------------------------------------------------------- arena open: bad input


@pytest.mark.parametrize(("args", "expected"), [
    (["open", "rummy51", "9S 9H 1D"], "bad card '1D': '1' is not a rank"),
    (["open", "rummy51", "9S 9H 9D", "11S 11H 11D"], "bad card '11S'"),
    (["open", "rummy51", "0H 0S 0D"], "bad card '0H'"),
    (["open", "rummy51", "9S", "9H", "9D"], "quote each combination"),
    (["open", "rummy51", "9S 9H 9D", "9S 9C JK", "9S 9D 9C"],
     "9S given 3 times: the deck holds 2"),
    (["open", "rummy51", "JK 2S 3S", "JK 2H 3H", "JK 2D 3D", "JK 2C 3C", "JK 4C 5C"],
     "JK given 5 times: the deck holds 4"),
    (["open", "rummy51", "JK 2S 3S", "JK 2H 3H", "JK 2D 3D", "-o", "jokers=2"],
     "JK given 3 times: the deck holds 2"),
    (["open", "rummy51", "9S 9H 9D", "--table", "6H 7H"], "--table '6H 7H': not a combination"),
    (["open", "rummy51", "9S 9H 9D", "--table", "6H 7H JK", "--take", "x 8H"], "--take 'x 8H'"),
    (["open", "rummy51", "9S 9H 9D", "--table", "6H 7H JK", "--take", "0"], "--take '0'"),
    (["open", "rummy51", "9S 9H JK=", "KC KD KS"],
     "expected the card the wild card stands for after '='"),
    (["open", "rummy51", "9S 9H 9D", "--take", "0 8H"], "the table holds 0 combination(s)"),
    (["open", "rummy51", "9S 9H 9D", "--table", "6H 7H JK", "--take", "1 8H"],
     "--take '1 8H': the table holds 1"),
    (["open", "rummy51", "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS", "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H"],
     "21 cards: expected at most 20 in one opening"),
    (["open", "indian13", "9S 9H 9D"], "not available for this variant"),
    (["open", "three_thirteen", "9S 9H 9D"], "not available for this variant"),
    (["open", "rummy51", "9S 9H 9D", "-o", "teams=maybe"], "option 'teams'"),
    (["open", "poker", "9S 9H 9D"], "unknown variant 'poker'"),
])
def test_arena_open_bad_input_is_one_line_and_exit_2(args: list[str], expected: str) -> None:
    assert expected in refused(*args)


def test_arena_open_take_back_joker_is_counted_once_against_the_deck() -> None:
    # The table's JK goes into the new combination: five jokers are never in play at once.
    report = opening("rummy51", "10S 10H 10D", "QC KC JK=AC", table="6H 7H JK=8H",
                     take="0 8H", option="jokers=2")
    assert report["rule"] == "R51-10"


# ---------------------------------------------------------------- arena meld


def test_r51_5_meld_points_from_the_rule_examples() -> None:
    """R51-5: `5H 6H 7H` 18, `9S 9H 9D` 27, `AH 2H 3H` 6, `QS KS AS` 30, `JK 6H 7H` with
    JK=8H 21 (`ace_high_value: 11` makes the high ace 11, the low one stays 1)."""
    for cards, points in (("5H 6H 7H", 18), ("9S 9H 9D", 27), ("AH 2H 3H", 6),
                          ("QS KS AS", 30), ("JK=8H 6H 7H", 21)):
        report = as_json("meld", "rummy51", *cards.split())
        assert (report["valid"], report["points"], report["note"]) == (True, points, None)
    assert as_json("meld", "rummy51", "QS", "KS", "AS", "-o", "ace_high_value=11")["points"] == 31
    assert as_json("meld", "rummy51", "AH", "2H", "3H", "-o", "ace_high_value=11")["points"] == 6


def test_r51_5_mar_7_a_run_of_all_thirteen_ranks_counts_its_ace_high() -> None:
    """R51-5, MAR-7, COM-2: a run of all 13 ranks is both A-2-...-K and 2-...-K-A, so its ace
    is high, as laid after the king, and counts 10 (it had counted 1, as in A-2-3)."""
    suit = [f"{r}S" for r in (*range(2, 11), "J", "Q", "K")]
    for variant, cards in (("rummy51", [*suit, "AS"]), ("rummy51", ["AS", *suit]),
                           ("rummy51", [*suit, "JK=AS"]), ("moroccan", [*suit, "AS"])):
        report = as_json("meld", variant, *cards)
        assert (report["valid"], report["points"]) == (True, 94), (variant, cards)
    assert as_json("meld", "rummy51", *suit, "AS", "-o", "ace_high_value=11")["points"] == 95
    assert as_json("meld", "rummy51", "AS", *suit[:-1])["points"] == 75  # A to Q: low
    assert opening("rummy51", " ".join([*suit, "AS"]), level="90")["opens"] is True


def test_com_15_meld_reads_the_named_joker_and_asks_when_two_cards_fit() -> None:
    named = as_json("meld", "rummy51", "JK=8H", "6H", "7H")
    assert named == {"valid": True, "kind": "sequence", "reason": None,
                     "cards": ["6H", "7H", "JK=8H"], "points": 21, "note": None}
    low = as_json("meld", "rummy51", "JK=5H", "6H", "7H")
    assert (low["cards"], low["points"]) == (["JK=5H", "6H", "7H"], 18)
    open_ended = as_json("meld", "rummy51", "JK", "6H", "7H")
    assert open_ended["valid"] is True and open_ended["points"] is None
    assert open_ended["note"].startswith("COM-15: ") and "JK=5H or JK=8H" in open_ended["note"]
    one_reading = as_json("meld", "rummy51", "6H", "JK", "8H")
    assert (one_reading["cards"], one_reading["points"]) == (["6H", "JK=7H", "8H"], 21)


def test_com_15_a_wrong_reading_is_an_invalid_meld_with_exit_0() -> None:
    wrong = as_json("meld", "rummy51", "JK=9H", "6H", "7H")
    assert (wrong["valid"], wrong["kind"], wrong["points"]) == (False, None, None)
    assert wrong["reason"].startswith("COM-15: ") and "cannot stand for 9H" in wrong["reason"]
    natural = answer("meld", "moroccan", "6H=5H", "7H", "8H")
    assert natural.startswith("invalid: COM-15: ") and "only a joker" in natural


def test_mar_9_a_meld_with_a_joker_counts_0_toward_a_first_lay_down() -> None:
    franc = as_json("meld", "moroccan", "KS", "KH", "KD")
    assert (franc["kind"], franc["points"], franc["note"]) == ("set", 30, None)
    joker = as_json("meld", "moroccan", "QC", "QD", "JK")
    assert (joker["kind"], joker["points"]) == ("set", 0)
    assert joker["note"].startswith("MAR-9: ")
    assert answer("meld", "moroccan", "QC", "QD", "JK").splitlines()[-1] == \
        "points: 0 (MAR-9: a combination with a joker counts 0 toward a first lay-down)"
    simple = as_json("meld", "moroccan", "KS", "KH", "KD", "-o", "mode=simple")
    assert simple["points"] is None and simple["note"].startswith("MAR-13: ")


@pytest.mark.parametrize(("args", "reason"), [
    (["meld", "rummy51", "9S", "9S", "9H"], "R51-6: a set needs natural cards of distinct"),
    (["meld", "rummy71", "JK", "4H", "JK"], "R51-6: at most 1 wild card(s)"),
    (["meld", "moroccan", "KS", "AS", "2S"], "MAR-6: ranks are not consecutive (the ace is "
                                             "low or high, never both)"),
    (["meld", "indian13", "4H", "9D", "6D", "--wild", "9D"], "IND-12: natural cards"),
    (["meld", "three_thirteen", "QS", "KS", "AS", "--round", "3"],  # TT-9: low only
     "TT-9: ranks are not consecutive (the ace is low only)"),
    (["meld", "rummy51", "6H", "7H", "9H"], "R51-6: ranks are not consecutive"),
])
def test_meld_exits_0_and_says_why_an_invalid_one_is_invalid(args: list[str],
                                                             reason: str) -> None:
    out = answer(*args)
    assert out == f"invalid: {out.removeprefix('invalid: ')}" and reason in out
    assert as_json(*args)["reason"].startswith(reason)
    assert ("ace" in out) == any(a.startswith("A") for a in args[2:]), out


def test_meld_keeps_the_plain_shape_where_nothing_is_counted() -> None:
    assert as_json("meld", "indian13", "4H", "9D", "6H", "--wild", "9D") == \
        {"valid": True, "kind": "sequence", "reason": None}
    assert answer("meld", "three_thirteen", "7S", "7H", "JK", "--round", "5",
                  "-o", "jokers=2") == "valid: sequence\n"


@pytest.mark.parametrize(("args", "expected"), [
    (["meld", "indian13", "4H", "9D=5H", "6H", "--wild", "9D"], "9D=5H: the meld calculator "
     "finds what each wild card stands for here (IND-12); give 9D alone"),
    (["meld", "three_thirteen", "4H", "7S=5H", "6H", "--round", "5"], "(TT-8)"),
    (["meld", "rummy51", *["3S"] * 5], "3S given 5 times: the deck holds 2"),
    (["meld", "three_thirteen", "7S", "7H", "JK", "--round", "5"],
     "JK given once: the deck holds 0"),
    (["meld", "three_thirteen", "JK", "JK", "JK", "7S", "--round", "5", "-o", "jokers=2"],
     "JK given 3 times: the deck holds 2"),
    (["meld", "indian13", "JK", "JK", "JK", "--wild", "7C"], "JK given 3 times"),
    (["meld", "rummy51", "1D", "2D", "3D"], "bad card '1D'"),
    (["meld", "rummy51", "JK=1H", "2H", "3H"], "bad card '1H'"),
    (["meld", "rummy51", "JK=", "2H", "3H"],
     "expected the card the wild card stands for after '='"),
    (["meld", "indian13", "3S", "4S", "5S", "--wild", "7C", "--round", "3"],
     "indian13: --round does not apply: the indicator (--wild) alone sets the wild cards"),
    (["hand", "indian13", "3S", "4S", "5S", "--wild", "7C", "--round", "3"],
     "indian13: --round does not apply"),
])
def test_meld_bad_input_is_one_line_and_exit_2(args: list[str], expected: str) -> None:
    assert expected in refused(*args)


# ---------------------------------------------------------------- arena hand: why not


@pytest.mark.parametrize(("args", "reason"), [
    (["hand", "indian13", *words("3S 4S 5S 8H 8D 8C KC 2D 6C 9H QS JH"), "--wild", "7C"],
     "IND-17: a declaration shows 13 cards, not 12"),
    (["hand", "indian13", *words("3S 4S 6S 8D 8C 8H KC KD KH 9H 9C 9D 7S"), "--wild", "7C"],
     "IND-17: no pure sequence"),
    (["hand", "indian13", *words("3S 4S 5S 8H 8D 8C KC 2D 6C 9H QS JH 10D"), "--wild", "7C"],
     "IND-17: the best split with a pure sequence leaves QS 9H JH 2D 10D 6C KC outside "),
    (["hand", "indian13", *words("3S 4S 5S 6S 8D 8C 8H KC KD KH 9H 9C 9D"), "--wild", "7C"],
     "IND-17: the groups need a second sequence"),
    (["hand", "three_thirteen", *words("2C 3C 4C 6D KS QH"), "--round", "4"],
     "TT-10: the best split leaves KS QH outside melds, 20 points"),
    (["hand", "three_thirteen", *words("2C 3C 4C 6D"), "--round", "1"],
     "TT-10: in round 1 a hand goes out with 3 cards, not 4"),
    (["hand", "three_thirteen", "3S", "4S", "5S", "--wild", "7C"],  # TT-7: 7s wild: round 5
     "TT-10: in round 5 a hand goes out with 7 cards, not 3"),
    (["hand", "rummy51", "AS", "2S", "3S"], "R51-14: a combination and a discard take 4"),
    (["hand", "rummy51", *words("JK 6H 7H KS KH KD 9C 9D 2S 4D")],
     "R51-14: the cards but one do not all fit"),
    (["hand", "rummy71", *words("KS KH KD KC QS QH QD 9S 9H 2D 4C 5C 6C JK")],
     "R51-19: going out at once without having opened lays no joker"),
    (["hand", "rummy71", *words("KS KH KD KC QS QH QD 9S 9H JK 4C 5C 6C JK")],
     "R51-19: going out at once without having opened lays no joker, and 2 jokers"),
    (["hand", "moroccan", *words("KS KH KD 9S 9H 9D 5S 5H 5D 2C 2D 2H 7C")],
     "MAR-12: going out at once needs a franc tierce and a franc suite"),
    (["hand", "moroccan", *words("KS KH KD 9S 9H 9D 5S 5H 5D 2C 2D 2H 7C"), "-o",
      "mode=simple"], "MAR-13: going out at once needs a franc tierce and a franc suite"),
])
def test_hand_says_why_the_cards_do_not_declare(args: list[str], reason: str) -> None:
    last = answer(*args).splitlines()[-1]
    assert last.startswith("valid declaration: no (") and reason in last
    report = as_json(*args)
    assert report["valid_declaration"] is False and report["reason"].startswith(reason)


@pytest.mark.parametrize("args", [
    ["hand", "indian13", *words("2S 3S 4S 9H 10H JK QH 5D 5C 5H KS KD 7S"), "--wild", "7C"],
    ["hand", "three_thirteen", "4H", "5H", "3S", "--round", "1"],
    ["hand", "rummy51", "AS", "2S", "3S", "9C"],
    ["hand", "moroccan", *words("9H 10H JH QH KS KH KD AS 2S 3S QC QD JK 5C")],
])
def test_hand_that_declares_has_no_reason(args: list[str]) -> None:
    assert answer(*args).splitlines()[-1] == "valid declaration: yes"
    report = as_json(*args)
    assert report["valid_declaration"] is True and report["reason"] is None


def test_r51_19_a_hand_that_goes_out_shows_the_split_going_out_lays() -> None:
    """Rummy 71 lays no joker going out: the table shows it as the discard, not in a meld."""
    args = ["hand", "rummy71", *words("KS KH KD QS QH QD 9S 9H 9D 4C 5C 6C 7C JK")]
    report = as_json(*args)
    assert report["valid_declaration"] is True and report["deadwood"] == ["JK"]
    assert all("JK" not in m["cards"] for m in report["melds"])
    assert [line.split() for line in answer(*args).splitlines()
            if line.startswith("deadwood")] == [["deadwood", "JK"]]


@pytest.mark.parametrize(("args", "group"), [
    (["rummy51", *words("2C 3C 4C 3D 3S 3H 10S JS QS JK 5D")], ["2C", "3C", "4C", "JK=5C"]),
    (["rummy51", *words("2H 3H JK 9C")], ["2H", "3H", "JK=4H"]),
    (["rummy51", *words("9H 10H JH QH KH AH 5C")], ["QH", "KH", "AH"]),
])
def test_com_15_a_going_out_group_is_shown_as_a_lay_writes_it(args: list[str],
                                                              group: list[str]) -> None:
    """A joker where two cards fit is named (a bare one would be refused, COM-15), and a
    run reads in its order, the ace after the king."""
    report = as_json("hand", *args)
    assert report["valid_declaration"] is True
    assert group in [m["cards"] for m in report["melds"]]
    assert " ".join(group) in answer("hand", *args)
    assert answer("meld", args[0], *group).startswith("valid: ")


def test_hand_json_ends_with_the_reason() -> None:
    report = as_json("hand", "rummy51", "KS", "4D", "JK", "AH")
    assert list(report) == ["variant", "cards", "wild", "melds", "deadwood", "points",
                            "valid_declaration", "reason"]


# ---------------------------------------------------------------- strict cards, the deck


@pytest.mark.parametrize(("token", "part"), [("1D", "'1' is not a rank"),
                                             ("11S", "'11' is not a rank"),
                                             ("0H", "'0' is not a rank"),
                                             ("QX", "'X' is not a suit")])
def test_com_1_a_token_that_is_no_card_is_refused_by_every_calculator(token: str,
                                                                      part: str) -> None:
    for args in (["hand", "rummy51", "2S", token], ["meld", "rummy51", "2S", token, "4S"],
                 ["open", "rummy51", f"2S 3S {token}"],
                 ["hand", "indian13", "2S", "3S", "--wild", token]):
        message = refused(*args)
        assert message.startswith(f"bad card {token!r}: {part}"), message


@pytest.mark.parametrize(("args", "expected"), [
    (["hand", "rummy51", *["3S"] * 5], "3S given 5 times: the deck holds 2"),
    (["hand", "indian13", "JK", "JK", "JK", "4S", "--wild", "7C"],
     "JK given 3 times: the deck holds 2"),
    (["hand", "rummy51", "JK", "JK", "JK", "4S", "-o", "jokers=2"],
     "JK given 3 times: the deck holds 2"),
    (["hand", "three_thirteen", "JK", "4S", "5S", "--round", "1"],
     "JK given once: the deck holds 0"),
])
def test_hand_refuses_more_copies_than_the_deck_holds(args: list[str], expected: str) -> None:
    assert refused(*args) == expected


def test_hand_accepts_every_copy_the_deck_holds() -> None:
    answer("hand", "rummy51", "3S", "3S", "JK", "JK", "JK", "JK")
    answer("hand", "three_thirteen", "JK", "JK", "JK", "JK", "--round", "2", "-o", "jokers=4")


DEAL_OPTIONS = [("indian13", {}), ("three_thirteen", {}), ("three_thirteen", {"jokers": 2}),
                ("three_thirteen", {"jokers": 4}), ("rummy51", {}), ("rummy51", {"jokers": 2}),
                ("rummy71", {}), ("moroccan", {}), ("moroccan", {"mode": "simple"})]


@pytest.mark.parametrize(("variant", "options"), DEAL_OPTIONS)
def test_deck_counts_is_what_a_dealt_game_holds(variant: str, options: dict[str, Any]) -> None:
    game_cls = find_variant(variant)
    dealt = all_cards(game_cls(seed=3, options=options))
    assert dealt == game_cls.deck_counts(options)


def test_every_registered_variant_says_what_its_deck_holds() -> None:
    for game_cls in VARIANTS:
        assert game_cls.deck_counts({}) is not None, game_cls.name


# ---------------------------------------------------------------- the page itself


def doc_examples() -> list[tuple[str, str]]:
    out = []
    for block in re.findall(r"```console\n(.*?)```", DOC, re.S):
        for part in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, expected = part.partition("\n")
            out.append((command, expected.rstrip("\n")))
    return out


@pytest.mark.parametrize(("command", "expected"), doc_examples())
def test_docs_calculators_example_runs_as_written(command: str, expected: str) -> None:
    args = shlex.split(command)
    assert args[0] == "arena"
    assert answer(*args[1:]).rstrip("\n") == expected


def test_docs_calculators_has_an_example_of_each_calculator() -> None:
    commands = {shlex.split(c)[1] for c, _ in doc_examples()}
    assert commands == {"hand", "meld", "open"}
