"""The library's calls refuse a wrong argument by name and keep records apart (docs/api.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena import api
from arena.errors import BadInput
from arena.records import GameRecord

BOTS = ["greedy", "random"]


@pytest.mark.parametrize("seed", ["7", 1.5, None, True, -1, 2**70])
def test_play_refuses_a_seed_no_record_could_hold(seed: Any) -> None:
    """COM-4: a record's seed is an int; '7' played another game than 7 and never read back."""
    with pytest.raises(BadInput, match=r"^seed: expected an integer seed from 0"):
        api.play("indian13", BOTS, seed=seed)


@pytest.mark.parametrize(("arguments", "named"), [
    ({"variant": 13}, "variant"),
    ({"bots": [1, 2]}, "bots"),
    ({"bots": "greedy"}, "bots"),
    ({"options": [1]}, "options"),
    ({"isolation": "inproces"}, "isolation"),
    ({"game_id": ""}, "game_id"),
    ({"game_id": "a\x1b[2Jb"}, "game_id"),
])
def test_play_names_the_argument_it_refuses(arguments: dict[str, Any], named: str) -> None:
    """A typo in isolation used to play isolated without a word; a number, deep in a traceback."""
    call: dict[str, Any] = {"variant": "indian13", "bots": BOTS, **arguments}
    with pytest.raises(BadInput, match=rf"^{named}: expected"):
        api.play(call.pop("variant"), call.pop("bots"), **call)


def test_play_quotes_a_misspelt_bot() -> None:
    with pytest.raises(BadInput, match=r"got 'gredy'$"):
        api.play("indian13", ["greedy", "gredy"])


def test_games_played_with_their_own_ids_read_back_whole(tmp_path: Path) -> None:
    """Every play() record was 'game', so a file of ten read back as one."""
    records = [api.play("indian13", BOTS, seed=s, game_id=f"g{s}") for s in range(1, 4)]
    games = tmp_path / "games.jsonl"
    games.write_text("".join(r.to_json() + "\n" for r in records))
    assert [r.id for r in api.read_games(games)] == ["g1", "g2", "g3"]
    assert api.read_games(games)[2].seed == 3


def test_a_missing_folder_or_file_is_an_error_not_an_empty_list(tmp_path: Path) -> None:
    """`arena leaderboard` refuses a typo in the folder; the library gave [] for it."""
    with pytest.raises(BadInput, match=r"no games\.jsonl here"):
        api.leaderboard(tmp_path / "quickstat")
    with pytest.raises(BadInput, match="no such games file"):
        api.read_games(tmp_path / "nope.jsonl")


def test_records_in_hand_of_two_variants_are_not_rated_together() -> None:
    """docs/records.md: a leaderboard never mixes versions of the rules (as a file's reader)."""
    mixed = [api.play("indian13", BOTS, seed=1), api.play("three_thirteen", BOTS, seed=1)]
    with pytest.raises(BadInput, match="more than one variant version"):
        api.leaderboard(mixed)


def test_editing_a_record_read_to_rate_changes_no_later_reading(tmp_path: Path) -> None:
    """Equal options and fault counts were one dict for the whole process: one edit made
    every later leaderboard count faults no game had."""
    record = api.play("indian13", BOTS, seed=1, game_id="g1")
    games = tmp_path / "games.jsonl"
    games.write_text(record.to_json() + "\n")
    first = api.read_games(games, actions=False)[0]
    first.seats[0].faults["crash"] = 1  # type: ignore[index]
    first.options["draw_cap"] = 5  # type: ignore[index]
    again = api.read_games(games, actions=False)[0]
    assert dict(again.seats[0].faults) == dict(record.seats[0].faults)
    assert again.options == record.options
    assert [row.faults for row in api.leaderboard(games)] == [0, 0]


def test_records_of_one_reading_share_equal_options(tmp_path: Path) -> None:
    """The leaderboard's memory stays bounded: one mapping per distinct options in a reading."""
    lines = [api.play("indian13", BOTS, seed=s, game_id=f"g{s}").to_json() for s in (1, 2)]
    (tmp_path / "games.jsonl").write_text("".join(line + "\n" for line in lines))
    a, b = api.read_games(tmp_path / "games.jsonl", actions=False)
    assert a.options is b.options
    assert GameRecord.from_json(lines[0], actions=False).options is not a.options


def test_the_package_says_it_is_typed() -> None:
    """PEP 561: without py.typed a user's mypy cannot check calls into arena.api."""
    assert (Path(api.__file__).parent / "py.typed").is_file()


def test_a_config_built_in_code_takes_paths_where_a_file_has_text(tmp_path: Path) -> None:
    """docs/api.md: paths may be str or Path; `output` and a bot's file refused a Path."""
    bot = tmp_path / "mybot.py"
    bot.write_text(Path(__file__).parents[1].joinpath("examples", "first_bot.py").read_text())
    config = api.config_from({"name": "p", "variant": "indian13", "output": tmp_path / "out",
                              "options": {"players": 2}, "bots": [{"name": "mine", "module": bot},
                                       {"name": "g", "module": "greedy"}],
                              "format": {"type": "round-robin", "games": 2}})
    assert config.results_dir == tmp_path / "out" / "p"
    assert config.bots[0].target.startswith(str(bot))


def test_a_bot_file_is_read_beside_the_config_whatever_the_current_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """README: a file, relative to the config. One missing there was taken from the current
    folder, so which bot played depended on where the command was typed."""
    config = tmp_path / "contest" / "t.yaml"
    config.parent.mkdir()
    config.write_text("name: t\nvariant: indian13\noptions: {players: 2}\nbots:\n"
                      "  - {name: a, module: mine.py}\n  - {name: b, module: greedy}\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "mine.py").write_text(
        Path(__file__).parents[1].joinpath("examples", "first_bot.py").read_text())
    monkeypatch.chdir(elsewhere)
    with pytest.raises(BadInput, match=rf"no file '{config.parent / 'mine.py'}'"):
        api.load_config(config)
