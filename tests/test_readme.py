"""The README's console examples and its first bot run as written."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.app import app

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def console_examples() -> list[tuple[str, str]]:
    """(command, expected output) for every ``$ arena ...`` line of a console block."""
    out = []
    for block in re.findall(r"```console\n(.*?)```", README, re.S):
        parts = re.split(r"^\$ ", block, flags=re.M)
        for part in parts[1:]:
            command, _, expected = part.partition("\n")
            out.append((command, expected.rstrip("\n")))
    return out


@pytest.mark.parametrize(("command", "expected"), console_examples())
def test_readme_console_example(command: str, expected: str) -> None:
    args = shlex.split(command)
    assert args[0] == "arena"
    result = CliRunner().invoke(app, args[1:])
    assert result.output.rstrip("\n") == expected


def test_readme_first_bot_is_the_example_file() -> None:
    source = (ROOT / "examples" / "first_bot.py").read_text(encoding="utf-8")
    assert source.strip() in README


def test_readme_first_bot_plays_a_game() -> None:
    bot = f"{ROOT / 'examples' / 'first_bot.py'}:FirstBot"
    result = CliRunner().invoke(app, ["play", "indian13", bot, "random", "greedy", "random",
                                      "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert "FirstBot" in result.output
