"""The `arena` command: calculators, variants, play, and one-line errors with exit code 2."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import arena.cli.tournaments
from arena.cli.app import app
from arena.cli.common import command_spec
from arena.cli.games import told_apart

runner = CliRunner()
ROOT = Path(__file__).parents[2]


def words(text: str) -> list[str]:
    return text.split()


README_HAND = words("3S 4S 5S 8H 8D 8C KC 2D 6C 9H QS JH 10D")


def ok(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert result.stderr == ""
    return result.stdout


def refused(*args: str) -> str:
    """Exit 2, nothing on stdout, one `arena: error:` line on stderr; return the message."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, (result.stdout, result.stderr, result.exception)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("arena: error: "), lines[0]
    return lines[0].removeprefix("arena: error: ")


# ---------------------------------------------------------------- arena hand


def test_hand_table_matches_the_readme() -> None:
    out = ok("hand", "indian13", *README_HAND, "--wild", "7C")
    assert out.splitlines() == [
        "group          cards",
        "-------------  ---------------------",
        "pure_sequence  3S 4S 5S",
        "set            8H 8D 8C",
        "deadwood       QS 9H JH 2D 10D 6C KC",
        "points: 57",
        "valid declaration: no (IND-17: the best split with a pure sequence leaves QS 9H JH "
        "2D 10D 6C KC outside groups)",
    ]


def test_hand_json_shape() -> None:
    report = json.loads(ok("hand", "indian13", *README_HAND, "--wild", "7C", "--json"))
    assert list(report) == ["variant", "cards", "wild", "melds", "deadwood", "points",
                            "valid_declaration", "reason"]
    assert report["variant"] == "indian13/v1"
    assert report["cards"] == README_HAND
    assert report["wild"] == "7C"
    assert report["melds"] == [{"kind": "pure_sequence", "cards": ["3S", "4S", "5S"]},
                               {"kind": "set", "cards": ["8H", "8D", "8C"]}]
    assert sorted(report["deadwood"]) == sorted(words("QS 9H JH 2D 10D 6C KC"))
    assert report["points"] == 57
    assert report["valid_declaration"] is False


def test_hand_valid_declaration_and_forgiving_card_text() -> None:
    cards = words("as 2s 3s th j♥ qh 5d 6d 7d jk 9c 9h 9s")
    report = json.loads(ok("hand", "ind", *cards, "--wild", "8C", "--json"))
    assert report["cards"][:4] == ["AS", "2S", "3S", "10H"]
    assert report["valid_declaration"] is True
    assert report["points"] == 0
    assert report["deadwood"] == []
    assert sum(len(m["cards"]) for m in report["melds"]) == 13


def test_hand_points_cap_without_pure_sequence() -> None:
    cards = words("KS KH QD QC JS JH 10D 10C 9S 9H 8D 8C 2S")
    report = json.loads(ok("hand", "indian13", *cards, "--wild", "5H", "--json"))
    assert report["points"] == 80  # every card counts without a pure sequence, capped


def test_hand_option_changes_the_wild_cards() -> None:
    # IND-7: indicator 7C makes the black sevens wild; with wild_suits=all, 7D is wild too
    cards = words("4S 5S 7D 9H 10H JH")
    colour = json.loads(ok("hand", "indian13", *cards, "--wild", "7C", "--json"))
    every = json.loads(ok("hand", "indian13", *cards, "--wild", "7C", "-o",
                          "wild_suits=all", "--json"))
    assert (colour["points"], sorted(colour["deadwood"])) == (16, ["4S", "5S", "7D"])
    assert (every["points"], every["deadwood"]) == (0, [])
    assert {"kind": "sequence", "cards": ["4S", "5S", "7D"]} in every["melds"]


def test_hand_three_thirteen_round() -> None:
    report = json.loads(ok("hand", "tt", "3S", "4S", "5S", "--round", "3", "--json"))
    assert report["variant"] == "three_thirteen/v1"
    assert report["melds"] == [{"kind": "sequence", "cards": ["3S", "4S", "5S"]}]
    assert report["points"] == 0


# ---------------------------------------------------------------- arena meld


def test_meld_text_matches_the_readme() -> None:
    assert ok("meld", "indian13", "4H", "9D", "6H", "--wild", "9D") == "valid: sequence\n"
    out = ok("meld", "indian13", "4H", "9D", "6D", "--wild", "9D")
    assert out == "invalid: IND-12: natural cards of different suits (a run) and ranks (a set)\n"


def test_meld_json_shapes() -> None:
    valid = json.loads(ok("meld", "indian13", "4H", "9D", "6H", "--wild", "9D", "--json"))
    assert valid == {"valid": True, "kind": "sequence", "reason": None}
    invalid = json.loads(ok("meld", "indian13", "4H", "9D", "6D", "--wild", "9D", "--json"))
    assert invalid == {"valid": False, "kind": None, "reason": "IND-12: natural cards of "
                       "different suits (a run) and ranks (a set)"}


@pytest.mark.parametrize(("cards", "kind"), [("5H 6H 7H", "pure_sequence"),
                                             ("QS QH QD", "set")])
def test_meld_kinds(cards: str, kind: str) -> None:
    check = json.loads(ok("meld", "indian13", *cards.split(), "--wild", "2C", "--json"))
    assert check == {"valid": True, "kind": kind, "reason": None}


def test_meld_invalid_reason_cites_a_rule() -> None:
    check = json.loads(ok("meld", "indian13", "5H", "6H", "--wild", "2C", "--json"))
    assert check["valid"] is False and check["kind"] is None
    assert check["reason"].split(":")[0].startswith("IND-")


# ---------------------------------------------------------------- arena variants


def test_variants_lists_every_variant_with_options() -> None:
    from arena.variants import VARIANTS

    out = ok("variants")
    for variant in VARIANTS:
        assert f"{variant.name} ({variant.version}; aliases: " in out
        for option in variant.OPTIONS:
            assert option.name in out and option.rule in out
    assert "indian13 (indian13/v1; aliases: ind, indian" in out
    assert "players" in out and "an integer from 2 to 6" in out


# ---------------------------------------------------------------- arena play


def test_play_prints_the_result_table() -> None:
    out = ok("play", "indian13", "greedy", "random", "--seed", "7")
    lines = out.splitlines()
    assert lines[0].startswith("indian13/v1 seed 7 (r1: ")
    assert lines[1].split() == ["seat", "bot", "r1", "total", "rank", "faults"]
    assert lines[3].split()[:2] == ["0", "greedy"]
    assert lines[4].split()[:2] == ["1", "random"]
    assert len(lines) == 5


def test_play_with_one_bot_says_a_game_needs_two() -> None:
    """It said "option 'players' = 1: expected an integer from 2 to 6", an option never
    given."""
    assert refused("play", "indian13", "greedy") == (
        "one bot: a game needs one bot per seat, at least 2 (name it twice to "
        "play it against itself)")


def test_play_is_reproducible_by_seed() -> None:
    a = ok("play", "indian13", "greedy", "random", "random", "--seed", "3", "-v")
    b = ok("play", "indian13", "greedy", "random", "random", "--seed", "3", "-v")
    c = ok("play", "indian13", "greedy", "random", "random", "--seed", "4", "-v")
    assert a == b != c


def test_play_verbose_logs_every_turn() -> None:
    quiet = ok("play", "indian13", "greedy", "random", "greedy", "random", "--seed", "7")
    loud = ok("play", "indian13", "greedy", "random", "greedy", "random", "--seed", "7", "-v")
    assert loud.endswith(quiet)
    log = loud.removesuffix(quiet).splitlines()
    assert log[0].startswith("round 1, dealer ")
    assert "indicator" in log[0]
    assert log[1].startswith("  hands 0: ")
    assert any(" draws " in line and " from the stock" in line for line in log)
    assert any(line.startswith("  seat ") and " discard " in line and "[hand was " in line
               for line in log)
    assert "round 1 ends (" in loud
    assert "penalties [" in loud and "totals [" in loud


def test_play_in_a_process_is_the_same_game_and_keeps_the_bots_logs(tmp_path: Path) -> None:
    """--isolation process runs each bot as a tournament would (same seed, same game); its
    stderr goes to --logs. A bot that prints shows up there, not in the game."""
    bot = tmp_path / "t_cli_chatty.py"
    bot.write_text("from bots.random_bot import RandomBot\n\n\nclass Chatty(RandomBot):\n"
                   "    def draw(self, view):\n        print('thinking')\n"
                   "        return super().draw(view)\n", "utf-8")
    here = ok("play", "indian13", f"{bot}:Chatty", "greedy", "--seed", "5")
    logs = tmp_path / "logs"
    apart = ok("play", "indian13", f"{bot}:Chatty", "greedy", "--seed", "5",
               "--isolation", "process", "--logs", str(logs))
    table = "".join(line for line in here.splitlines(keepends=True) if line != "thinking\n")
    assert apart == table  # in process the print reached the console; apart, its log
    assert "thinking" in (logs / "Chatty.stderr.log").read_text()
    bad = runner.invoke(app, ["play", "indian13", "greedy", "random", "--isolation", "nope"])
    assert bad.exit_code == 2
    assert bad.stderr.strip() == ("arena: error: --isolation 'nope': expected inprocess or "
                                  "process")


def test_play_options_and_multiple_deals() -> None:
    out = ok("play", "indian13", "greedy", "random", "--seed", "4", "-o", "match={deals: 2}")
    assert out.splitlines()[1].split()[:4] == ["seat", "bot", "r1", "r2"]


def test_play_file_bot(tmp_path: Path) -> None:
    bot = tmp_path / "t_cli_bot.py"
    bot.write_text("from arena.actions import Draw, Play\n\n\nclass Bot:\n"
                   "    def draw(self, view):\n        return Draw('stock')\n\n"
                   "    def play(self, view):\n        return Play(discard=view.drawn)\n",
                   "utf-8")
    out = ok("play", "indian13", f"{bot}:Bot", "greedy", "--seed", "2")
    assert out.splitlines()[3].split()[:2] == ["0", "Bot"]


def test_play_three_thirteen() -> None:
    out = ok("play", "tt", "random", "greedy", "--seed", "1")
    assert out.startswith("three_thirteen/v1 seed 1 (r1: ")
    assert "r11" in out.splitlines()[1]


# ---------------------------------------------------------------- one-line errors


@pytest.mark.parametrize(("args", "expected"), [
    (["hand", "indian13", "3S", "4S", "ZZ", "--wild", "7C"], "bad card 'ZZ'"),
    (["hand", "indian13", "3S", "4S", "5S", "--wild", "1X"], "bad card '1X'"),
    (["hand", "indian13", "3S", "4S", "5S"], "IND-5"),
    (["hand", "poker", "3S"], "unknown variant 'poker'"),
    (["hand", "tt", "3S", "4S", "5S"], "TT-7"),
    (["meld", "indian13", "4H", "QQ", "--wild", "9D"], "bad card 'QQ'"),
    (["meld", "indian13", "4H", "9D", "6H", "--wild", "9D", "-o", "wild_suits=rainbow"],
     "option 'wild_suits' = 'rainbow'"),
    (["hand", "indian13", *README_HAND, "--wild", "7C", "-o", "colour=red"],
     "unknown option 'colour'"),
    (["play", "indian13", "random", "random", "-o", "players=x"], "option 'players' = 'x'"),
    (["play", "indian13", "random", "random", "-o", "noequals"], "bad option 'noequals'"),
    (["hand", "indian13", *README_HAND, "--wild", "7C", "-o", "wild_suits=all", "-o",
      "wild_suits=colour"],  # the last one won without a word
     "bad option 'wild_suits=colour': 'wild_suits' is given twice; expected each option once"),
    (["play", "indian13", "random", "random", "-o", "draw_cap=0"], "option 'draw_cap' = 0"),
    (["play", "indian13", "random", "-o", "players=1"], "option 'players' = 1"),
    (["play", "indian13", *["random"] * 7], "7 bots, one a seat: indian13 takes"),
    (["play", "indian13", "grredy", "Greedy"], "(did you mean 'greedy'?)"),
    (["play", "nope", "random", "random"], "unknown variant 'nope'"),
    (["play", "indian13", "random", "nope"],
     "bot 1 'nope': expected a built-in bot (random, greedy, search), 'package.module:Class'"),
    (["play", "indian13", "bots.greedy:Nope", "random"],
     "bot 0: bot 'Nope' cannot start: bad bot 'bots.greedy:Nope': 'bots.greedy' has no "
     "class 'Nope'"),
    (["play", "indian13", "bots.greedy:Nope", "random", "--isolation", "process"],
     "bot 0: bot 'Nope' cannot start: bad bot 'bots.greedy:Nope': 'bots.greedy' has no "
     "class 'Nope'"),
    (["play", "indian13", "random", "no_such_module_zz:Bot"],
     "bot 1 'no_such_module_zz:Bot': no module 'no_such_module_zz' found"),
    (["play", "indian13", "random", "missing_file_zz.py:Bot"],
     "bot 1 'missing_file_zz.py:Bot': no file '/"),
])
def test_bad_input_is_one_line_and_exit_2(args: list[str], expected: str) -> None:
    assert expected in refused(*args)


def test_play_with_more_seats_than_bots_is_bad_input() -> None:
    # A count of bots that does not fill the table is a bad argument: exit 2 (DESIGN.md).
    message = refused("play", "indian13", "random", "random", "-o", "players=3")
    assert "3" in message and "2" in message


@pytest.mark.parametrize(("source", "what"), [
    pytest.param("class Bot:\n    def draw(self, view)\n", "syntax error", id="syntax-error"),
    pytest.param("class Bot:\n    def __init__(self):\n        raise RuntimeError('boom')\n"
                 "    def draw(self, view):\n        return 'stock'\n"
                 "    def play(self, view):\n        return 'x'\n", "constructor raises",
                 id="constructor-raises"),
])
def test_play_with_a_broken_bot_file_is_one_line(tmp_path: Path, source: str,
                                                 what: str) -> None:
    bot = tmp_path / "t_broken_bot.py"
    bot.write_text(source, "utf-8")
    assert "bot 1" in refused("play", "indian13", "random", f"{bot}:Bot"), what


@pytest.mark.parametrize("args", [
    pytest.param(["meld", "indian13"], id="missing-cards"),
    pytest.param(["play", "indian13", "random", "random", "--seed", "x"], id="seed-not-int"),
])
def test_usage_errors_are_one_line(args: list[str]) -> None:
    # README: "A bad card, option or argument is refused in one line, with exit code 2."
    refused(*args)


def test_console_entry_point_exit_codes(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-c", "from arena.cli.app import main; main()"]
    good = subprocess.run([*cmd, "meld", "indian13", "5H", "6H", "7H", "--wild", "2C"],
                          env=env, capture_output=True, text=True, timeout=60, check=False)
    assert (good.returncode, good.stdout) == (0, "valid: pure_sequence\n")
    bad = subprocess.run([*cmd, "hand", "indian13", "ZZ", "--wild", "7C"], env=env,
                         capture_output=True, text=True, timeout=60, check=False)
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert bad.stderr.startswith("arena: error: bad card 'ZZ'")
    assert bad.stderr.count("\n") == 1


def test_run_then_leaderboard(tmp_path: Path) -> None:
    config = tmp_path / "cfg.yaml"
    config.write_text("name: cli\nvariant: indian13\noptions: {players: 2}\nbots:\n"
                      "  - {name: greedy, module: 'bots.greedy:GreedyBot'}\n"
                      "  - {name: random, module: 'bots.random_bot:RandomBot'}\n"
                      "format: {games: 2}\nseed: 3\nworkers: 1\n", "utf-8")
    out = tmp_path / "out"
    run = ok("run", str(config), "--out", str(out))
    lines = run.splitlines()
    assert lines[0] == f"cli: 2 games (2 played now) in {out / 'cli'}"
    assert lines[1].split() == ["rank", "bot", "Elo", "±", "95%", "games", "win", "%",
                                "points", "vs", "field", "±", "95%", "openskill", "faults",
                                "LOS", "next"]
    board = ok("leaderboard", str(out / "cli"))
    assert board.splitlines() == lines[1:]
    again = ok("run", str(config), "--out", str(out))
    assert again.splitlines()[0] == f"cli: 2 games (0 played now) in {out / 'cli'}"


def test_run_without_a_terminal_prints_lines_of_progress(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Where no bar can be drawn (a CI log, a file), a long run said nothing until its end:
    now a line every PROGRESS_EVERY_S (here every game), none once all are played."""
    monkeypatch.setattr(arena.cli.tournaments, "PROGRESS_EVERY_S", 0.0)
    config = tmp_path / "cfg.yaml"
    config.write_text("name: cli\nvariant: indian13\noptions: {players: 2}\nbots:\n"
                      "  - {name: greedy, module: greedy}\n  - {name: random, module: random}\n"
                      "format: {games: 4}\nseed: 3\nworkers: 1\n", "utf-8")
    out = tmp_path / "out"
    done = runner.invoke(app, ["run", str(config), "--out", str(out), "--format", "json"])
    assert done.exit_code == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[-1] == f"cli: 4 games (4 played now) in {out / 'cli'}"
    said = [re.fullmatch(r"arena: (\d) of 4 games \((\d+)%\), [\d.]+ games/s, about \d+ s left",
                         line) for line in lines[:-1]]
    assert all(said), lines
    assert [(m[1], m[2]) for m in said if m] == [("1", "25"), ("2", "50"), ("3", "75")]


def test_a_closed_stderr_ends_the_lines_of_progress_not_the_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`arena run ... 2>&1 >/dev/null | head -2` stopped the run at its third line."""
    monkeypatch.setattr(arena.cli.tournaments, "PROGRESS_EVERY_S", 0.0)
    tried = []

    def closed(text: str, err: bool) -> None:
        tried.append(text)
        raise BrokenPipeError

    monkeypatch.setattr(arena.cli.tournaments.typer, "echo", closed)
    lines = arena.cli.tournaments.ProgressLines()
    for done in (1, 2, 3):
        lines(None, done, 4)  # type: ignore[arg-type]  # (the record is not read)
    assert len(tried) == 1


@pytest.mark.parametrize("fmt", ["csv", "json", "html"])
def test_run_in_a_format_for_programs_prints_the_table_alone(tmp_path: Path, fmt: str) -> None:
    """The summary line came first on stdout, so `arena run --format json | jq` failed."""
    config = tmp_path / "cfg.yaml"
    config.write_text("name: cli\nvariant: indian13\noptions: {players: 2}\nbots:\n"
                      "  - {name: greedy, module: greedy}\n  - {name: random, module: random}\n"
                      "format: {games: 2}\nseed: 3\nworkers: 1\n", "utf-8")
    out = tmp_path / "out"
    done = runner.invoke(app, ["run", str(config), "--out", str(out), "--format", fmt])
    assert done.exit_code == 0, done.stderr
    assert done.stderr == f"cli: 2 games (2 played now) in {out / 'cli'}\n"
    assert done.stdout == ok("leaderboard", str(out / "cli"), "--format", fmt)
    if fmt == "json":
        assert [row["bot"] for row in json.loads(done.stdout)] == ["greedy", "random"]


def test_a_broken_bot_s_warning_names_only_logs_that_say_something(tmp_path: Path) -> None:
    """An illegal answer leaves nothing in the bot's own log, where the warning sent the
    student (to an empty file, or to none at all in process)."""
    bots = Path(__file__).parents[1] / "bots" / "faulty_bots.py"
    config = tmp_path / "cfg.yaml"
    config.write_text(f"name: cli\nvariant: indian13\noptions: {{players: 2, draw_cap: 12}}\n"
                      f"bots:\n  - {{name: illegal, module: '{bots}:IllegalPlay'}}\n"
                      "  - {name: random, module: random}\n"
                      "format: {games: 2}\nseed: 3\nworkers: 1\nisolation: inprocess\n",
                      "utf-8")
    done = runner.invoke(app, ["run", str(config), "--out", str(tmp_path / "out")])
    assert done.exit_code == 0, done.stderr
    warning = next(line for line in done.stderr.splitlines() if "bot 'illegal'" in line)
    assert warning.endswith(f"mostly illegal); see {tmp_path / 'out' / 'cli' / 'arena.log'}")


@pytest.mark.parametrize("isolation", ["inprocess", "process"])
def test_what_a_bot_prints_goes_to_its_log_not_into_the_leaderboard(tmp_path: Path,
                                                                    isolation: str) -> None:
    """In process, a bot's print() went to arena run's stdout, into a csv or json table."""
    bots = Path(__file__).parents[1] / "bots" / "faulty_bots.py"
    config = tmp_path / "cfg.yaml"
    config.write_text(f"name: cli\nvariant: indian13\noptions: {{players: 2, draw_cap: 12}}\n"
                      f"bots:\n  - {{name: printer, module: '{bots}:Printer'}}\n"
                      "  - {name: random, module: random}\n"
                      f"format: {{games: 2}}\nseed: 3\nworkers: 2\nisolation: {isolation}\n",
                      "utf-8")
    done = subprocess.run([sys.executable, "-m", "arena.cli", "run", str(config), "--out",
                           str(tmp_path / "out"), "--format", "csv"],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith("rank,bot,"), done.stdout[:300]
    assert "debug" not in done.stdout + done.stderr
    log = (tmp_path / "out" / "cli" / "logs" / "printer.stderr.log").read_text("utf-8")
    assert "debug: thinking about 13 cards" in log and "debug: on stderr" in log


@pytest.mark.parametrize("args", [[], ["--help"], ["run", "--help"], ["play", "--help"]])
def test_help_exits_0(args: list[str]) -> None:
    out = ok(*args)
    assert "Usage:" in out


def test_unknown_command_is_one_line() -> None:
    assert refused("nosuch") == "No such command 'nosuch'."


# ---------------------------------------------------------------- arena variants --rule


def test_variants_rule_prints_one_entry_of_the_rule_book() -> None:
    """The rule IDs that errors cite lead to the rule book: R51-10, and no more than it."""
    out = ok("variants", "--rule", "r51-10")
    assert out.startswith("### R51-10 Opening\n")
    assert "R51-11 Rising threshold" not in out and "take 0 8H" in out
    assert "docs/rules.md" in ok("variants").splitlines()[-1]


@pytest.mark.parametrize(("rule", "says"), [("R51-99", "no such rule"),
                                            ("IND17", "expected a rule ID")])
def test_variants_rule_refuses_an_unknown_id(rule: str, says: str) -> None:
    assert says in refused("variants", "--rule", rule)


def test_play_tells_apart_two_bots_of_one_class_name(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Two students' files each hold a class Bot: both seats read "Bot" in the table."""
    for student in ("olivia", "quinn"):
        (tmp_path / student).mkdir()
        (tmp_path / student / "bot.py").write_text(
            "from bots.random_bot import RandomBot\n\n\nclass Bot(RandomBot):\n    pass\n")
    monkeypatch.chdir(tmp_path)
    rows = ok("play", "indian13", "olivia/bot.py:Bot", "quinn/bot.py:Bot").splitlines()[3:]
    assert [row.split()[1] for row in rows] == ["olivia-bot", "quinn-bot"]
    rows = ok("play", "indian13", "greedy", "greedy").splitlines()[3:]
    assert [row.split()[1] for row in rows] == ["greedy", "greedy"]  # one bot, twice


def test_names_made_from_folders_are_escaped_and_keep_logs_in_their_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder named with terminal escapes reached the result table raw (and set the
    window's title); two command bots whose last word was not a .py file were named by
    their whole paths, and their logs went beside them, outside --logs."""
    evil = "evil\x1b]0;pwned\x07\x1b[2J\rX"
    for folder in (evil, "ok", "jar1", "jar2"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "bot.py").write_text(
            "from bots.random_bot import RandomBot\n\n\nclass Bot(RandomBot):\n    pass\n")
    for jar in ("jar1", "jar2"):
        (tmp_path / jar / "bot.bin").write_text("# a protocol bot\n")
    monkeypatch.chdir(tmp_path)
    out = ok("play", "indian13", f"{evil}/bot.py:Bot", "ok/bot.py:Bot", "-o", "draw_cap=4")
    assert not {"\x1b", "\x07", "\r"} & set(out), out
    assert "evil\\x1b]0;pwned\\x07\\x1b[2J\\rX-bot" in out
    specs = told_apart({i: command_spec(f"{sys.executable} {tmp_path / jar / 'bot.bin'}", i)
                        for i, jar in enumerate(("jar1", "jar2"))})
    names = [spec.name for spec in specs.values()]
    assert names == ["jar1-bot.bin", "jar2-bot.bin"], names
