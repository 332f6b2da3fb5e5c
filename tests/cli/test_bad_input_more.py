"""Bad input refused in one line with exit code 2, never a traceback or a wait without end:
--logs that is no folder, results files that cannot be changed or are no regular files, a
config that is a named pipe, empty paths, blank or untyped names, a repeated --anchor, a
bot file behind a symlink, a wrong replay --seed, and a suit pasted from a phone."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cards import Card
from arena.cli.app import app

ARENA = Path(sys.executable).with_name("arena")
runner = CliRunner()
CONFIG = """\
name: b
variant: indian13
options: {players: 2}
bots: [{name: g, module: greedy}, {name: r, module: random}]
format: {games: 4}
isolation: inprocess
workers: 1
seed: 1
rating: {anchor: {r: 1000}}
"""


def refused(*args: str) -> str:
    """Exit 2, one `arena: error:` line and no traceback; return the message."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, (result.stdout, result.stderr, result.exception)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: error: "), result.stderr
    return lines[0].removeprefix("arena: error: ")


def refused_quickly(*args: str, cwd: Path) -> str:
    """As :func:`refused`, in a process of its own: a command that would wait forever
    fails the test instead of hanging it."""
    try:
        done = subprocess.run([str(ARENA), *args], cwd=cwd, capture_output=True, text=True,
                              timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"arena {' '.join(args)} still runs after 60 s")
    lines = done.stderr.splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    return lines[0].removeprefix("arena: error: ")


def config(tmp_path: Path, text: str = CONFIG) -> Path:
    path = tmp_path / "b.yaml"
    path.write_text(text, "utf-8")
    return path


@pytest.fixture
def played(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The results folder of a finished four-game tournament, run from ``tmp_path``."""
    monkeypatch.chdir(tmp_path)
    done = runner.invoke(app, ["run", str(config(tmp_path))])
    assert done.exit_code == 0, done.stderr
    return Path("results", "b")


@contextlib.contextmanager
def unchangeable(path: Path) -> Iterator[None]:
    """``path`` made unchangeable: immutable for root (``chattr +i``, which root cannot
    write past), read-only for anyone else."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            path.chmod(mode)
        return
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(path)],
                                        capture_output=True).returncode:
        pytest.skip("chattr +i is not available here")
    try:
        yield
    finally:
        subprocess.run([chattr, "-i", str(path)], check=True)


# 1. --logs


@pytest.mark.parametrize("logs", ["a-file", "/dev/null", "a-file/sub", "/proc/self/x"])
def test_play_refuses_logs_that_cannot_be_a_folder(tmp_path: Path, logs: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("a-file").write_text("x\n", "utf-8")
    message = refused("play", "indian13", "greedy", "random", "--isolation", "process",
                      "--logs", logs)
    assert message.startswith(f"--logs {logs}: ") and "expected a folder" in message


# 2, 3. results that cannot be changed


def test_fresh_that_cannot_delete_the_old_results_says_so(played: Path) -> None:
    locked = played / "games.jsonl" if os.geteuid() == 0 else played  # root: chattr +i
    with unchangeable(locked):
        message = refused("run", "b.yaml", "--fresh")
    assert message.startswith(f"{locked}: "), message
    assert "Operation not permitted" in message or "Permission denied" in message


def test_a_results_folder_that_cannot_be_written_is_bad_input(played: Path) -> None:
    with unchangeable(played):
        message = refused("run", "b.yaml")
    assert message.startswith(f"{played}: cannot write the results folder"), message


def test_an_arena_log_that_cannot_be_written_is_refused(played: Path) -> None:
    with unchangeable(played / "arena.log"):
        message = refused("run", "b.yaml")
    assert message.startswith(f"{played / 'arena.log'}: cannot be written"), message


# 4. named pipes and devices


def test_validate_refuses_a_config_that_is_a_named_pipe(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "c.yaml")
    message = refused_quickly("validate", "c.yaml", cwd=tmp_path)
    assert message.startswith("c.yaml: not a regular file"), message


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_run_refuses_a_games_file_that_is_no_regular_file(played: Path, kind: str) -> None:
    games = played / "games.jsonl"
    games.unlink()
    if kind == "fifo":
        os.mkfifo(games)
    else:
        games.symlink_to(kind)
    message = refused_quickly("run", "b.yaml", cwd=Path.cwd())
    assert message.startswith(f"{games}: not a regular file"), message


# 5. empty paths


def test_run_refuses_an_empty_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config(tmp_path)
    assert refused("run", "b.yaml", "--out", "") == \
        "--out '': expected a folder path (not empty: 'results', '.') of at most 4096 " \
        "characters, no NUL"  # "at most 4096" alone said nothing of an empty one
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.yaml"]


def test_new_bot_refuses_an_empty_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert refused("new-bot", "x3", "--dir", "").startswith("--dir '': expected a folder")
    assert list(tmp_path.iterdir()) == []


# 6, 8b, 8c. names and variants


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("{name: g,", "{name: '  ',", ":4: bots[0].name: expected a bot name of at most 100 "
     "printable characters (200 bytes in UTF-8), no spaces at its ends, without '/', not '.' "
     "or '..', got '  '"),
    ("{name: g,", "{name: 'g ',", ":4: bots[0].name: expected a bot name of at most 100 "
     "printable characters (200 bytes in UTF-8), no spaces at its ends, without '/', not '.' "
     "or '..', got 'g '"),
    ("{name: g,", "{name: '" + "\U0001f600" * 51 + "',", ":4: bots[0].name: expected a bot "
     "name of at most 100 printable characters (200 bytes in UTF-8), no spaces at its ends, "
     "without '/', not '.' or '..', got '" + "\U0001f600" * 51 + "'"),
    ("name: b\n", "name: 123\n", ":1: name: expected text (letters, digits, '-', '_' or "
     "'.'), got 123, which YAML reads as a number: quote it to make it text"),
    ("variant: indian13", "variant: null", ":2: variant: expected a variant name such as "
     "indian13, got nothing"),
])
def test_config_names_say_what_was_expected(tmp_path: Path, old: str, new: str,
                                            expected: str) -> None:
    path = config(tmp_path, CONFIG.replace(old, new, 1))
    assert refused("validate", str(path)) == f"{path}{expected}"


# 7. --anchor


def test_leaderboard_refuses_two_anchors(played: Path) -> None:
    message = refused("leaderboard", str(played), "--anchor", "g=1000", "--anchor", "r=1000")
    assert message == "--anchor given 2 times: expected one bot and its Elo, e.g. --anchor " \
                      "random=1000"


# 8a. a bot file behind a symlink


def test_a_bot_file_and_class_that_is_a_device_is_no_regular_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("z.py").symlink_to("/dev/zero")
    assert refused("play", "indian13", "z.py:Bot", "random") == \
        "bot 0 'z.py:Bot': '/dev/zero' is not a regular file; expected a Python file"
    path = config(tmp_path, CONFIG.replace("module: greedy", "module: z.py:Bot"))
    assert refused("validate", str(path)).endswith(
        ":4: bots[0].module: '/dev/zero' is not a regular file; expected a Python file")


# 8d. replay --seed


def test_replay_seed_with_a_results_folder_says_what_it_expects(played: Path) -> None:
    message = refused("replay", str(played), "t0000-g000", "--seed", "3")
    assert message == ("replay --seed: expected a variant and one bot per seat, as for "
                       f"`arena play`; '{played}' is a file or folder, not a variant: drop "
                       "--seed to replay a recorded game")


# 8f. the emoji variation selector


def test_a_suit_pasted_with_the_emoji_selector_is_the_suit() -> None:
    assert Card.parse("5♠\ufe0f") == Card.parse("5S")
    done = runner.invoke(app, ["meld", "indian13", "5♠\ufe0f", "6♠\ufe0f", "7S",
                               "--wild", "2C"])
    assert done.exit_code == 0 and done.stdout == "valid: pure_sequence\n", done.stderr


@pytest.mark.parametrize("args", [
    ["hand", "indian13", "3S", "--wild", "7C", "--wild", "3C"],
    ["hand", "three_thirteen", "3S", "4S", "5S", "--round", "1", "--round", "5"],
    ["meld", "indian13", "3S", "4S", "5S", "--wild", "7C", "--wild=3C"],
    ["play", "indian13", "greedy", "random", "--seed", "1", "--seed", "2"],
    ["leaderboard", ".", "--format", "csv", "--format", "json"],
    ["replay", ".", "g", "--seat", "0", "--seat", "1"],
    ["sprt", "c.yaml", "--elo1", "10", "--elo1", "50"],
])
def test_a_one_value_option_given_twice_is_refused(args: list[str]) -> None:
    """The last of two values silently won (--wild 7C --wild 3C rated with 3C); options
    that may repeat (-o key=value, --table) still do."""
    flag = next(a for a in args if a.startswith("--")).partition("=")[0]
    assert refused(*args) == f"{flag} given 2 times: expected it once"


def test_repeatable_options_and_flags_still_repeat() -> None:
    done = runner.invoke(app, ["hand", "indian13", "3S", "4S", "5S", "--wild", "7C", "-o",
                               "players=2", "-o", "wild_suits=all", "--json", "--json"])
    assert done.exit_code == 0, done.output


@pytest.mark.parametrize(("args", "expected"), [
    (["play", "indian13", "greedy", "random", "--logs", "lg"],
     "--logs lg: a bot in the arena's process has no stderr log of its own; expected "
     "--isolation process (or --command bots)"),
    (["play", "indian13", "greedy", "random", "--clock"],
     "--clock holds the human seat to the clocks; expected a seat named human (the bots "
     "always are)"),
    (["replay", "results/x", "t0000-g000", "-o", "players=3"],
     "-o players=3: a recorded game's options are its record's; expected -o only with "
     "--seed"),
])
def test_a_flag_with_nothing_to_act_on_is_refused(tmp_path: Path, args: list[str],
                                                  expected: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """These were taken without a word (--logs made an empty folder)."""
    monkeypatch.chdir(tmp_path)
    assert refused(*args) == expected
    assert not (tmp_path / "lg").exists()
