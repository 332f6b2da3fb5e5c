"""The human seat: a person plays a whole game of `arena play` from a real terminal
(pexpect drives a pseudo-terminal), answers in the protocol's action text, is refused in
one line naming the rule, asks for hints; the clocks hold a person only with --clock."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pexpect
import pytest
from rich.text import Text
from typer.testing import CliRunner

from arena.actions import Draw, Play, parse_action
from arena.cards import Card
from arena.cli import show
from arena.cli.app import app
from arena.cli.human import HumanSeat, help_text, hint
from arena.cli.show import console
from arena.engine.view import TableMeld
from arena.seats.bot import GameInfo
from arena.variants import find_variant
from arena.variants.laying.view import LayingPart

PROMPT = r"(draw|play) \(([^)]*)\)> "
HINT = r"hint: (.+?)(?: \(you can go out with \S+\))?\r?\n"
runner = CliRunner()


def session(*args: str, plain: bool = True) -> pexpect.spawn:
    """`arena play` in a pseudo-terminal, as a person would start it."""
    env = {**os.environ, "NO_COLOR": "1"} if plain else dict(os.environ)
    term = pexpect.spawn(sys.executable, ["-m", "arena.cli", "play", *args], timeout=120,
                         encoding="utf-8", dimensions=(50, 250), cwd=str(Path.cwd()),
                         env=env)
    term.delaybeforesend = None  # each answer waits for its prompt already
    return term


def play_the_hint(term: pexpect.spawn) -> None:
    """Ask for a hint at the prompt, then type what it suggests."""
    term.sendline("hint")
    term.expect(HINT)
    answer = term.match.group(1)
    term.expect(PROMPT)
    term.sendline(answer)


def test_a_person_plays_a_whole_game_from_the_terminal() -> None:
    """The person asks for a hint at every decision and plays it; a play at a draw, a bad
    card and a card not held are refused with their reason, and the game runs to its
    result."""
    term = session("indian13", "human", "greedy", "-o", "players=2", "-o", "draw_cap=30",
                   "--seed", "5")
    term.expect("you are seat 0 of 2")
    decisions = refusals = 0
    while term.expect([PROMPT, r"rank\s+faults"]) == 0:
        decision = term.match.group(1)
        if decision == "draw" and refusals == 0:
            term.sendline("discard 5S")  # it listed the play forms at a draw
            term.expect(r"refused: 'discard 5S' is not a draw: expected stock or discard")
            term.expect(PROMPT)
            refusals = 1
        if decision == "play" and refusals == 1:
            term.sendline("discard ZZ")  # it said "cannot read 'discard ZZ'", not why
            term.expect(r"refused: bad play 'discard ZZ': bad card 'ZZ': expected rank")
            term.expect(PROMPT)
            term.sendline("discard 5S" if "5S" not in term.before else "discard 9D")
            term.expect(r"refused: IND-16: \S+ is not in the hand")
            term.expect(PROMPT)
            refusals = 3
        play_the_hint(term)
        decisions += 1
    term.expect(pexpect.EOF)
    table = term.before
    term.close()
    assert term.exitstatus == 0, table
    assert decisions >= 2 and refusals == 3
    assert re.search(r"^\s+0\s+human\s+\d+\s+\d+\s+\d\s+0\s*$", table, re.M), table


@pytest.mark.parametrize("variant", ["rummy51", "moroccan", "three_thirteen"])
def test_a_person_plays_a_laying_or_a_three_thirteen_game_by_hints(variant: str) -> None:
    """Melds, lay-offs and the rising threshold (R51, MAR), eleven rounds (TT): the
    advice's answers, typed as a person would, are accepted to the game's end, fault-free."""
    term = session(variant, "human", "greedy", "-o", "players=2", "-o", "draw_cap=40",
                   "--seed", "2")
    decisions = 0
    while term.expect([PROMPT, r"rank\s+faults", r"refused: "]) == 0:
        play_the_hint(term)
        decisions += 1
    assert "refused" not in term.after, term.before[-300:]
    term.expect(pexpect.EOF)
    table = term.before
    term.close()
    assert term.exitstatus == 0 and decisions > 10
    assert re.search(r"^\s+0\s+human\s.*\s0\s*$", table, re.M), table


def test_the_end_of_input_stops_the_game_as_ctrl_c_does() -> None:
    term = session("indian13", "human", "random", "-o", "players=2")
    term.expect(PROMPT)
    term.sendeof()
    term.expect(pexpect.EOF)
    term.close()
    assert term.exitstatus == 130 and "arena: interrupted" in term.before


def test_cards_are_coloured_in_a_terminal() -> None:
    term = session("indian13", "human", "random", "-o", "players=2", plain=False)
    term.expect(PROMPT)
    shown = term.before
    term.sendline("quit")
    term.expect(pexpect.EOF)
    term.close()
    assert "\x1b[31m" in shown
    assert term.exitstatus == 0 and "arena: you quit: the game was not finished" in \
        term.before  # a choice, not an interruption (exit 130, "interrupted")


def test_one_person_per_terminal() -> None:
    result = runner.invoke(app, ["play", "indian13", "human", "human"])
    assert result.exit_code == 2
    assert "2 human seats: a terminal seats one person" in result.stderr


@pytest.mark.parametrize(("clocked", "fault"), [(False, None), (True, "timeout")])
def test_com_8_the_clock_holds_a_person_only_when_asked(clocked: bool, fault: str | None
                                                       ) -> None:
    """A decision that takes longer than its limit is a timeout only with --clock."""
    game = find_variant("indian13")(seed=1, options={"players": 2})
    view = game.view(game.to_act)
    seat = HumanSeat(console(), clocked=clocked, read=lambda prompt: "stock")
    answer = seat.ask(view, limit_ms=-1)  # any answer is late for a limit below zero
    assert answer.fault == fault
    assert answer.answer == (None if clocked else "stock")


@pytest.mark.parametrize("variant", ["rummy51", "moroccan"])
def test_r51_9_mar_8_a_person_is_told_before_a_taken_discard_goes_back(
        variant: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A play that did not lay the discard just taken was applied at once: the card went
    back, a stock card came instead and a fault was counted, and nothing said so."""
    game = find_variant(variant)(seed=4, options={"players": 2})
    while not (game.decision == "draw" and "discard" in game.legal_draws()):
        game.apply(game.safe_action())
    taken = game.pile[-1]
    game.apply(Draw("discard"))
    view = game.view(game.to_act)
    other = next(c for c in view.hand if c != taken)
    answers = iter([f"discard {other}", "stock", "stock"])  # each new answer is told
    seat = HumanSeat(console(), read=lambda prompt: next(answers))
    seat.bind(SimpleNamespace(game=game))  # type: ignore[arg-type]
    answer = seat.ask(view, limit_ms=1000)
    assert answer.answer == "stock" and answer.fault is None
    told = capsys.readouterr().out.replace("\n", " ")
    rule = "R51-9" if variant == "rummy51" else "MAR-8"
    assert told.count(f"{rule}: the taken discard {taken} must be laid this turn") == 2, told
    assert told.count("send the same answer again to go ahead") == 2
    assert f"{rule}: {taken} goes back on the pile and you draw the top stock card instead " \
        "(a fault); then you play again" in told  # it was said only in the faults column
    assert len(game.hands[game.to_act]) == len(view.hand)  # nothing applied while asking


def test_a_hint_is_the_built_in_advice() -> None:
    game = find_variant("indian13")(seed=1, options={"players": 2})
    view = game.view(game.to_act)
    assert hint(view) in view.legal_draws


@pytest.mark.parametrize(("variant", "named", "unnamed"), [
    ("indian13", ["'declare 8D'"], ["tournante", "meld 9H", "lay 3", "take 2", "'legal'"]),
    ("rummy51", ["meld 9H", "lay 3 8H", "take 2 5S"], ["declare", "'legal'", "take 2 JK"]),
])
def test_help_names_the_answers_of_the_game_in_play(variant: str, named: list[str],
                                                    unnamed: list[str]) -> None:
    """Indian Rummy's help offered the tournante, laying and a 'legal' command."""
    game = find_variant(variant)(seed=4, options={"players": 2})
    while game.decision != "play":  # the play decision shows what a play may hold
        game.apply(game.safe_action())
    text = HumanSeat(console(), read=lambda prompt: "")._told(game.view(game.to_act), "help")
    assert text is not None and text.startswith("answers: a draw is stock or discard; a play is")
    assert all(word in text for word in named), text
    assert not any(word in text for word in unnamed), text


def test_a_round_s_end_says_why_in_words() -> None:
    """An invalid declaration ended the round as "(last_player)", and nothing said why."""
    runner = CliRunner()
    done = runner.invoke(app, ["play", "indian13", "human", "greedy", "--seed", "7"],
                         input="stock\ndeclare 2C\n")
    assert "round 1 ends (last_player: one seat is left, the others eliminated; an invalid " \
        "declaration eliminates its declarer, IND-20): penalties [80, 0]" in done.stdout, \
        done.stdout[-2000:]


def test_r51_13_the_help_s_take_back_puts_down_the_card_the_joker_stands_for() -> None:
    """R51-13: a take-back names the card put down in the joker's place; the help taught
    'take 2 JK', which is always refused (JK is not in the hand). The table shows what each
    joker stands for, and the prompt names the plays as they are typed."""
    game = find_variant("rummy51")(seed=4, options={"players": 2})
    while game.decision != "play":
        game.apply(game.safe_action())
    view = game.view(game.to_act)
    text = help_text(view)
    example = text.split("'take ")[1].split("'")[0]
    action = parse_action(f"take {example}")
    assert isinstance(action, Play) and len(action.takebacks) == 1
    assert not action.takebacks[0].card.is_joker
    meld = TableMeld(owner=1, cards=(Card.parse("4S"), Card.parse("JK"), Card.parse("6S")),
                     stands_for=(None, Card.parse("5S"), None))
    assert Text.from_markup(show.melds([meld])).plain == "0: 4S JK=5S 6S (seat 1)"
    asked: list[str] = []

    def read(prompt: str) -> str:
        asked.append(prompt)
        raise EOFError

    with pytest.raises(KeyboardInterrupt):
        HumanSeat(console(), read=read).ask(view, 1000)
    assert "lay N CARDS" in asked[0] and "lay_off" not in asked[0], asked


def test_r51_1_the_person_is_told_their_partner() -> None:
    """R51-1: in a team game the person is told which seat is their partner, and that a
    team's seats share its total; alone, nothing of teams is said."""
    out = console()
    with out.capture() as captured:
        seat = HumanSeat(out, read=lambda prompt: "")
        seat.begin(GameInfo(seat=1, players=4, variant="rummy51", options={"teams": True},
                            seed=1))
        seat.begin(GameInfo(seat=1, players=3, variant="rummy51", options={}, seed=1))
    first, second = captured.get().splitlines()
    assert "in a team with seat 3" in first and "share its total" in first
    assert "team" not in second


def test_a_pasted_page_is_refused_without_echoing_it() -> None:
    """A 2,000,000-character line was echoed whole in its refusal."""
    game = find_variant("indian13")(seed=1, options={"players": 2})
    why = HumanSeat(console())._refusal(game.view(game.to_act), "x" * 2_000_000)
    assert why is not None and len(why) < 200 and "2,000,000 characters" in why


def test_com_5_r51_10_the_person_sees_who_opened_and_what_an_opening_needs() -> None:
    """COM-5: a seat is told who has opened and what an opening needs now; a person at the
    terminal learnt the threshold only from a refusal, and never saw the tournante named."""
    game = find_variant("rummy51")(seed=3, options={"players": 2})
    out = console()
    with out.capture() as captured:
        HumanSeat(out, read=lambda prompt: "")._show(game.view(game.to_act))
    assert "nobody has opened; an opening needs 51; first cycle: nobody lays (R51-8)" \
        in captured.get(), captured.get()
    game.apply(game.safe_action())  # the dealer's first discard: the tournante
    part = game.view(game.to_act).part
    assert isinstance(part, LayingPart) and part.tournante is not None
    assert f"; tournante {part.tournante}" in part.status()
    opened = replace(part, opened=(False, True), threshold=71, first_cycle=False)
    assert opened.status() == f"opened: seat 1; an opening needs 71; tournante {part.tournante}"
    indian = find_variant("indian13")(seed=3, options={"players": 2})
    indian_part = indian.view(indian.to_act).part
    assert indian_part is not None and indian_part.status() == ""  # the indicator is in the
    # round's headline: it does not change within a round


@pytest.mark.parametrize(("answer", "expected"), [
    ("declare", "bad play 'declare': cannot read 'declare'; expected 'discard CARD' or "
                "'declare CARD'"),  # it listed meld, lay and take, which IND has not
    ("discard", "'discard' alone is a draw; now a play: expected 'discard CARD' or "
                "'declare CARD'"),  # "IND-15: a play is expected, not a draw"
])
def test_a_refused_play_names_the_plays_of_this_game(answer: str, expected: str) -> None:
    game = find_variant("indian13")(seed=4, options={"players": 2})
    while game.decision != "play":
        game.apply(game.safe_action())
    seat = HumanSeat(console(), read=lambda prompt: "")
    seat.bind(SimpleNamespace(game=game))  # type: ignore[arg-type]
    assert seat._refusal(game.view(game.to_act), answer) == expected


@pytest.mark.parametrize(("jokers", "shown_jk"), [(0, False), (2, True)])
def test_tt_2_a_game_without_jokers_shows_none_among_the_wild_cards(jokers: int,
                                                                     shown_jk: bool) -> None:
    """TT-2: no jokers by default; the person was shown 'wild: 3S 3H 3D 3C JK'."""
    game = find_variant("three_thirteen")(seed=4, options={"players": 2, "jokers": jokers})
    out = console()
    with out.capture() as captured:
        seat = HumanSeat(out, read=lambda prompt: "")
        seat.begin(GameInfo(seat=game.to_act, players=2, variant="three_thirteen",
                            options=dict(game.options), seed=4))
        seat._show(game.view(game.to_act))
    wild = next(line for line in captured.get().splitlines() if "wild:" in line)
    assert "3S 3H 3D 3C" in wild and ("JK" in wild) == shown_jk, wild


def test_a_refused_draw_keeps_its_rule() -> None:
    """COM-11: a draw the rules refuse says why, not that a play is expected."""
    game = find_variant("three_thirteen")(seed=4, options={"players": 2})
    view = game.view(game.to_act)
    seat = HumanSeat(console(), read=lambda prompt: "")
    seat.check = lambda action: "COM-11: refused for this test"
    assert seat._refusal(view, "discard") == "COM-11: refused for this test"



def test_com_5_the_turn_that_ends_a_round_is_shown_to_the_person() -> None:
    """When the other seat declared, the person saw only "round 1 ends": its draw and its
    declaration came after the person's last decision, and no view showed them."""
    for seed in range(2, 12):
        term = session("indian13", "human", "greedy", "-o", "players=2", "--seed", str(seed))
        while term.expect([PROMPT, r"round 1 ends \(declaration[^\n]*\n"]) == 0:
            play_the_hint(term)
        last = term.before.rsplit("\n", 1)[0]  # from the person's last answer on
        ended = term.after
        term.terminate(force=True)
        if re.search(r"penalties \[[1-9]\d*, 0\]", ended):  # seat 1 declared
            break
    else:
        pytest.fail("no seed of 2-11 had seat 1 declare first")
    assert re.search(r"seat 1 declared: (\S+ ){12}\S+", last), last
