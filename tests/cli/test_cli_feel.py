"""A command line that behaves like the tools people know: --version, -h everywhere, shell
completion, values named in words, Ctrl-C that says "interrupted", a quiet broken pipe."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.app import app

ARENA = Path(sys.executable).with_name("arena")
runner = CliRunner()
COMMANDS = ["play", "hand", "meld", "open", "run", "validate", "leaderboard", "sprt",
            "variants", "new-bot"]


def test_version_names_the_installed_package() -> None:
    done = runner.invoke(app, ["--version"])
    assert done.exit_code == 0 and done.stdout == f"arena {version('rummy-arena')}\n"


@pytest.mark.parametrize("command", COMMANDS)
def test_h_is_help_for_every_command(command: str) -> None:
    short, long = runner.invoke(app, [command, "-h"]), runner.invoke(app, [command, "--help"])
    assert short.exit_code == 0 and short.stdout == long.stdout
    assert short.stdout.startswith("Usage: ") and f" {command} [OPTIONS]" in short.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_help_names_values_in_words_not_python_types(command: str) -> None:
    text = runner.invoke(app, [command, "-h"]).stdout
    assert not re.search(r"<(str|int|float|path|list\[[a-z]+\]|int range|float range)>",
                         text), text


def test_shell_completion_is_offered() -> None:
    text = runner.invoke(app, ["-h"]).stdout
    assert "--install-completion" in text and "--show-completion" in text


def test_play_help_names_every_bot_form() -> None:
    text = " ".join(runner.invoke(app, ["play", "-h"]).stdout.split())
    for form in ("random, greedy", "package.module:Class", "path/file.py:Class",
                 "path/file.py", "--command"):
        assert form in text


def test_run_help_lists_the_formats() -> None:
    text = runner.invoke(app, ["run", "-h"]).stdout
    assert "plain|github|markdown|csv|json|html" in text


def test_a_reader_that_goes_away_ends_the_command_quietly() -> None:
    """``arena play -v ... | head -1``: no traceback, no message, as other tools end."""
    with subprocess.Popen([str(ARENA), "play", "three_thirteen", "greedy", "random", "greedy",
                           "random", "-v"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          bufsize=0) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        first = proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read()
        code = proc.wait(timeout=300)
    assert first.startswith(b"round 1") and err == b"" and code in (0, 141)


def test_a_replay_whose_reader_goes_away_exits_as_sigpipe_not_as_a_verdict() -> None:
    """``arena replay ... | head -3`` exited 1 (rich's own ending), which is arena sprt's H0;
    every other command ends as a program SIGPIPE stopped, 141."""
    with subprocess.Popen([str(ARENA), "replay", "--seed", "3", "three_thirteen", "greedy",
                           "random", "greedy", "random"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, bufsize=0) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        first = proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read()
        code = proc.wait(timeout=300)
    assert first.startswith(b"arena play's game") and err == b"" and code in (0, 141), code


def test_a_test_whose_reader_goes_away_exits_as_sigpipe_not_as_a_verdict(
        tmp_path: Path) -> None:
    """``arena sprt ... | head -1`` exited 1, which is H0: a script would read a verdict."""
    config = tmp_path / "duel.yaml"
    config.write_text(f"""name: duel
variant: indian13
isolation: inprocess
options: {{players: 2}}
bots: [{{name: a, module: random}}, {{name: b, module: random}}]
workers: 1
seed: 5
output: {tmp_path}
""", encoding="utf-8")
    with subprocess.Popen([str(ARENA), "sprt", str(config), "--candidate", "a", "--baseline",
                           "b", "--max-games", "4000"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, bufsize=0) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        first = proc.stdout.readline()
        while (line := proc.stdout.readline()) and not line.startswith(b"games"):
            pass  # until a batch is on disk (b"": the command ended, the asserts say how)
        proc.stdout.close()
        err = proc.stderr.read()
        code = proc.wait(timeout=300)
    assert first.startswith(b"sprt a vs b") and err == b"" and code == 141
    assert (tmp_path / "duel-sprt" / "games.jsonl").stat().st_size > 0  # kept


# Ctrl-C in a tournament ("arena: interrupted", exit 130, games kept) is tested in
# tests/tournament/test_tournament.py::test_ctrl_c_stops_with_130_and_a_resume_hint.


def test_a_command_that_rates_nothing_never_loads_numpy(tmp_path: Path) -> None:
    """numpy is a fifth of a start: ``arena hand``, ``validate`` or ``--help`` skip it."""
    probe = ("import sys; from arena.cli.app import main; sys.argv = ['arena', 'hand', "
             "'indian13', '3S', '4S', '5S', '--wild', '7C']\ntry:\n    main()\nexcept SystemExit:\n"
             "    pass\nassert 'numpy' not in sys.modules, 'numpy loaded'")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "points: 0" in done.stdout, done.stdout
