"""A games.jsonl record that breaks docs/records.md is refused in one line naming its file
and line (or record), exit code 2: a leaderboard never counts it and a replay never shows
a game other than the one played."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.app import app
from arena.errors import BadInput
from arena.records import GameRecord, places, read_games
from arena.referee import play_game
from arena.replay import steps
from arena.seats.bot import BotSpec
from arena.variants import find_variant

runner = CliRunner()
Raw = dict[str, Any]


@pytest.fixture(scope="module")
def lines() -> list[str]:
    """Two real records of one indian13 tournament, each a games.jsonl line."""
    specs = [BotSpec("greedy", "bots.greedy:GreedyBot"),
             BotSpec("random", "bots.random_bot:RandomBot")]
    return [play_game(find_variant("indian13"), specs, seed=seed, options={"players": 2},
                      game_id=f"t0000-g00{seed}").to_json() for seed in (1, 2)]


def folder_of(tmp_path: Path, lines: list[str], change: Callable[[Raw], Any],
              at: int = 0) -> Path:
    """A results folder whose record ``at`` is changed (in place, or replaced by what
    ``change`` returns)."""
    raws = [json.loads(line) for line in lines]
    raws[at] = change(raws[at]) or raws[at]
    folder = tmp_path / "results"
    folder.mkdir(exist_ok=True)
    (folder / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in raws), "utf-8")
    return folder


def refused(*args: str) -> str:
    """The one line of an arena command refused as bad input (exit code 2)."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, (result.stdout, result.stderr, result.exception)
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stdout == "", result.stdout  # nothing of a game that does not replay
    return result.stderr


def _edit_a_card(raw: Raw) -> None:
    """The first discard played changed to a card the other seat holds then."""
    before = None
    for step in steps(GameRecord.from_json(json.dumps(raw))):
        if step.at is not None and before is not None and step.action.startswith("discard "):
            other = before.hands[1 - (step.seat or 0)][0]
            played = raw["actions"].split("/")
            played[step.at] = f"{step.seat}d{other}"
            raw["actions"] = "/".join(played)
            return
        before = step.after


@pytest.mark.parametrize(("change", "expected"), [
    (_edit_a_card, r"action \d+ '\d discard \w+': IND-16: \w+ is not in the hand"),
    (lambda r: r.update(seed=r["seed"] + 1), r": action \d+ "),  # another deal, maybe
    # another dealer
    (lambda r: r.update(actions=r["actions"] + "/0s"), r"after the game's end"),
    (lambda r: r.update(actions=r["actions"].rpartition("/")[0]),
     r"end before the game does \(cut short, or edited\)"),
    (lambda r: r.update(rounds=[{**r["rounds"][0], "penalties": r["totals"][::-1]}],
                        totals=r["totals"][::-1], ranks=r["ranks"][::-1]),  # COM-13: all
     r"replayed totals \[\d+, \d+\] differ from the record's \[\d+, \d+\]"),  # edited alike
])
def test_a_record_that_does_not_replay_is_bad_input(tmp_path: Path, lines: list[str],
                                                    change: Callable[[Raw], Any],
                                                    expected: str) -> None:
    """An action the rules refuse is the record's fault, not the arena's: exit code 2, the
    file, the record and the rule, as for totals that do not replay."""
    folder = folder_of(tmp_path, lines, change)
    err = refused("replay", str(folder), "t0000-g001")
    assert f"{folder / 'games.jsonl'}: record t0000-g001: " in err
    assert err.rstrip().endswith("the record does not replay")
    assert re.search(expected, err), err


def _fault(kind: str, count: int) -> Callable[[Raw], None]:
    return lambda r: r["seats"][1]["faults"].update({kind: count})


def _ranks_reversed(raw: Raw) -> None:
    raw["totals"], raw["ranks"] = [999, 0], [1, 2]


def _forfeit_ranked_first(raw: Raw) -> None:
    raw["totals"], raw["ranks"] = [0, 80], [1, 2]
    raw["seats"][0]["forfeit"] = True
    raw["termination"] = "forfeit"


def _totals_swapped(raw: Raw) -> None:
    """The winner's total given to the loser, the ranks with it, the rounds left alone: the
    leaderboard and a resumed run counted the edited result."""
    raw["totals"], raw["ranks"] = raw["totals"][::-1], raw["ranks"][::-1]


def _forfeit_kept_quiet(raw: Raw) -> None:
    """Seat 0 forfeited (and ranks last), the ending left as it was."""
    raw["totals"], raw["ranks"] = [0, 80], [2, 1]
    raw["seats"][0]["forfeit"] = True


@pytest.mark.parametrize(("change", "at", "expected"), [
    (_fault("boom", 1), 0, "games.jsonl:1: .*faults: expected counts >= 0 of timeout, "
                           "illegal, crash, unreadable, got {'boom': 1}"),
    (_fault("crash", -3), 1, "games.jsonl:2: .*got {'crash': -3}"),
    (_ranks_reversed, 0, r"games.jsonl:1: .*ranks: expected \[2, 1\] for totals \[999, 0\]"),
    (_forfeit_ranked_first, 1, r"games.jsonl:2: .*ranks: expected \[2, 1\]"),
    (lambda r: r.update(termination="forfeit"), 1,  # nobody forfeited
     r"games.jsonl:2: .*termination: expected 'forfeit' exactly when a seat forfeited, got "
     r"'forfeit' with no seat forfeited"),
    (_forfeit_kept_quiet, 0, r"games.jsonl:1: .*termination: expected 'forfeit' exactly when "
                             r"a seat forfeited, got '(normal|draw_cap)' with seats \[0\]"),
    (lambda r: r.update(variant="rummy51/v1"), 1,
     "games.jsonl:2: variant 'rummy51/v1', expected 'indian13/v1' as in the records before "
     "it"),
    (lambda r: r.update(variant="indian13"), 0,
     "games.jsonl:1: variant 'indian13', expected a versioned variant"),
    (lambda r: r["seats"][1].update(bot="evil\x1b]0;title\x07"), 1,
     r"games.jsonl:2: .*seat 'evil\\x1b\]0;title\\x07': expected a bot name of at most 100 "
     r"printable characters"),
    *[(lambda r, name=name: r["seats"][0].update(bot=name), 0,  # type: ignore[misc]
       r"games.jsonl:1: .*seat '.*': expected a bot name of at most 100 printable characters "
       r"\(200 bytes in UTF-8\), no spaces at its ends, without '/', not '.' or '..'")
      for name in ("", "  ", "a/b", "..", "x" * 101)],  # a config refuses each
    (_totals_swapped, 1, r"games.jsonl:2: .*totals: expected the sums of the rounds' "
                         r"penalties, \[\d+, \d+\], got \[\d+, \d+\]"),
    (lambda r: r.update(rounds=[]), 0, r"games.jsonl:1: .*totals: expected the sums of the "
                                       r"rounds' penalties, \[0, 0\]"),
    (lambda r: r["options"].update(players=9), 0,
     r"games.jsonl:1: .*options: expected players 2, one a seat, got 9"),
    (lambda r: r.update(seed=2 ** 63), 1,
     r"games.jsonl:2: .*seed: expected an integer from 0 to 9223372036854775807, got "
     r"9223372036854775808"),
    (lambda r: r.update(seed=-5), 1, r"games.jsonl:2: .*seed: expected an integer from 0"),
    (lambda r: r["seats"][1].update(time_p95_ms=-5.0), 0,
     r"games.jsonl:1: .*seat 'random': expected times of 0 ms or more, got .*, -5.0, "),
    (lambda r: r.update(id="g\u202e1"), 0,
     r"games.jsonl:1: .*id: expected printable text, got 'g\\u202e1'"),
    (lambda r: r.update(totals=[-1000, 80], ranks=[1, 2]), 0,  # no penalty is below 0
     r"games.jsonl:1: .*totals: expected a list of integers from 0 to 1,000,000,000, got "
     r"\[-1000, 80\]"),
    (lambda r: r["rounds"][0].update(penalties=[0, -5]), 1,
     r"games.jsonl:2: .*penalties: expected a list of integers from 0"),
    (lambda r: r["rounds"][0].update(dealer=7), 0,  # only a replay saw these
     r"games.jsonl:1: .*rounds\[0\]: expected round 1, dealt by a seat from 0 to 1, got "
     r"round 1 dealt by 7"),
    (lambda r: r["rounds"][0].update(round=2), 1,
     r"games.jsonl:2: .*rounds\[0\]: expected round 1, .* got round 2 dealt by"),
    (lambda r: r.__delitem__("actions"), 0,  # was a KeyError: 'actions'
     r"games.jsonl:1: .*\(ValueError: actions: missing \(expected a list or a text\)\)"),
    (lambda r: r.update(actions=5), 1,
     r"games.jsonl:2: .*actions: expected a list or a text, got 5"),
    (lambda r: r.__delitem__("rounds"), 0,  # "got None" read as a null written there
     r"games.jsonl:1: .*rounds: missing \(expected list\)"),
    (lambda r: r["seats"][0].__delitem__("decisions"), 1,
     r"games.jsonl:2: .*decisions: missing \(expected int\)"),
])
@pytest.mark.parametrize("actions", [True, False])
def test_a_record_against_the_format_is_refused(tmp_path: Path, lines: list[str],
                                                change: Callable[[Raw], Any], at: int,
                                                expected: str, actions: bool) -> None:
    """Unknown fault kinds, negative counts, ranks the totals do not give, a second variant,
    and a bot name or an id that would act on a terminal (the arena prints them) are
    refused with the file and line, whether read to rate or to replay."""
    folder = folder_of(tmp_path, lines, change, at)
    with pytest.raises(BadInput, match=expected):
        read_games(folder / "games.jsonl", actions=actions)


@pytest.mark.parametrize("command", [["leaderboard"], ["report"], ["replay"]])
def test_an_unknown_variant_version_names_the_file_and_line(tmp_path: Path, lines: list[str],
                                                            command: list[str]) -> None:
    folder = folder_of(tmp_path, lines, lambda r: r.update(variant="indian13/v9"))
    args = [*command, str(folder), *(["t0000-g001"] if command == ["replay"] else [])]
    err = refused(*args)
    assert f"{folder / 'games.jsonl'}:1: unknown variant 'indian13/v9': expected one of " \
           in err, err


def test_the_leaderboard_refuses_what_the_reader_refuses(tmp_path: Path,
                                                         lines: list[str]) -> None:
    folder = folder_of(tmp_path, lines, _fault("boom", 1))
    assert "games.jsonl:1: " in refused("leaderboard", str(folder))


def test_a_forfeited_seat_ranks_last_whatever_its_total(tmp_path: Path,
                                                        lines: list[str]) -> None:
    """The ranks the referee gives are read back: totals first, a forfeit after all."""
    def forfeit(raw: Raw) -> None:
        raw["totals"], raw["ranks"] = [0, 80], [2, 1]
        raw["rounds"] = [{**raw["rounds"][0], "penalties": [0, 80]}]
        raw["seats"][0]["forfeit"] = True
        raw["termination"] = "forfeit"
    folder = folder_of(tmp_path, lines, forfeit)
    assert read_games(folder / "games.jsonl")[0].ranks == (2, 1)
    assert places([5, 5, 3, 9], [False] * 4) == (2, 2, 1, 4)
    assert places([5, 5, 3, 9], [False, False, True, False]) == (1, 1, 4, 3)


@pytest.mark.parametrize("anchor", ["{r: .nan}", "{r: 1.0e+300}", "{r: abc}", "{r: [1]}",
                                    "[r, 1000]", "{r: 1000, g: 900}"])
@pytest.mark.parametrize("command", ["leaderboard", "report"])
def test_an_anchor_edited_into_the_stored_config_is_refused(tmp_path: Path, lines: list[str],
                                                            anchor: str, command: str) -> None:
    """The results folder's config.yaml holds the rating anchor the arena wrote there; one
    edited into no anchor (NaN, past 10,000, no number, two bots) used to be dropped without
    a word, and the leaderboard rated with a mean of 1500 instead."""
    folder = folder_of(tmp_path, lines, lambda r: None)
    (folder / "config.yaml").write_text(f"identity_hash: x\nrating:\n  anchor: {anchor}\n",
                                        "utf-8")
    err = refused(command, str(folder))
    assert f"{folder / 'config.yaml'}: rating.anchor: expected " in err, err


def test_the_anchor_the_arena_stored_is_used(tmp_path: Path, lines: list[str]) -> None:
    folder = folder_of(tmp_path, lines, lambda r: None)
    (folder / "config.yaml").write_text("identity_hash: x\nrating:\n  anchor: {random: 1000}\n",
                                        "utf-8")
    result = runner.invoke(app, ["leaderboard", str(folder)])
    assert result.exit_code == 0, result.stderr
    assert re.search(r"random\s+1000\b", result.stdout), result.stdout


def test_an_empty_line_is_named_plainly(tmp_path: Path, lines: list[str]) -> None:
    """A stray newline was "line 3: not a game record (JSONDecodeError: Expecting value:
    line 2 column 1)": two line numbers that disagree."""
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "games.jsonl").write_text(lines[0] + "\n" + "\n" + lines[1] + "\n", "utf-8")
    err = refused("leaderboard", str(folder))
    assert err == (f"arena: error: {folder / 'games.jsonl'}:2: an empty line: expected one "
                   "game record a line (remove it)\n")


def test_a_line_cut_inside_the_file_says_so(tmp_path: Path, lines: list[str]) -> None:
    """A record cut short but followed by a newline (and more records) gave only json's
    "Invalid control character at: line 1 column 920"."""
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "games.jsonl").write_text(lines[0][:300] + "\n" + lines[1] + "\n", "utf-8")
    err = refused("leaderboard", str(folder))
    assert err.startswith(f"arena: error: {folder / 'games.jsonl'}:1: not a game record")
    assert err.rstrip().endswith("the line does not end as a record does: cut short, or two "
                                 "joined?")


@pytest.mark.parametrize(("first", "hint"), [
    ("[1, 2, 3]", "; a games.jsonl holds one JSON object a line: is this file one?"),
    ("identity_hash: 1a2b", "; a games.jsonl holds one JSON object a line: is this file one?"),
    ('{"schema": 3}', ""),  # a whole object, not cut: what it lacks is named, no more
])
def test_a_line_that_is_whole_is_not_called_cut_short(tmp_path: Path, first: str,
                                                      hint: str) -> None:
    """A whole JSON value, or a config.yaml given for a games.jsonl, read "the line does not
    end as a record does: cut short, or two joined?"."""
    games = tmp_path / "games.jsonl"
    games.write_text(first + "\n", "utf-8")
    err = refused("leaderboard", str(games))
    assert "cut short" not in err and err.rstrip().endswith(f"){hint}"), err
