"""Hostile and careless input ends in a result or in one line, never a traceback or a hang.

Each failure once seen has a regression test first. Then hypothesis mutates the shipped
configs (``load_config`` only: validating would start every bot), damages a results folder
that ``arena leaderboard`` (and a few ``arena run``) then reads, and gives the calculators
random card tokens, counts and options. On exit code 2 there is exactly one line on stderr,
``arena: error: ...``, and nothing was written.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import signal
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from arena.cli.app import app
from arena.cli.common import MAX_HAND, MAX_MELD
from arena.errors import BadInput
from arena.records import read_games
from arena.tournament.config import Config, load_config

ROOT = Path(__file__).parent.parent
CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))
runner = CliRunner()
FUZZ = settings(derandomize=True, database=None, deadline=None)

BASE = """\
name: t
variant: indian13
options:
  players: 2
bots:
  - name: greedy
    module: bots.greedy:GreedyBot
  - name: random
    module: bots.random_bot:RandomBot
format:
  games: 2
seed: 1
workers: 1
"""


@contextlib.contextmanager
def within(seconds: float) -> Iterator[None]:
    """Fail a test that hangs instead of hanging the suite."""
    def expire(*_: object) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def one_line_or_config(path: Path) -> Config | str:
    """``load_config``'s answer: a Config, or the one-line message of its BadInput."""
    try:
        return load_config(path)
    except BadInput as exc:
        message = str(exc)
        assert "\n" not in message and "\r" not in message, message
        assert message.startswith(str(path)), message
        return message


def write(folder: Path, text: str | bytes) -> Path:
    path = folder / "cfg.yaml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def refused_config(folder: Path, text: str | bytes) -> str:
    """The message of a config that must be refused, after the file name."""
    path = write(folder, text)
    with within(10):
        answer = one_line_or_config(path)
    assert isinstance(answer, str), f"accepted: {answer}"
    return answer.removeprefix(str(path))


def checked(result: Result) -> Result:
    """Exit 0, or exit 2 with exactly one ``arena: error:`` line; never a traceback."""
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    assert result.exit_code in (0, 2), (result.exit_code, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    if result.exit_code == 2:
        lines = result.stderr.splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("arena: error: "), lines[0]
    return result


def refused(*args: str) -> str:
    """Exit 2 in one line; the message."""
    result = checked(runner.invoke(app, list(args)))
    assert result.exit_code == 2, result.stdout
    return result.stderr.strip().removeprefix("arena: error: ")


def greedy_with(lines: str) -> str:
    """BASE with more keys for the first bot."""
    return BASE.replace("    module: bots.greedy:GreedyBot\n",
                        "    module: bots.greedy:GreedyBot\n    " + lines)


def with_options(text: str) -> str:
    """BASE with more lines under ``options:``."""
    return BASE.replace("  players: 2\n", "  players: 2\n" + textwrap.indent(text, "  "))


# ---------------------------------------------------------------- the known failures

# Values that passed `arena validate`, then crashed or wrecked `arena run` (and neighbours of
# theirs): load_config refuses each, so validate and run do before a bot starts, naming the
# range it expected.
RUN_WRECKERS = [
    ("draw-ms-int-overflow", "time: {draw_ms: 1000000000000000000000000000000}\n",
     ":13: time.draw_ms: expected a whole number of milliseconds from 1 to 3600000"),
    ("draw-ms-float", "time: {draw_ms: 1.0e+30}\n", ":13: time.draw_ms: expected"),
    ("memory-fraction", "limits: {memory_mb: 512.5}\n",
     ":13: limits.memory_mb: expected a whole number of megabytes from 64 to 65536"),
    ("memory-huge-int", "limits: {memory_mb: 100000000000000000000}\n",
     ":13: limits.memory_mb: expected a whole number of megabytes from 64 to 65536"),
    ("memory-huge-float", "limits: {memory_mb: 1.0e+20}\n", ":13: limits.memory_mb: expected"),
    ("memory-tiny", "limits: {memory_mb: 1}\n", ":13: limits.memory_mb: expected"),
    ("processes-fraction", "limits: {processes: 1.5}\n",
     ":13: limits.processes: expected a whole number of processes from 1 to 1024"),
    ("cpu-nan", "limits: {cpu_s_per_game: .nan}\n",
     ":13: limits.cpu_s_per_game: expected a number of CPU seconds from 0.1 to 86400"),
    ("startup-huge", "limits: {startup_ms: 100000000000000000000}\n",
     ":13: limits.startup_ms: expected"),
    ("forfeit-huge", "faults: {forfeit_after: 100000000000000000000}\n",
     ":13: faults.forfeit_after: expected"),
    ("anchor-huge", "rating: {anchor: {random: 1.0e+308}}\n",
     ":13: rating.anchor.random: expected an Elo number from -10000 to 10000"),
    ("seed-huge", "seed: 100000000000000000000000\n", ":13: seed: expected an integer seed"),
]


@pytest.mark.parametrize(("extra", "expected"), [c[1:] for c in RUN_WRECKERS],
                         ids=[c[0] for c in RUN_WRECKERS])
def test_values_that_wrecked_a_run_are_refused_with_their_range(
        tmp_path: Path, extra: str, expected: str) -> None:
    text = BASE.replace("seed: 1\n", "") + extra
    assert refused_config(tmp_path, text).startswith(expected)


def test_a_fork_storm_of_workers_is_refused(tmp_path: Path) -> None:
    message = refused_config(tmp_path, BASE.replace("workers: 1", "workers: 100000"))
    assert message == (":13: workers: expected a number of worker processes from 1 to 256, "
                       "got 100000")
    assert "256" in refused("run", str(tmp_path / "cfg.yaml"), "--workers", "100000")


def test_games_that_fill_the_memory_are_refused(tmp_path: Path) -> None:
    three = BASE.replace("players: 2", "players: 3").replace(
        "bots:\n", "bots:\n  - name: random-2\n    module: bots.random_bot:RandomBot\n")
    message = refused_config(tmp_path, three.replace("games: 2", "games: 99999999"))
    assert message.startswith(":13: format.games: expected a number of games per table from "
                              "1 to 10000, got 99999999")


def test_a_schedule_past_a_million_games_is_refused(tmp_path: Path) -> None:
    bots = "".join(f"  - {{name: b{i}, module: bots.random_bot:RandomBot}}\n"
                   for i in range(60))
    text = BASE.split("bots:")[0].replace("players: 2", "players: 6") + "bots:\n" + bots + \
        "format: {type: gauntlet, candidate: b0, games: 6}\n"
    with within(10):
        message = refused_config(tmp_path, text)
    assert "tables of 6 games make" in message and "expected at most 1000000" in message


@pytest.mark.parametrize("output", ["afile", "afile/deeper"])
def test_an_output_that_is_a_file_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              output: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("not a folder\n", "utf-8")
    message = refused_config(tmp_path, BASE + f"output: {output}\n")
    assert message == (":14: output: 'afile' is a file, not a folder; expected a folder for "
                       "results")
    assert "is a file" in refused("validate", str(tmp_path / "cfg.yaml"))
    (tmp_path / "cfg.yaml").write_text(BASE, "utf-8")
    assert refused("run", "cfg.yaml", "--out", "afile").startswith("--out afile: 'afile' is a "
                                                                   "file")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "cfg.yaml"]


ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]\n" for p, n in zip("abcdefgh", "bcdefghi",
                                                                  strict=True))


def test_a_small_alias_bomb_is_refused_at_once(tmp_path: Path) -> None:
    assert len(ALIAS_BOMB) < 400
    for text in (ALIAS_BOMB, BASE.replace("seed: 1\n", "") + textwrap.indent(ALIAS_BOMB, "x")
                 + "seed: *i\n", with_options("").replace(
                     "    module: bots.random_bot:RandomBot\n",
                     "    module: bots.random_bot:RandomBot\n    params:\n" +
                     textwrap.indent(ALIAS_BOMB, "      "))):
        start = time.monotonic()
        message = refused_config(tmp_path, text)
        assert time.monotonic() - start < 2
        assert "aliases expand past 1 MiB of values" in message, message


def test_an_alias_inside_its_own_anchor_is_refused(tmp_path: Path) -> None:
    text = BASE.replace("seed: 1\n", "seed: &s [1, *s]\n")
    assert refused_config(tmp_path, text) == ":12: an alias inside its own anchor; expected " \
                                             "plain settings"


def test_an_alias_used_twice_is_fine(tmp_path: Path) -> None:
    text = BASE.replace("  players: 2\n", "  players: &two 2\n") + "rating: {anchor: " \
        "{random: *two}}\n"
    assert load_config(write(tmp_path, text)).anchor == ("random", 2.0)


# Duplicate keys, at every level: YAML keeps the last silently.
DUPLICATES = [
    ("top", BASE.replace("workers: 1", "workers: 1\nworkers: 2"), 14, 13),
    ("options", with_options("players: 3\n"), 5, 4),
    ("match", with_options("match: {deals: 1, deals: 2}\n"), 5, 5),
    ("bot", greedy_with("name: other\n"), 8, 6),
    ("params", greedy_with("params: {a: 1, a: 2}\n"), 8, 8),
    ("env", greedy_with("env:\n      A: x\n      A: y\n"), 10, 9),
    ("format", BASE.replace("  games: 2", "  games: 2\n  games: 4"), 12, 11),
    ("time", BASE + "time:\n  draw_ms: 10\n  draw_ms: 20\n", 16, 15),
    ("limits", BASE + "limits: {memory_mb: 512, processes: 8, memory_mb: 1024}\n", 14, 14),
    ("faults", BASE + "faults:\n  policy: safe_action\n  policy: random_legal\n", 16, 15),
    ("rating", BASE + "rating:\n  anchor: {random: 1000}\n  anchor: {greedy: 1000}\n", 16, 15),
    ("anchor", BASE + "rating:\n  anchor: {random: 1000, random: 900}\n", 15, 15),
    ("spelled-apart", BASE.replace("seed: 1", "seed: 1\n'seed': 2"), 13, 12),
]


@pytest.mark.parametrize(("text", "line", "first"), [c[1:] for c in DUPLICATES],
                         ids=[c[0] for c in DUPLICATES])
def test_a_key_given_twice_is_refused_at_every_level(tmp_path: Path, text: str, line: int,
                                                     first: int) -> None:
    message = refused_config(tmp_path, text)
    assert message.startswith(f":{line}: duplicate key "), message
    assert message.endswith(f"(first on line {first}); expected each key once"), message


def test_a_merge_key_may_be_overridden(tmp_path: Path) -> None:
    text = BASE.replace("  - name: greedy\n    module: bots.greedy:GreedyBot\n",
                        "  - &g {name: greedy, module: bots.greedy:GreedyBot}\n"
                        "  - {<<: *g, name: greedy-2}\n")
    config = load_config(write(tmp_path, text))
    assert [b.name for b in config.bots] == ["greedy", "greedy-2", "random"]


# Deep nesting, bad bytes, bad scalars, odd tags and keys: most ended in a traceback, some
# were accepted although no bot could run with them (a NUL byte, a set in params), and the
# rest were one line already and stay so.
ODD_INPUTS: list[tuple[str, str | bytes, str]] = [
    ("deep-list", BASE + "output: " + "[" * 5000 + "]" * 5000 + "\n",
     ":14: nested deeper than 32 levels"),
    ("deep-map", BASE + "output: " + "{a: " * 2000 + "1" + "}" * 2000 + "\n",
     ":14: nested deeper than 32 levels"),
    ("deep-block", BASE + "".join("  " * i + f"k{i}:\n" for i in range(200)),
     ":45: nested deeper than 32 levels"),
    ("deep-params", greedy_with("params: {a: " + "[" * 100 + "]" * 100 + "}\n"),
     ":8: nested deeper"),
    ("not-utf8", BASE.encode() + b"output: \xff\xfe\n",
     ":14: not UTF-8 text (byte 0xff); expected a UTF-8 file"),
    ("latin-1", "name: caf\xe9\n".encode("latin-1") + BASE.encode()[8:], ":1: not UTF-8"),
    ("utf-16", BASE.encode("utf-16"), ":1: not UTF-8"),
    ("nul-byte", BASE.replace("seed: 1", "seed: 1\x00"),
     ":12: special character '\\x00' is not allowed"),
    ("bad-timestamp", BASE + "output: !!timestamp 2020-13-45\n",
     ":14: not a valid timestamp (month must be in 1..12"),  # 3.14 adds ", not 13"
    ("bad-date-key", BASE.replace("seed: 1", "2020-02-30: 1"), ":12: not a valid timestamp"),
    ("bad-int", BASE.replace("seed: 1", "seed: !!int twelve"), ":12: not a valid int"),
    ("int-of-5000-digits", BASE.replace("seed: 1", "seed: " + "9" * 5000),
     ":12: not a valid int"),
    ("bad-float", BASE.replace("seed: 1", "seed: !!float many"), ":12: not a valid float"),
    ("bad-bool", BASE.replace("seed: 1", "seed: !!bool maybe"), ":12: not a valid bool"),
    ("unknown-tag", BASE + "output: !results here\n",
     ":14: could not determine a constructor for the tag '!results'"),
    ("python-tag", BASE + "output: !!python/object/apply:os.system [ls]\n",
     ":14: could not determine a constructor"),
    ("bad-binary", BASE + "output: !!binary '***'\n", ":14: output: expected a directory path"),
    ("list-key", BASE + "[a, b]: 1\n", ":14: found unhashable key"),
    ("map-key", BASE + "? {a: 1}\n: 1\n", ":14: found unhashable key"),
    ("null-key", BASE + "~: 1\n", ":14: None: unknown key"),
    ("number-key", BASE + "3: 1\n", ":14: [3]: unknown key"),
    ("date-key", BASE + "2020-01-01: 1\n", ":14: datetime.date(2020, 1, 1): unknown key"),
    ("null-anchor-bot", BASE + "rating: {anchor: {~: 1000}}\n",
     ":14: rating.anchor.None: expected one of the bots"),
    ("set-params", greedy_with("params: {a: !!set {x}}\n"),
     ":8: bots[0].params: expected a mapping of keyword arguments"),
    ("date-params", greedy_with("params: {a: 2020-01-01}\n"),
     ":8: bots[0].params: expected a mapping of keyword arguments"),
    ("nul-in-module", BASE.replace("bots.greedy:GreedyBot", '"bots.gre\\0edy:GreedyBot"'),
     ":7: bots[0].module: expected a built-in bot (random, greedy, search), "
     "'package.module:Class'"),
    ("nul-in-py-module", BASE.replace("bots.greedy:GreedyBot", '"bot\\0.py:GreedyBot"'),
     ":7: bots[0].module: expected a built-in bot (random, greedy, search), "
     "'package.module:Class'"),
    ("long-module-file", BASE.replace("bots.greedy:GreedyBot", "x" * 300 + ".py:Bot"),
     ":7: bots[0].module: cannot be read (File name too long)"),
    ("nul-in-read", greedy_with('read: ["a\\0b"]\n'),
     ":8: bots[0].read: expected a list of paths"),
    ("long-read", greedy_with("read: [" + "y" * 300 + "]\n"),
     ":8: bots[0].read[0]: cannot be checked"),
    ("nul-in-command", BASE.replace("    module: bots.greedy:GreedyBot",
                                    '    command: ["python3", "a\\0b"]'),
     ":7: bots[0].command: expected a command line"),
    ("long-command", BASE.replace("    module: bots.greedy:GreedyBot",
                                  "    command: [" + "z" * 300 + "]"),
     ":7: bots[0].command: program"),
    ("unclosed-quote", BASE.replace("    module: bots.greedy:GreedyBot",
                                    "    command: python3 'bot.py"),
     ":7: bots[0].command: expected a command line, e.g. [node, bots/my_bot.js]; No closing"),
    ("nul-in-env", greedy_with('env: {A: "x\\0y"}\n'),
     ":8: bots[0].env.A: expected NAME: text"),
    ("slash-in-bot-name", BASE.replace("name: greedy", "name: ../greedy"),
     ":6: bots[0].name: expected a bot name"),
    ("nul-in-output", BASE + 'output: "res\\0ults"\n', ":14: output: expected a folder path"),
    ("two-documents", BASE + "---\nname: u\n", ":14: but found another document"),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in ODD_INPUTS],
                         ids=[c[0] for c in ODD_INPUTS])
def test_odd_bytes_scalars_tags_and_keys_are_one_line(tmp_path: Path, text: str | bytes,
                                                       expected: str) -> None:
    message = refused_config(tmp_path, text)
    assert message.startswith(expected), message


def test_a_config_larger_than_a_megabyte_is_refused_unread(tmp_path: Path) -> None:
    text = BASE + "#" + "x" * (1 << 20) + "\n"
    assert refused_config(tmp_path, text) == ": larger than 1 MiB; expected a file of settings"


def test_the_cli_says_the_same_in_one_line_and_writes_nothing(tmp_path: Path) -> None:
    for text in (ALIAS_BOMB, BASE + "workers: 2\n", BASE.encode() + b"\xff\n"):
        path = write(tmp_path, text)
        with within(10):
            for command in ("validate", "run"):
                assert refused(command, str(path)).startswith(f"{path}:")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["cfg.yaml"]


# Variant options: bounded above too.
OPTION_BOUNDS = [
    ("indian13", "draw_cap: 1000000", "option 'draw_cap' = 1000000: expected an integer "
                                      "from 1 to 10000 (IND-25)"),
    ("indian13", "match: {deals: 1000000}", "option 'match' = {'deals': 1000000}: expected "
                                            "{deals: N} with N from 1 to 100 (IND-28)"),
    ("rummy51", "match: {rounds: 1000000}", "expected {rounds: N} with N from 1 to 100, or "
                                            "{target: T} with T from 1 to 10000 (R51-18)"),
    ("rummy51", "match: {target: 1000000}", "with T from 1 to 10000 (R51-18)"),
    ("moroccan", "joker_in_hand: 1000000", "expected an integer from 0 to 1000 (MAR-16)"),
    ("three_thirteen", "draw_cap: 0", "expected an integer from 1 to 10000 (TT-15)"),
    ("moroccan", "draw_cap: 10001", "expected an integer from 1 to 10000 (MAR-19)"),
]


@pytest.mark.parametrize(("variant", "option", "expected"), OPTION_BOUNDS)
def test_variant_options_have_upper_bounds(tmp_path: Path, variant: str, option: str,
                                           expected: str) -> None:
    text = with_options(option + "\n").replace("variant: indian13", f"variant: {variant}")
    assert expected in refused_config(tmp_path, text)
    key, _, value = option.partition(": ")
    cards = ["3H", "4H", "5H"]
    args = ["--wild", "7C"] if variant == "indian13" else \
        ["--round", "3"] if variant == "three_thirteen" else []
    assert expected in refused("hand", variant, *cards, *args, "-o", f"{key}={value}")


@pytest.mark.parametrize("option", ["match={deals: 1, deals: 2}",
                                    "match=" + ALIAS_BOMB.replace("\n", ", ").join("{}"),
                                    "players=" + "[" * 100 + "]" * 100,
                                    "players=!!timestamp 2020-13-45"])
def test_option_values_are_read_with_the_config_bounds(option: str) -> None:
    with within(10):
        message = refused("hand", "indian13", "3H", "4H", "5H", "--wild", "7C", "-o", option)
    assert message.startswith("bad option ") and "not readable YAML" in message


def test_a_hand_of_60_cards_is_one_line_at_once() -> None:
    with within(5):
        assert refused("hand", "indian13", *["7H"] * 60, "--wild", "7C") == \
            f"60 cards: expected at most {MAX_HAND} in a hand"


def test_a_meld_of_10000_cards_is_one_line_at_once() -> None:
    cards = [f"{r}{s}" for r in ("2", "3", "4", "5", "6", "7", "8", "9") for s in "SHDC"]
    with within(5):
        assert refused("meld", "three_thirteen", *(cards * 313)[:10_000], "--round", "5") == \
            f"10000 cards: expected at most {MAX_MELD} in one combination"


@pytest.mark.parametrize("variant", ["indian13", "three_thirteen", "rummy51", "moroccan"])
def test_the_largest_allowed_counts_answer_quickly(variant: str) -> None:
    """Every joker the deck holds and two copies of every 7, 8 and 9: the most the deck allows
    of the cards that make the search widest; each must be an answer (exit 0), not a refusal."""
    args = ["--wild", "7C"] if variant == "indian13" else \
        ["--round", "5", "-o", "jokers=4"] if variant == "three_thirteen" else []
    jokers = ["JK"] * (2 if variant == "indian13" else 4)
    cards = jokers + [f"{r}{s}" for r in "789" for s in "SHDC"] * 2
    with within(10):
        for command, most in (("hand", MAX_HAND), ("meld", MAX_MELD)):
            done = runner.invoke(app, [command, variant, *cards[:most], *args])
            checked(done)
            assert done.exit_code == 0, done.stderr


# ---------------------------------------------------------------- configs, mutated

HOSTILE = [  # YAML values an organiser types by mistake, or an attacker on purpose
    "0", "-1", "1.5", "1e30", "1.0e+30", "100000000000000000000", "9" * 5000, ".nan", ".inf",
    "-.inf", "true", "null", "~", "''", "x", '"\\0"', '"a\\x00b"', "[]", "{}", "[1, 2]",
    "{a: 1}", "{players: 2, players: 3}", "!!timestamp 2020-13-45", "!!binary '***'",
    "!!int abc", "!!float x", "!!bool maybe", "!!set {a}", "!foo bar",
    "!!python/object/apply:os.system [ls]", "*nowhere", "&a [*a]", "x" * 5000, "2020-01-01",
    "0x1F", "0o17", "1_000", "'", "[", "{", "&b 1", "*b", "- a", "a: b: c", "|\n  text",
    "[" * 60 + "]" * 60, "{a: " * 40 + "1" + "}" * 40, "../../etc/passwd", "/dev/zero",
    "bots.greedy:GreedyBot", "no/such.py:Bot", "64", "65536", "3600000", "10000", "256",
]
KEYS = ["name", "variant", "options", "bots", "format", "time", "faults", "isolation",
        "limits", "workers", "seed", "output", "rating", "players", "match", "draw_cap",
        "module", "command", "params", "env", "read", "write", "network", "type", "games",
        "candidate", "duplicate", "draw_ms", "play_ms", "memory_mb", "cpu_s_per_game",
        "processes", "line_bytes", "startup_ms", "grace_ms", "stderr_bytes", "anchor", "<<",
        "policy", "forfeit_after", "deals", "rounds", "target"]
value_texts = st.sampled_from(HOSTILE) | st.text(max_size=12)
Lines = list[str]


def _set_value(draw: st.DrawFn, lines: Lines) -> Lines:
    keyed = [i for i, line in enumerate(lines) if ":" in line]
    if not keyed:
        return [*lines, f"x: {draw(value_texts)}\n"]
    i = draw(st.sampled_from(keyed))
    head = lines[i].partition(":")[0]
    return [*lines[:i], f"{head}: {draw(value_texts)}\n", *lines[i + 1:]]


def _insert_line(draw: st.DrawFn, lines: Lines) -> Lines:
    i = draw(st.integers(0, len(lines)))
    indent = " " * draw(st.sampled_from([0, 2, 4, 6]))
    line = f"{indent}{draw(st.sampled_from(KEYS))}: {draw(value_texts)}\n"
    return [*lines[:i], line, *lines[i:]]


def _delete_line(draw: st.DrawFn, lines: Lines) -> Lines:
    i = draw(st.integers(0, max(len(lines) - 1, 0)))
    return lines[:i] + lines[i + 1:]


def _duplicate_line(draw: st.DrawFn, lines: Lines) -> Lines:
    i = draw(st.integers(0, max(len(lines) - 1, 0)))
    return lines[:i + 1] + lines[i:]


def _swap_lines(draw: st.DrawFn, lines: Lines) -> Lines:
    i, j = (draw(st.integers(0, max(len(lines) - 1, 0))) for _ in range(2))
    out = list(lines)
    if out:
        out[i], out[j] = out[j], out[i]
    return out


def _reindent(draw: st.DrawFn, lines: Lines) -> Lines:
    i = draw(st.integers(0, max(len(lines) - 1, 0)))
    out = list(lines)
    if out:
        out[i] = out[i][2:] if draw(st.booleans()) else "  " + out[i]
    return out


def _truncate(draw: st.DrawFn, lines: Lines) -> Lines:
    text = "".join(lines)
    return [text[:draw(st.integers(0, len(text)))]]


MUTATIONS = [_set_value, _set_value, _insert_line, _delete_line, _duplicate_line,
             _swap_lines, _reindent, _truncate]


@st.composite
def mutated_configs(draw: st.DrawFn) -> bytes:
    """A shipped config, a few lines of it changed; sometimes with stray bytes."""
    lines = draw(st.sampled_from(CONFIGS)).read_text("utf-8").splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        lines = draw(st.sampled_from(MUTATIONS))(draw, lines)
    data = "".join(lines).encode("utf-8")
    if draw(st.integers(0, 9)) == 0:
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
    return data


@pytest.fixture(scope="module")
def contest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder laid out as the repository is, for configs naming ../examples/ files."""
    folder = tmp_path_factory.mktemp("contest")
    (folder / "configs").mkdir()
    shutil.copytree(ROOT / "examples", folder / "examples")
    return folder / "configs"


def usable(config: Config) -> None:
    """What arena run does with a config before it plays, done without starting a bot."""
    from arena.tournament.runner import schedule_for

    assert 1 <= config.workers <= 256 and config.games_per_table % config.players == 0
    assert len(schedule_for(config)) <= 1_000_000
    yaml.safe_dump({"identity_hash": config.identity_hash(), "identity": config.identity()})


@settings(FUZZ, max_examples=400)
@given(data=mutated_configs())
def test_a_mutated_shipped_config_loads_or_is_one_line(contest: Path, data: bytes) -> None:
    path = contest / "fuzzed.yaml"
    path.write_bytes(data)
    with within(10):
        answer = one_line_or_config(path)
        if isinstance(answer, Config):
            usable(answer)


json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                               max_size=3), max_leaves=8)
edge_numbers = st.sampled_from([0, 1, 63, 64, 255, 256, 257, 1023, 1024, 10_000, 10_001,
                                3_600_000, 3_600_001, 65_536, 65_537, 2 ** 63 - 1, 2 ** 63,
                                -1, 0.05, 0.1, 86_400.5, 1e308, float("nan"), float("inf")])
GOOD = {"name": "t", "variant": "indian13", "options": {"players": 2},
        "bots": [{"name": "greedy", "module": "bots.greedy:GreedyBot"},
                 {"name": "random", "module": "bots.random_bot:RandomBot"}],
        "format": {"games": 2}, "time": {"draw_ms": 100, "play_ms": 100},
        "faults": {"forfeit_after": 5}, "limits": {"memory_mb": 512, "processes": 16},
        "workers": 1, "seed": 1, "rating": {"anchor": {"random": 1000}}}
PATHS: list[tuple[str | int, ...]] = [
    ("name",), ("variant",), ("options",), ("options", "players"), ("options", "match"),
    ("options", "draw_cap"), ("bots",), ("bots", 0), ("bots", 0, "name"), ("bots", 1, "module"),
    ("bots", 1, "params"), ("bots", 1, "env"), ("bots", 1, "read"), ("bots", 0, "command"),
    ("format",), ("format", "games"), ("format", "type"), ("format", "candidate"),
    ("time", "draw_ms"), ("time", "play_ms"), ("faults", "forfeit_after"), ("faults", "policy"),
    ("isolation",), *(("limits", k) for k in ("memory_mb", "cpu_s_per_game", "processes",
                                              "line_bytes", "startup_ms", "grace_ms",
                                              "stderr_bytes")),
    ("workers",), ("seed",), ("output",), ("rating", "anchor"), ("rating", "anchor", "random")]


def put(raw: Any, at: tuple[str | int, ...], value: Any) -> None:
    """Set the value at a path of nested mappings and lists (raising where there is none)."""
    for step in at[:-1]:
        raw = raw[step]
    if isinstance(raw, list):
        raw[int(at[-1])] = value
    else:
        raw[at[-1]] = value


@settings(FUZZ, max_examples=250)
@given(changes=st.lists(st.tuples(st.sampled_from(PATHS), json_like | edge_numbers),
                        min_size=1, max_size=3))
def test_a_config_of_random_values_loads_or_is_one_line(
        tmp_path_factory: pytest.TempPathFactory, changes: list[tuple[Any, Any]]) -> None:
    raw = json.loads(json.dumps(GOOD))
    for at, value in changes:
        with contextlib.suppress(KeyError, IndexError, TypeError, ValueError):
            put(raw, at, value)
    path = tmp_path_factory.getbasetemp() / "random-values.yaml"
    path.write_text(yaml.safe_dump(raw), "utf-8")
    with within(10):
        answer = one_line_or_config(path)
        if isinstance(answer, Config):
            usable(answer)


@settings(FUZZ, max_examples=6)
@given(data=mutated_configs())
def test_validate_refuses_what_load_config_refuses_in_the_same_line(
        contest: Path, data: bytes) -> None:
    path = contest / "validate.yaml"
    path.write_bytes(data)
    answer = one_line_or_config(path)
    if isinstance(answer, Config):
        return  # validating would start every bot: the loop leaves that to test_config
    before = sorted(p.name for p in contest.parent.rglob("*"))
    assert refused("validate", str(path)) == answer
    assert sorted(p.name for p in contest.parent.rglob("*")) == before


# ---------------------------------------------------------------- results folders, damaged

RESULTS_CONFIG = """\
name: t
variant: indian13
options: {players: 2, draw_cap: 20}
isolation: inprocess
bots:
  - {name: greedy, module: bots.greedy:GreedyBot}
  - {name: random, module: bots.random_bot:RandomBot}
  - {name: random-2, module: bots.random_bot:RandomBot}
format: {games: 2}
workers: 1
seed: 4
rating: {anchor: {random: 1000}}
"""
JSON_VALUES = [None, True, False, -1, 0, 1, 2, 7, 1.5, -0.0, 10 ** 30, 1e308, "", "x", "t0000-g000",
               "indian13/v1", "rummy51/v1", [], [1], [1, 2], ["x"], [None], {}, {"a": 1},
               {"bot": "x"}, [[1, 2]], "\u0000", "é" * 50]
NUMBER_SPELLINGS = ["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1" * 5000, "0.1",
                    "-5", "true", "null", '"7"']


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results folder of 6 games, made once by arena run."""
    folder = tmp_path_factory.mktemp("played")
    config = folder / "t.yaml"
    config.write_text(RESULTS_CONFIG + f"output: {folder / 'out'}\n", "utf-8")
    assert checked(runner.invoke(app, ["run", str(config)])).exit_code == 0
    return folder / "out" / "t"


# What the fuzzer below found in results folders: records of the wrong types reached the
# leaderboard (TypeError), a deep config.yaml (RecursionError), and arena run rewrote
# config.yaml before it refused a damaged games.jsonl.
WRONG_TYPES: list[tuple[str, Any, str]] = [
    ("faults-a-list", lambda r: r["seats"][0].update(faults={"crash": [1]}), "faults:"),
    ("dup-set-null", lambda r: r.update(dup_set=None), "dup_set: expected str"),
    ("id-a-list", lambda r: r.update(id=["t0000-g000"]), "id: expected str"),
    ("one-seat", lambda r: r.update(seats=r["seats"][:1]), "seats: expected at least 2"),
    ("ranks-short", lambda r: r.update(ranks=[1]), "ranks: expected one a seat (2), got 1"),
    ("rank-9", lambda r: r.update(ranks=[1, 9]), "ranks: expected places from 1 to 2"),
    ("totals-huge", lambda r: r.update(totals=[0, 10 ** 30]), "totals: expected a list"),
    ("seat-a-text", lambda r: r.update(seats=["greedy", "random"]), "seats[]: expected an "),
    ("decisions-text", lambda r: r["seats"][1].update(decisions="8"), "decisions: expected"),
    ("schema-4", lambda r: r.update(schema=4), "schema: expected 1 to 3, got 4"),
    ("fault-log-seat", lambda r: r.update(fault_log=[{"at": 0, "seat": 5, "kind": "crash"}]),
     "fault_log: expected at 0 to"),
    ("actions-numbers", lambda r: r.update(actions=[1, 2]), "actions: expected a list of"),
]


@pytest.mark.parametrize(("change", "expected"), [c[1:] for c in WRONG_TYPES],
                         ids=[c[0] for c in WRONG_TYPES])
def test_a_record_of_the_wrong_types_is_one_line(tmp_path: Path, results: Path, change: Any,
                                                 expected: str) -> None:
    folder = tmp_path / "t"
    shutil.copytree(results, folder)
    games = folder / "games.jsonl"
    lines = games.read_text("utf-8").splitlines(keepends=True)
    record = json.loads(lines[1])
    change(record)
    games.write_text("".join([lines[0], json.dumps(record) + "\n", *lines[2:]]), "utf-8")
    for args in ([], ["--h2h"]):
        message = refused("leaderboard", str(folder), *args)
        assert message.startswith(f"{games}:2: not a game record of schema 1 to 3 (ValueError: "
                                  f"{expected}"), message


def test_a_compact_action_of_no_verb_is_refused_where_actions_are_read(
        tmp_path: Path, results: Path) -> None:
    """The leaderboard reads no actions (a record's points and seats rate it); a replay
    reads them, and refuses a letter no verb has in one line naming the file and line."""
    folder = tmp_path / "t"
    shutil.copytree(results, folder)
    games = folder / "games.jsonl"
    lines = games.read_text("utf-8").splitlines(keepends=True)
    record = json.loads(lines[1])
    record["actions"] = "0s/0q3C"
    games.write_text("".join([lines[0], json.dumps(record) + "\n", *lines[2:]]), "utf-8")
    with pytest.raises(BadInput, match=r"games.jsonl:2: .*'0q3C' is not a compact action"):
        read_games(games)
    assert runner.invoke(app, ["leaderboard", str(folder)]).exit_code == 0


def test_a_deep_stored_config_is_one_line(tmp_path: Path, results: Path) -> None:
    folder = tmp_path / "t"
    shutil.copytree(results, folder)
    (folder / "config.yaml").write_text("rating: " + "[" * 3000 + "]" * 3000 + "\n", "utf-8")
    assert refused("leaderboard", str(folder)) == (
        f"{folder / 'config.yaml'}: not a readable config.yaml (nested deeper than 36 levels; "
        "expected plain settings)")
    config = tmp_path / "t.yaml"
    config.write_text(RESULTS_CONFIG + f"output: {tmp_path}\n", "utf-8")
    assert "config.yaml: unreadable or torn" in refused("run", str(config))


def test_a_run_refusing_a_damaged_folder_writes_nothing(tmp_path: Path, results: Path) -> None:
    folder = tmp_path / "t"
    shutil.copytree(results, folder)
    (folder / "config.yaml").unlink()
    games = folder / "games.jsonl"
    games.write_bytes(b"\x00" + games.read_bytes() + b'{"torn": ')
    before = snapshot(folder)
    config = tmp_path / "t.yaml"
    config.write_text(RESULTS_CONFIG + f"output: {tmp_path}\n", "utf-8")
    assert refused("run", str(config)).startswith(f"{games}:1: not a game record")
    assert snapshot(folder) == before


def _paths_in(value: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path into a JSON value, itself first."""
    yield at
    items = value.items() if isinstance(value, dict) else \
        enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:
        yield from _paths_in(inner, (*at, key))


def _retyped(draw: st.DrawFn, line: str) -> str:
    """One field of a record changed to another JSON value, or dropped."""
    try:
        record = json.loads(line)
    except ValueError:
        return line  # damaged already
    paths = list(_paths_in(record))[1:]
    if not paths:
        return line
    at = draw(st.sampled_from(paths))
    holder = record
    for step in at[:-1]:
        holder = holder[step]
    if draw(st.integers(0, 4)) == 0:
        del holder[at[-1]]
    else:
        holder[at[-1]] = draw(st.sampled_from(JSON_VALUES))
    return json.dumps(record) + "\n"


def _respelled(draw: st.DrawFn, line: str) -> str:
    """A number of the line written as something JSON readers disagree on (NaN, 1e999)."""
    spans = [(i, j) for i, j in _number_spans(line)]
    if not spans:
        return line
    i, j = draw(st.sampled_from(spans))
    return line[:i] + draw(st.sampled_from(NUMBER_SPELLINGS)) + line[j:]


def _number_spans(line: str) -> Iterator[tuple[int, int]]:
    i = 0
    while i < len(line):
        if line[i] in "-0123456789" and line[i - 1] in ":[,":
            j = i + 1
            while j < len(line) and line[j] in "0123456789.eE+-":
                j += 1
            yield i, j
            i = j
        i += 1


@st.composite
def damaged_games(draw: st.DrawFn, text: str) -> bytes:
    """games.jsonl with a few lines retyped, respelled, repeated, cut or given bytes."""
    lines = text.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.sampled_from(["retype", "retype", "respell", "repeat", "swap-id",
                                     "cut", "blank", "text"]))
        if kind == "retype":
            lines[i] = _retyped(draw, lines[i])
        elif kind == "respell":
            lines[i] = _respelled(draw, lines[i])
        elif kind == "repeat":
            lines.insert(draw(st.integers(0, len(lines))), lines[i])
        elif kind == "swap-id":  # another game's id, with this game's content
            other = draw(st.sampled_from(["t0000-g000", "t0001-g001", "t0002-g000"]))
            lines[i] = re.sub(r'"id":"[^"]*"', f'"id":"{other}"', lines[i], count=1)
        elif kind == "cut":
            lines[i] = lines[i][:draw(st.integers(0, len(lines[i])))]
        elif kind == "blank":
            lines[i] = draw(st.sampled_from(["\n", " \n", "{}\n", "[]\n", "null\n"]))
        else:
            lines[i] = draw(st.text(max_size=30)) + "\n"
    data = "".join(lines).encode("utf-8")
    if draw(st.integers(0, 5)) == 0:
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=6)) + data[at:]
    return data


@st.composite
def damaged_stored_config(draw: st.DrawFn, text: str) -> bytes | None:
    """config.yaml kept, removed, cut, given bytes, or its rating changed."""
    kind = draw(st.sampled_from(["keep", "keep", "gone", "cut", "bytes", "anchor", "nest",
                                 "bomb", "text"]))
    if kind == "gone":
        return None
    if kind == "cut":
        return text.encode()[:draw(st.integers(0, len(text)))]
    if kind == "bytes":
        at = draw(st.integers(0, len(text)))
        return text.encode()[:at] + draw(st.binary(min_size=1, max_size=8)) + \
            text.encode()[at:]
    if kind == "anchor":
        return (text + f"rating: {{anchor: {{{draw(value_texts)}: {draw(value_texts)}}}}}\n"
                ).encode()
    if kind == "nest":
        return (text + "rating: " + "[" * 3000 + "]" * 3000 + "\n").encode()
    if kind == "bomb":
        return (text + ALIAS_BOMB + "rating: {anchor: *i}\n").encode()
    if kind == "text":
        return draw(st.text(max_size=40)).encode()
    return text.encode()


LEADERBOARD_ARGS = [[], ["--h2h"], ["--format", "json"], ["--format", "csv"],
                    ["--anchor", "random=1000"], ["--anchor", "nobody=1e400"],
                    ["--anchor", "greedy=nan"], ["--format", "html", "--h2h"]]


@settings(FUZZ, max_examples=40)
@given(data=st.data())
def test_a_damaged_results_folder_is_read_or_refused_in_one_line(results: Path,
                                                                  data: st.DataObject) -> None:
    leaderboard_of_damaged(results, data)


@pytest.mark.slow
@settings(FUZZ, max_examples=200)
@given(data=st.data())
def test_many_damaged_results_folders_are_read_or_refused_in_one_line(
        results: Path, data: st.DataObject) -> None:
    leaderboard_of_damaged(results, data)


def leaderboard_of_damaged(results: Path, data: st.DataObject) -> None:
    """``arena leaderboard`` of a damaged copy of ``results`` answers or is one line."""
    with damaged_copy(results, data) as folder:
        args = data.draw(st.sampled_from(LEADERBOARD_ARGS))
        with within(20):
            checked(runner.invoke(app, ["leaderboard", str(folder), *args]))


@contextlib.contextmanager
def damaged_copy(results: Path, data: st.DataObject) -> Iterator[Path]:
    """A copy of the results folder with its two files damaged."""
    with tempfile.TemporaryDirectory() as parent:
        folder = Path(parent) / "t"
        shutil.copytree(results, folder)
        games = (results / "games.jsonl").read_text("utf-8")
        (folder / "games.jsonl").write_bytes(data.draw(damaged_games(games)))
        stored = data.draw(damaged_stored_config((results / "config.yaml").read_text("utf-8")))
        if stored is None:
            (folder / "config.yaml").unlink()
        else:
            (folder / "config.yaml").write_bytes(stored)
        yield folder


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name not in ("arena.lock", "arena.log")}


@settings(FUZZ, max_examples=15)
@given(data=st.data())
def test_a_run_resuming_a_damaged_folder_plays_or_refuses_and_keeps_it(
        results: Path, data: st.DataObject) -> None:
    with damaged_copy(results, data) as folder:
        config = folder.parent / "t.yaml"
        config.write_text(RESULTS_CONFIG + f"output: {folder.parent}\n", "utf-8")
        before = snapshot(folder)
        with within(60):
            result = checked(runner.invoke(app, ["run", str(config)]))
        if result.exit_code == 2:
            assert snapshot(folder) == before


# ---------------------------------------------------------------- the calculators

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
CARD_TOKENS = [r + s for r in RANKS for s in "SHDC"] + ["JK", "jk", "th", "10♥", "T♠", "*"]
BAD_TOKENS = st.sampled_from(["", "1", "11H", "ZZ", "7X", "JOKERS", "10", "♥", "7H7H", "7H,8H",
                              "\x00", "🃏", "\uff2bh", "7H " * 100]) | \
    st.text(max_size=4).filter(lambda t: not t.startswith("-"))
OPTIONS = ["players=2", "players=3", "players=9", "players=", "wild_suits=all",
           "wild_suits=colour", "draw_cap=0", "draw_cap=10001", "draw_cap=50", "jokers=2",
           "match={deals: 2}", "match={rounds: 11}", "match={target: 500}", "mode=simple",
           "opening=71", "teams=true", "ace_high_value=11", "joker_in_hand=1001", "x=[",
           "noequals", "=1", "players=&a [*a]", "players=!!timestamp 2020-13-45",
           "match={deals: 1, deals: 2}", "invalid_declaration=end_deal", "players=1e400"]
VARIANTS = ["indian13", "three_thirteen", "rummy51", "rummy71", "moroccan"]
ODD_VARIANTS = ["ind", "tt", "r51", "poker", "", "INDIAN13", "indian13/v1", "indian13/v2"]


def _sometimes(draw: st.DrawFn, tenths: int) -> bool:
    return draw(st.integers(0, 9)) < tenths


@st.composite
def calculator_args(draw: st.DrawFn, command: str, most: int) -> list[str]:
    """`arena hand` or `arena meld`: mostly real cards and the flags the variant needs;
    sometimes a bad token, a count past the cap, a wrong flag or a bad option."""
    count = draw(st.integers(1, 15)) if _sometimes(draw, 8) else draw(st.integers(0, most + 3))
    cards = draw(st.lists(st.sampled_from(CARD_TOKENS), min_size=count, max_size=count))
    if cards and _sometimes(draw, 2):
        cards[draw(st.integers(0, len(cards) - 1))] = draw(BAD_TOKENS)
    variant = draw(st.sampled_from(VARIANTS if _sometimes(draw, 9) else ODD_VARIANTS))
    args = [command, variant, *cards]
    if (variant == "indian13") == _sometimes(draw, 9):
        args += ["--wild", draw(st.sampled_from(["7C", "JK", "8D", "QH"]) if
                                _sometimes(draw, 8) else BAD_TOKENS)]
    if (variant == "three_thirteen") == _sometimes(draw, 9):
        args += ["--round", str(draw(st.integers(1, 11) if _sometimes(draw, 8) else
                                     st.integers(-1, 12)))]
    if _sometimes(draw, 3):
        args += ["-o", draw(st.sampled_from(OPTIONS) if _sometimes(draw, 8) else
                            st.text(max_size=8))]
    return args + (["--json"] if draw(st.booleans()) else [])


@settings(FUZZ, max_examples=100)
@given(args=calculator_args("hand", MAX_HAND))
def test_arena_hand_answers_or_refuses_in_one_line(args: list[str]) -> None:
    with within(20):
        checked(runner.invoke(app, args))


@settings(FUZZ, max_examples=100)
@given(args=calculator_args("meld", MAX_MELD))
def test_arena_meld_answers_or_refuses_in_one_line(args: list[str]) -> None:
    with within(20):
        checked(runner.invoke(app, args))


def test_a_name_too_long_is_named_so_whatever_python_s_path_checks_say(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """From Python 3.14, ``Path.exists`` and ``is_file`` return False for a path that cannot
    be checked, where 3.11 to 3.13 raise. A bot's file or ``read:`` path whose name is too
    long is still named so, not reported missing (on 3.14 it used to be)."""
    def as_in_3_14(check: Any) -> Any:
        def quiet(self: Path, *args: Any, **kwargs: Any) -> bool:
            try:
                return bool(check(self, *args, **kwargs))
            except OSError:
                return False
        return quiet

    for name in ("exists", "is_file", "is_dir"):
        monkeypatch.setattr(Path, name, as_in_3_14(getattr(Path, name)))
    cases = {c[0]: c[1:] for c in ODD_INPUTS}
    for case in ("long-module-file", "long-read"):
        text, expected = cases[case]
        message = refused_config(tmp_path, text)
        assert message.startswith(expected), (case, message)
