"""One tournament, one writer; a results folder that is damaged says so and loses nothing.

A second ``arena run`` of the same tournament is refused while the first holds the folder's
lock; ``config.yaml`` is replaced whole; an unreadable ``config.yaml`` never leads to the
games being deleted; repeated game ids, NaN and bad bytes in ``games.jsonl`` give one line.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.app import app
from arena.engine.results import RoundEnd
from arena.errors import BadInput
from arena.records import read_games
from arena.referee import play_game
from arena.seats.bot import BotSpec
from arena.tournament.runner import writing
from arena.variants import find_variant

runner = CliRunner()
CONFIG = """\
    name: t
    variant: indian13
    options: {players: 2, draw_cap: 20}
    isolation: inprocess
    bots:
      - {name: greedy, module: bots.greedy:GreedyBot}
      - {name: random, module: bots.random_bot:RandomBot}
    format: {games: 2}
    workers: 1
    seed: 4
    """


def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "t.yaml"
    path.write_text(textwrap.dedent(CONFIG) + f"output: {tmp_path / 'results'}\n", "utf-8")
    return path


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["run", *args])
    return result.exit_code, result.stderr


def test_a_second_run_of_one_tournament_is_refused(tmp_path: Path) -> None:
    config = config_file(tmp_path)
    folder = tmp_path / "results" / "t"
    with writing(folder):  # as a first arena run would hold it
        code, err = run(str(config))
    assert code == 2
    assert err.splitlines() == [
        f"arena: error: {folder}: another arena run is writing this tournament (pid "
        f"{os.getpid()} on {os.uname().nodename}, since " + err.split(", since ")[1].strip()]
    assert not (folder / "games.jsonl").exists()
    assert run(str(config))[0] == 0  # the lock went with its holder
    assert len(read_games(folder / "games.jsonl")) == 2
    assert not (folder / "config.yaml.new").exists()


@pytest.mark.parametrize("damage", ["", "identity: [unclosed", "\x00\xff binary"])
@pytest.mark.parametrize("fresh", [False, True])
def test_an_unreadable_config_yaml_keeps_the_games(tmp_path: Path, damage: str,
                                                   fresh: bool) -> None:
    config = config_file(tmp_path)
    assert run(str(config))[0] == 0
    folder = tmp_path / "results" / "t"
    games = (folder / "games.jsonl").read_bytes()
    (folder / "config.yaml").write_bytes(damage.encode("latin-1"))
    code, err = run(str(config), *(["--fresh"] if fresh else []))
    assert code == 2
    assert len(err.splitlines()) == 1 and "config.yaml: unreadable or torn" in err
    assert "--fresh" not in err and "games in" in err
    assert (folder / "games.jsonl").read_bytes() == games


def test_repeated_game_ids_are_counted_once(tmp_path: Path,
                                            caplog: pytest.LogCaptureFixture) -> None:
    config = config_file(tmp_path)
    assert run(str(config))[0] == 0
    games = tmp_path / "results" / "t" / "games.jsonl"
    lines = games.read_text("utf-8").splitlines(keepends=True)
    games.write_text("".join(lines + lines[:1]), "utf-8")
    with caplog.at_level(logging.WARNING, logger="arena.records"):
        records = read_games(str(games))  # a path given as text works too
    assert [r.id for r in records] == [json.loads(line)["id"] for line in lines]
    assert "1 record repeats a game id" in caplog.text


def test_a_run_warns_of_repeated_ids_once(tmp_path: Path) -> None:
    """A run reads its file to resume and again for its leaderboard: it said it twice."""
    config = config_file(tmp_path)
    assert run(str(config))[0] == 0
    games = tmp_path / "results" / "t" / "games.jsonl"
    lines = games.read_text("utf-8").splitlines(keepends=True)
    games.write_text("".join(lines + lines[:1]), "utf-8")
    done = subprocess.run([str(Path(sys.executable).with_name("arena")), "run", str(config)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("1 record repeats a game id seen before") == 1, done.stderr


def test_ids_of_another_run_s_games_are_named_as_such(tmp_path: Path,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    """Two runs' files joined (every SPRT numbers its games s000000-g0 on): the warning
    said each game was counted once, of games that were different ones."""
    config = config_file(tmp_path)
    assert run(str(config))[0] == 0
    games = tmp_path / "results" / "t" / "games.jsonl"
    lines = games.read_text("utf-8").splitlines(keepends=True)
    other = [json.dumps({**json.loads(line), "seed": json.loads(line)["seed"] + 1},
                        separators=(",", ":")) + "\n" for line in lines[:2]]
    games.write_text("".join(lines + other + lines[:1]), "utf-8")
    with caplog.at_level(logging.WARNING, logger="arena.records"):
        records = read_games(games)
    assert len(records) == len(lines)
    first, second = (json.loads(line)["id"] for line in lines[:2])
    n = len(lines)  # the clashes are named with their lines, so that they can be found
    assert f"2 records reuse the id of a different game ({first} at line {n + 1}, {second} " \
        f"at line {n + 2}: another seed or seats; 3 repeats in all): only the first record " \
        "of each id is counted" in caplog.text


def test_a_last_line_without_its_newline_is_not_counted_and_says_so(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A whole record missing only its final newline (a file edited by hand, or a write
    cut short before it) was dropped without a word."""
    config = config_file(tmp_path)
    assert run(str(config))[0] == 0
    games = tmp_path / "results" / "t" / "games.jsonl"
    lines = games.read_text("utf-8").splitlines(keepends=True)
    games.write_text("".join(lines)[:-1], "utf-8")
    with caplog.at_level(logging.WARNING, logger="arena.records"):
        records = read_games(games)
    assert [r.id for r in records] == [json.loads(line)["id"] for line in lines[:-1]]
    assert f"{games}:{len(lines)}: the last line has no final newline" in caplog.text
    assert "not counted" in caplog.text
    caplog.clear()
    games.write_text("".join(lines), "utf-8")
    with caplog.at_level(logging.WARNING, logger="arena.records"):
        assert len(read_games(games)) == len(lines)
    assert caplog.text == ""


def test_a_resumed_run_refuses_games_its_schedule_does_not_hold(tmp_path: Path) -> None:
    """A record added by hand, or from another tournament, under an id of its own: the
    run's leaderboard counted it, and each resume kept it."""
    config = config_file(tmp_path)
    assert run(str(config))[0] == 0
    games = tmp_path / "results" / "t" / "games.jsonl"
    lines = games.read_text("utf-8").splitlines(keepends=True)
    foreign = lines[0].replace(f'"id":"{json.loads(lines[0])["id"]}"', '"id":"t0009-g000"')
    games.write_text("".join([*lines, foreign]), "utf-8")
    code, err = run(str(config))
    assert code == 2
    assert err.splitlines() == [
        f"arena: error: {games}:3: game 't0009-g000' is not one of this tournament's games "
        f"(t0000-g000 to t0000-g001); expected only the games its config schedules: move "
        "the line or the file aside, or run with --fresh to start over"]
    assert games.read_text("utf-8") == "".join([*lines, foreign])  # nothing written
    assert run(str(config), "--fresh")[0] == 0
    assert len(read_games(games)) == 2


@pytest.mark.parametrize(("change", "expected"), [
    (lambda r: r["seats"][0].update(bot="mallory"),
     "its bots: ('mallory', 'greedy'), the config's ('random', 'greedy')"),
    (lambda r: r["options"].update(draw_cap=5), "its option draw_cap: 5, the config's 20"),
    (lambda r: r.update(seed=r["seed"] + 1), "its seed: another"),
    (lambda r: r.update(dup_set="x"), "its duplicate set: 'x', the config's 't0000-d000'"),
])
def test_a_resumed_run_refuses_a_game_its_config_would_not_have_played(
        tmp_path: Path, change: Any, expected: str) -> None:
    """A record of a scheduled id but another tournament's bots, options or seed (copied,
    or edited) was counted on resume as this tournament's game."""
    config = config_file(tmp_path)
    assert run(str(config))[0] == 0
    games = tmp_path / "results" / "t" / "games.jsonl"
    lines = games.read_text("utf-8").splitlines(keepends=True)
    raw = json.loads(lines[1])
    change(raw)
    edited = [lines[0], json.dumps(raw) + "\n"]
    games.write_text("".join(edited), "utf-8")
    code, err = run(str(config))
    assert code == 2
    assert err.splitlines() == [
        f"arena: error: {games}:2: game {raw['id']!r} is not as this tournament plays it "
        f"({expected}); expected only the games its config schedules (an arena older than "
        "2026-12-07 scheduled other games at tables of 3 or more, and without duplicate "
        "deals): move the line or the file aside, or run with --fresh to start over"]
    assert games.read_text("utf-8") == "".join(edited)  # nothing written


@pytest.mark.parametrize(("change", "expected"), [
    (lambda r: {**r, "totals": [float("nan"), 1]}, "NaN is not a number a record may hold"),
    (lambda r: {**r, "totals": [1.5, 1]}, "totals: expected a list of integers"),
    (lambda r: {**r, "rounds": "x"}, "not a game record"),
])
def test_a_corrupt_record_is_one_line(tmp_path: Path, change: object, expected: str) -> None:
    config = config_file(tmp_path)
    assert run(str(config))[0] == 0
    games = tmp_path / "results" / "t" / "games.jsonl"
    first = json.loads(games.read_text("utf-8").splitlines()[0])
    games.write_text(json.dumps(change(first)) + "\n", "utf-8")  # type: ignore[operator]
    with pytest.raises(BadInput, match=expected):
        read_games(games)
    result = runner.invoke(app, ["leaderboard", str(games.parent)])
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1


def test_bytes_that_are_not_text_are_one_line(tmp_path: Path) -> None:
    games = tmp_path / "games.jsonl"
    games.write_bytes(b'{"schema": 1}\n\xff\xfe\n')
    with pytest.raises(BadInput, match="not UTF-8 text"):
        read_games(games)


def test_the_record_vocabulary_is_closed(tmp_path: Path) -> None:
    """A round end outside RoundEnd (docs/records.md) is a one-line error naming the line,
    not a game counted under an unknown end."""
    record = play_game(find_variant("indian13"), [BotSpec("greedy", "bots.greedy:GreedyBot"),
                                                  BotSpec("random", "bots.random_bot:RandomBot")],
                       seed=1, options={"players": 2})
    assert {r.reason for r in record.rounds} <= set(RoundEnd)
    raw = json.loads(record.to_json())
    raw["rounds"][0]["reason"] = "resigned"
    games = tmp_path / "games.jsonl"
    games.write_text(record.to_json() + "\n" + json.dumps(raw) + "\n", "utf-8")
    with pytest.raises(BadInput, match=r"games.jsonl:2: not a game record"):
        read_games(games)
