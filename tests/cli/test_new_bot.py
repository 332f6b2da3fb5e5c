"""`arena new-bot`: the bot it writes plays legal games of every variant, in Python and in
JavaScript, in the tournament it writes, run from another folder; a bad name, variant or
language and a file already there are refused in one line, and nothing is written."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.app import app
from arena.cli.scaffold import class_name
from arena.errors import shown
from arena.records import read_games
from arena.variants import VARIANTS, find_variant

ARENA = Path(sys.executable).with_name("arena")  # the console script: as a user runs it
NODE = shutil.which("node")
NAME = "student-bot"  # a '-' too: the file, class, bot and tournament all take it
LANGUAGES = ("python", "javascript")
DEFAULT = (VARIANTS[0].name, "python")  # asked for with no option at all
QUICK = {DEFAULT, ("rummy51", "javascript")}  # the dealer's first turn starts with a play
runner = CliRunner()


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(ARENA), *args], cwd=cwd, text=True, capture_output=True,
                          timeout=900, check=False)


def case(variant: str, lang: str) -> object:
    """Every variant in both languages; the whole matrix takes over a minute, so the
    default run keeps one case per language and CI runs the rest (``-m slow``)."""
    marks = () if (variant, lang) in QUICK else (pytest.mark.slow,)
    return pytest.param(variant, lang, marks=marks, id=f"{variant}-{lang}")


@pytest.mark.parametrize(("variant", "lang"),
                         [case(v.name, lang) for v in VARIANTS for lang in LANGUAGES])
def test_the_new_bot_plays_legal_games(variant: str, lang: str, tmp_path: Path) -> None:
    """No fault in any game proves every move was legal (COM-6 counts each one)."""
    if lang == "javascript" and NODE is None:
        pytest.skip("node is not on PATH: a JavaScript bot cannot run here")
    options = [] if (variant, lang) == DEFAULT else ["--variant", variant, "--lang", lang]
    made = arena("new-bot", NAME, *options, "--dir", "mine", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    config = Path("mine", NAME, "tournament.yaml")
    assert f"arena validate {config}\n" in made.stdout
    assert f"arena run {config}\n" in made.stdout
    elsewhere = tmp_path / "elsewhere"  # the paths in the config hold from any folder
    elsewhere.mkdir()
    for command in ("validate", "run"):
        done = arena(command, os.path.relpath(tmp_path / config, elsewhere), cwd=elsewhere)
        assert done.returncode == 0, done.stderr
    records = read_games(elsewhere / "results" / NAME / "games.jsonl")
    assert len(records) == 6  # three bots: three 2-seat tables of 2 games
    assert {r.variant for r in records} == {find_variant(variant).version}
    seats = [seat for record in records for seat in record.seats if seat.bot == NAME]
    assert len(seats) == 4 and all(seat.decisions > 0 for seat in seats)
    assert [dict(s.faults) for s in seats if any(s.faults.values()) or s.forfeit] == []


@pytest.mark.parametrize("variant", [v.name for v in VARIANTS])
def test_the_python_bot_passes_ruff_and_mypy_strict_as_docs_new_bot_says(
        variant: str, tmp_path: Path) -> None:
    """docs/new-bot.md: with an editable install mypy finds the arena through MYPYPATH."""
    made = arena("new-bot", "lintme", "--variant", variant, "--dir", ".", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    bot = tmp_path / "lintme" / "lintme.py"
    root = Path(__file__).parents[2]
    env = {**os.environ, "MYPYPATH": str(root)}
    for tool in (["ruff", "check", "--no-cache", "--isolated"],
                 ["mypy", "--strict", "--cache-dir", str(tmp_path / ".mypy")]):
        done = subprocess.run([sys.executable, "-m", *tool, str(bot)], cwd=tmp_path, env=env,
                              text=True, capture_output=True, timeout=600, check=False)
        assert done.returncode == 0, (tool[0], done.stdout[-2000:], done.stderr[-2000:])


def refused(*args: str) -> str:
    """Exit 2, nothing on stdout, one `arena: error:` line on stderr; return the message."""
    result = runner.invoke(app, ["new-bot", *args])
    assert result.exit_code == 2, (result.stdout, result.stderr, result.exception)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("arena: error: "), lines[0]
    return lines[0].removeprefix("arena: error: ")


def test_existing_files_are_never_overwritten(tmp_path: Path) -> None:
    assert runner.invoke(app, ["new-bot", "alice", "--dir", str(tmp_path)]).exit_code == 0
    bot = tmp_path / "alice" / "alice.py"
    bot.write_text("# my work\n", "utf-8")
    assert "already exists" in refused("alice", "--dir", str(tmp_path))
    assert bot.read_text("utf-8") == "# my work\n"
    # another language beside it: its tournament.yaml is there, so nothing at all is written
    assert "tournament.yaml" in refused("alice", "--lang", "javascript", "--dir", str(tmp_path))
    assert sorted(p.name for p in (tmp_path / "alice").iterdir()) == ["alice.py",
                                                                      "tournament.yaml"]


def test_a_file_where_the_folder_goes_is_refused(tmp_path: Path) -> None:
    (tmp_path / "alice").write_text("", "utf-8")
    assert "is a file" in refused("alice", "--dir", str(tmp_path))


@pytest.mark.parametrize("name", ["1bot", "my bot", "../up", "a/b", "bot.py", "", "é",
                                  "x" * 65, "random", "greedy", "search", "Random", "GREEDY",
                                  "a-sprt", "human", "Human"])
def test_a_name_that_is_no_simple_name_is_refused(name: str, tmp_path: Path) -> None:
    message = refused(name, "--dir", str(tmp_path))
    assert message.startswith(f"bot name {shown(name)}: ")
    if name.lower() in ("random", "greedy", "search"):  # it said its tournament seated "search"
        assert "a built-in bot's (random, greedy, search)" in message
    if name == "é":  # a letter, yet refused: the rule is ASCII
        assert "expected an ASCII letter" in message
    if name == "a-sprt":  # it wrote a tournament that arena validate then refused
        assert "does not end in '-sprt'" in message
    if name.lower() == "human":  # `arena play indian13 human` seated a person, not the bot
        assert "`arena play` seats a person for it" in message
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_variant_is_refused(tmp_path: Path) -> None:
    assert "'poker'" in refused("alice", "--variant", "poker", "--dir", str(tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_language_is_refused(tmp_path: Path) -> None:
    message = refused("alice", "--lang", "cobol", "--dir", str(tmp_path))
    assert message.startswith("--lang 'cobol': expected one of python, javascript")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("name", "cls"), [("my_bot", "MyBot"), ("alice", "AliceBot"),
                                           ("none", "NoneBot"), ("play", "PlayBot"),
                                           ("a-b_c", "ABCBot"), ("Bot", "Bot")])
def test_the_class_name_is_a_safe_identifier(name: str, cls: str, tmp_path: Path) -> None:
    """A keyword (``None``) or a name the bot imports (``Play``) would break its module."""
    assert class_name(name) == cls
    assert runner.invoke(app, ["new-bot", name, "--dir", str(tmp_path)]).exit_code == 0
    tree = ast.parse((tmp_path / name / f"{name}.py").read_text("utf-8"))
    assert [n.name for n in tree.body if isinstance(n, ast.ClassDef)] == [cls]
    assert f"module: {name}.py:{cls}\n" in (tmp_path / name / "tournament.yaml").read_text()
