"""The library's calls refuse a wrong argument by name and keep records apart (docs/api.md)."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena import api
from arena.actions import Draw, Play, parse_action
from arena.bot import GameInfo
from arena.cards import deck
from arena.cli.app import app
from arena.errors import BadInput
from arena.records import GameRecord
from arena.variants import find_variant
from arena.view import View
from bots.greedy import GreedyBot

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


@pytest.mark.parametrize("name", ["a/b", "../escaped", "", " x ", 3])
def test_play_refuses_a_bot_name_a_config_refuses(name: Any) -> None:
    """records.md: a reader refuses such a name; play wrote the record all the same, and
    '../escaped' put its log outside the logs folder."""
    with pytest.raises(BadInput, match=r"^bots\[0\]: expected a bot name of at most 100"):
        api.play("indian13", [api.BotSpec(name=name, target="bots.greedy:GreedyBot"), "random"])


def test_play_quotes_a_misspelt_bot() -> None:
    with pytest.raises(BadInput, match=r"got 'gredy'$"):
        api.play("indian13", ["greedy", "gredy"])


class Counting:
    """A bot object of a script: plays as greedy, and counts what it was asked."""

    def __init__(self) -> None:
        self.started: list[int] = []
        self.asked = 0
        self.greedy = GreedyBot()

    def start_game(self, info: GameInfo) -> None:
        self.started.append(info.seat)

    def draw(self, view: View) -> Draw:
        self.asked += 1
        return self.greedy.draw(view)

    def play(self, view: View) -> Play:
        self.asked += 1
        return self.greedy.play(view)


def test_a_bot_object_plays_the_game_its_class_named_would() -> None:
    """A script's own bot object plays in process, as python-chess plays an engine object."""
    bot = Counting()
    record = api.play("indian13", [bot, "random"], seed=7)
    assert record.actions == api.play("indian13", BOTS, seed=7).actions
    assert [s.bot for s in record.seats] == ["Counting", "random"]
    assert bot.started == [0] and bot.asked == record.seats[0].decisions > 0


class Broken(Counting):
    def play(self, view: View) -> Play:
        raise RuntimeError("my bug")


def test_a_bot_object_that_raises_is_a_fault_not_a_failed_call() -> None:
    record = api.play("indian13", [Broken(), "greedy"], seed=3)
    assert record.seats[0].faults["crash"] == record.seats[0].decisions // 2 > 0
    assert record.seats[1].faults["crash"] == 0


@pytest.mark.parametrize(("bots", "isolation", "message"), [
    ([GreedyBot, "greedy"], "inprocess", r"^bots: expected a list of bot names, BotSpecs or "
                                         r"bot objects \(with draw and play\)"),
    ([object(), "greedy"], "inprocess", r"^bots: expected"),
    ([Counting(), "greedy"], "process", r"^bots\[0\]: a bot object plays in process only"),
], ids=["a class", "no bot", "isolated"])
def test_bot_objects_it_cannot_play_are_refused(bots: list[Any], isolation: Any,
                                                message: str) -> None:
    with pytest.raises(BadInput, match=message):
        api.play("indian13", bots, isolation=isolation)


def test_one_bot_object_in_two_seats_is_refused() -> None:
    """Its state would mix two seats' hands."""
    bot = Counting()
    with pytest.raises(BadInput, match=r"^bots\[1\]: the same object as bots\[0\]"):
        api.play("indian13", [bot, bot])


def test_games_played_with_their_own_ids_read_back_whole(tmp_path: Path) -> None:
    """Every play() record was 'game', so a file of ten read back as one."""
    records = [api.play("indian13", BOTS, seed=s, game_id=f"g{s}") for s in range(1, 4)]
    games = tmp_path / "games.jsonl"
    games.write_text("".join(r.to_json() + "\n" for r in records))
    assert [r.id for r in api.read_games(games)] == ["g1", "g2", "g3"]
    assert api.read_games(games)[2].seed == 3


def test_a_missing_folder_or_file_is_an_error_not_an_empty_list(tmp_path: Path) -> None:
    """`arena leaderboard` refuses a typo in the folder; the library gave [] for it."""
    with pytest.raises(BadInput, match=r"quickstat: no such folder or file"):
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


def quick_config(tmp_path: Path) -> api.Config:
    return api.config_from({"name": "q", "variant": "indian13", "output": tmp_path,
                            "options": {"players": 2}, "workers": 1,
                            "bots": [{"name": "g", "module": "greedy"},
                                     {"name": "r", "module": "random"}],
                            "format": {"games": 2}})


@pytest.mark.parametrize(("change", "message"), [
    ({"workers": 0}, "Config.workers: expected a number of worker processes from 1 to 256, "
                     "got 0"),
    ({"name": "../up"}, "Config.name '../up': expected letters, digits"),
    ({"isolation": "inproces"}, "Config.isolation: expected one of process, inprocess, got "
                                "'inproces'"),
    ({"seed": -1}, "Config.seed: expected an integer seed from 0"),
    ({"seed": "7"}, "Config.seed: expected an integer seed from 0"),
    ({"variant": "poker"}, "Config.variant: unknown variant 'poker'"),
    ({"options": {"players": 9}}, "Config.options: indian13: option 'players' = 9"),
    ({"options": {"players": 3}}, "Config.format: 2 games per table; expected a multiple of "
                                  "the table size 3"),
    ({"cluster": "head:8786"}, "Config.cluster: expected a Dask scheduler address"),
    ({"output": ""}, "Config.output: expected a folder path"),
    ({"anchor": ("random", 1e9)}, "Config.anchor: expected (bot name, Elo), the Elo a number "
                                  "from -10,000 to 10,000"),  # its folder was unreadable
    ({"bots": []}, "Config.bots: expected a tuple of BotSpec"),
    ({"bots": (api.BotSpec("../up", "bots.greedy:GreedyBot"), api.BotSpec("r", "random"))},
     "Config.bots: expected a bot name of at most 100"),  # its log went outside the results
    ({"bots": (api.BotSpec("g", "greedy"), api.BotSpec("g", "random"))},
     "Config.bots: expected names of their own, got g, g"),
])
def test_a_config_changed_in_code_is_checked_as_a_file_is(
        tmp_path: Path, change: dict[str, Any], message: str) -> None:
    """dataclasses.replace skipped every check of the loader: workers=0 ran into a
    ZeroDivisionError, name="../up" wrote outside the output folder, a misspelt isolation
    ran isolated and a text seed played other deals than the record said."""
    config = quick_config(tmp_path)
    with pytest.raises(BadInput) as refused:
        dataclasses.replace(config, **change)
    assert str(refused.value).startswith(message), refused.value


def test_a_config_changed_in_code_keeps_what_a_file_would_give(tmp_path: Path) -> None:
    config = quick_config(tmp_path)
    four = dataclasses.replace(config, options={"players": 4}, output=str(tmp_path / "o"),
                               format=dataclasses.replace(config.format, games=4))
    assert four.options == api.config_from({**RAW4, "output": tmp_path}).options
    assert four.output == tmp_path / "o"  # text, as config_from takes it, becomes a Path
    assert dataclasses.replace(config, workers=2, seed=7).identity_hash() != \
        config.identity_hash()


@pytest.mark.parametrize(("option", "value"), [("players", 9), ("draw_cap", -5)])
def test_options_changed_in_place_are_checked_when_the_run_starts(
        tmp_path: Path, option: str, value: int) -> None:
    """A Config is frozen but its options are a dict: ``players`` set to 9 in place ran,
    played nothing and returned [] without a word."""
    config = dataclasses.replace(quick_config(tmp_path), seed=1)  # a seed: not replaced
    config.options[option] = value
    with pytest.raises(BadInput, match=f"^Config.options: indian13: option '{option}' = "):
        api.run(config, fresh=True)
    assert not (config.results_dir / "games.jsonl").exists()


RAW4 = {"name": "q", "variant": "indian13", "options": {"players": 4},
        "bots": [{"name": "g", "module": "greedy"}, {"name": "r", "module": "random"},
                 {"name": "r2", "module": "random"}, {"name": "r3", "module": "random"}],
        "format": {"games": 4}}


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


@pytest.mark.parametrize("variant", ["indian13", "three_thirteen", "rummy51", "moroccan"])
def test_apply_given_text_says_to_parse_it(variant: str) -> None:
    """``game.apply("stock")`` was refused as "a draw is expected first", a draw being what
    it was; a play's text raised an AttributeError from inside the engine."""
    game = find_variant(variant)(seed=1, options={"players": 2})
    while game.decision != "draw" or "discard" not in game.legal_draws():
        game.apply(game.safe_action())
    with pytest.raises(TypeError, match=re.escape(
            "apply takes a Draw or a Play, not str 'stock'; read text with "
            "arena.actions.parse_action")):
        game.apply("stock")  # type: ignore[arg-type]
    game.apply(parse_action("discard"))
    with pytest.raises(TypeError, match="not str"):
        game.apply(f"discard {game.hands[game.to_act][0]}")  # type: ignore[arg-type]
    text = str(game.hands[game.to_act][0])  # in a Play: "8H is not in the hand", of 8H held
    with pytest.raises(TypeError, match=re.escape(f"Play.discard takes a Card, not str "
                                                  f"{text!r}; read text with")):
        game.apply(Play(discard=text))  # type: ignore[arg-type]


def test_a_script_using_the_library_passes_mypy_strict(tmp_path: Path) -> None:
    """docs/api.md: the package is typed. Checked from outside the checkout, the project's
    own mypy settings did not apply, and two untyped imports inside the arena failed a
    user's `mypy --strict` (import-untyped)."""
    script = tmp_path / "user.py"
    script.write_text('import arena\n'
                      'from arena.api import Isolation, leaderboard, play\n\n'
                      'how: Isolation = "inprocess"\n'
                      'record = play("indian13", ["greedy", "random"], seed=3, isolation=how)\n'
                      'print(leaderboard([record])[0].bot, arena.__version__)\n', "utf-8")
    env = {**os.environ, "MYPYPATH": str(Path(__file__).parents[1])}
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir",
                           str(tmp_path / ".mypy"), str(script)], cwd=tmp_path, env=env,
                          text=True, capture_output=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-2000:]
    script.write_text("import arena\n\nprint(arena.__verison__)\n", "utf-8")  # a typo
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir",
                           str(tmp_path / ".mypy"), str(script)], cwd=tmp_path, env=env,
                          text=True, capture_output=True, timeout=600, check=False)
    assert done.returncode == 1 and 'no attribute "__verison__"' in done.stdout, done.stdout


@pytest.mark.parametrize(("call", "message"), [
    (("indian13", "3S 4S 5S", {}), "indian13: wild CARD (the indicator) is required (IND-5)"),
    (("three_thirteen", "2C 3C", {"round": 0}), "three_thirteen: round 0: expected 1 to 11"),
    (("rummy51", "3S 4S 5S", {"wild": "7C"}), "rummy51: wild and round do not apply"),
])
def test_check_hand_names_its_keywords_not_arena_hand_s_flags(call: Any, message: str) -> None:
    """It said '--wild CARD (the indicator) is required' to a caller who has no --wild."""
    variant, cards, keywords = call
    with pytest.raises(BadInput, match=f"^{re.escape(message)}"):
        api.check_hand(variant, cards, **keywords)


def test_check_hand_refuses_what_arena_hand_refuses_and_takes_text() -> None:
    """It returned 50 points for five aces of spades and scored 25 cards, where `arena
    hand` refuses both; a hand given as one text was read a character at a time."""
    with pytest.raises(BadInput, match=r"^AS given 5 times: the deck holds 2$"):
        api.check_hand("indian13", ["AS"] * 5, wild="7C")
    with pytest.raises(BadInput, match=r"^25 cards: expected at most 20 in a hand$"):
        api.check_hand("indian13", ["2S", "3S", "4S", "5S", "6S"] * 5, wild="7C")
    text = "3S 4S 5S 7H 8H 9H JK 2C 3C 4C 5D 6D 7D"
    assert api.check_hand("indian13", text, wild="7C") == \
        api.check_hand("indian13", text.split(), wild="7C")


@pytest.mark.parametrize(("setup", "message"), [
    ({"seed": None}, "seed None: expected an integer from 0"),
    ({"seed": "abc"}, "seed 'abc': expected an integer from 0"),
    ({"seed": -1}, "seed -1: expected an integer from 0"),
    ({"seed": 1, "dealer": 5}, "dealer 5: expected a seat from 0 to 1"),
    ({"seed": 1, "decks": deck(decks=2, jokers=2)}, "decks: expected a list of decks"),
    ({"seed": 1, "decks": [[str(c) for c in deck(decks=2, jokers=2)]]},
     "decks[0]: expected Card objects"),
    ({"seed": 2 ** 63}, "seed 9223372036854775808: expected an integer from 0 to "
                        "9223372036854775807"),  # play() and the records refuse it
    ({"seed": 1, "decks": [deck(decks=1, jokers=0)[:5]]},  # "pop from empty list"
     "decks[0]: 5 cards, too few for the deal to 2 seats"),
])
def test_a_game_is_set_up_as_documented_or_refused(setup: dict[str, Any], message: str
                                                   ) -> None:
    """A seed of None dealt a different game each time and text was taken as a seed; a
    dealer past the table and a deck of text or one unwrapped deck failed deep in the deal."""
    with pytest.raises(BadInput, match=f"^{re.escape(message)}"):
        find_variant("indian13")(options={"players": 2}, **setup)


@pytest.mark.parametrize("seat", [-1, 3, True, "0"])
def test_a_view_of_no_seat_is_refused(seat: int) -> None:
    """view(-1) showed the last seat's hand under seat -1; view(True) was seat 1's view,
    and view("0") a TypeError."""
    game = find_variant("indian13")(seed=1, options={"players": 3})
    with pytest.raises(BadInput, match=f"^seat {re.escape(repr(seat))}: expected a seat from "
                                       "0 to 2$"):
        game.view(seat)


def test_a_variant_or_options_of_the_wrong_type_are_named() -> None:
    """find_variant(None) raised an AttributeError, and options given as pairs said
    "unknown option ('players', 2)"."""
    with pytest.raises(BadInput, match=r"^variant None: expected a variant's name, one of "):
        find_variant(None)  # type: ignore[arg-type]
    with pytest.raises(BadInput, match=r"options \[\('players', 2\)\]: expected a mapping"):
        find_variant("indian13")(seed=1, options=[("players", 2)])  # type: ignore[arg-type]


def test_a_game_s_repr_says_where_it_stands_and_hides_the_cards() -> None:
    game = find_variant("indian13")(seed=1, options={"players": 2})
    assert repr(game) == "<Indian13 indian13/v1 seed=1 players=2: round 1, seat 1 to draw, " \
        "totals [0, 0]>"
    assert not any(str(c) in repr(game).split() for c in game.hands[0])


def test_play_gives_a_script_its_alarm_back() -> None:
    """In process, the clock's timer replaced the caller's SIGALRM handler and cancelled its
    alarm for good; both come back, and an alarm due meanwhile goes off."""
    heard: list[int] = []

    def mine(signum: int, frame: object) -> None:
        heard.append(signum)

    before = signal.signal(signal.SIGALRM, mine)
    try:
        signal.setitimer(signal.ITIMER_REAL, 60)
        api.play("indian13", [Counting(), "random"], seed=2)
        assert signal.getsignal(signal.SIGALRM) is mine
        assert 0 < signal.getitimer(signal.ITIMER_REAL)[0] <= 60
        signal.setitimer(signal.ITIMER_REAL, 0.001)  # due during the game
        api.play("indian13", [Counting(), "random"], seed=2)
        for _ in range(100):  # delivered at once; a loaded machine may take a moment
            if heard:
                break
            time.sleep(0.01)
        assert heard == [signal.SIGALRM]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)


def test_two_bot_objects_of_one_class_are_told_apart() -> None:
    """By class name alone the leaderboard of their games merged them into one bot."""
    records = [api.play("indian13", [GreedyBot(), GreedyBot()], seed=s, game_id=f"g{s}")
               for s in range(3)]
    assert [s.bot for s in records[0].seats] == ["GreedyBot", "GreedyBot-2"]
    assert {r.bot for r in api.leaderboard(r for r in records)} == {"GreedyBot",
                                                                    "GreedyBot-2"}


def test_play_logs_a_bot_object_s_traceback_where_asked(tmp_path: Path) -> None:
    record = api.play("indian13", [Broken(), "greedy"], seed=3, logs=tmp_path / "logs")
    assert record.seats[0].faults["crash"] > 0
    assert "RuntimeError: my bug" in (tmp_path / "logs" / "Broken.stderr.log").read_text()


@pytest.mark.parametrize(("source", "anchor", "message"), [
    ([], ("greedy", float("nan")), r"^anchor: expected \(bot name, Elo\)"),
    ([], ("greedy", 10**6), r"^anchor: expected .* from -10,000 to 10,000"),
    ([], "greedy=1000", r"^anchor: expected \(bot name, Elo\)"),
    ([], ("greedy", 1, 2), r"^anchor: expected"),
    (5, None, r"^source: expected a config, a results folder, a games.jsonl or records"),
    (["a"], None, r"^source: expected records \(GameRecord\), got 'a'"),
])
def test_leaderboard_names_the_argument_it_refuses(source: Any, anchor: Any,
                                                   message: str) -> None:
    """A string anchor was read letter by letter and NaN set every Elo to 0; these were
    numpy and attribute errors from deep inside."""
    with pytest.raises(BadInput, match=message):
        api.leaderboard(source, anchor=anchor)


def test_the_types_of_the_signatures_are_exported() -> None:
    from arena.api import Anchor, Bot, BotSpec, Game, Isolation, OnGame  # noqa: F401
    assert {"Anchor", "Bot", "BotSpec", "Game", "Isolation", "OnGame"} <= set(api.__all__)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: api.check_hand("indian13", 5), r"^cards: expected a text of cards"),
    (lambda: api.check_hand("indian13", b"3S 4S 5S", wild="7C"), r"^cards: expected"),
    (lambda: api.check_hand("three_thirteen", "3S 4S 5S", round="3"), r"^round: expected"),
    (lambda: api.check_hand("three_thirteen", "3S 4S 5S", round=True), r"^round: expected"),
    (lambda: api.check_hand("indian13", "3S", wild=7), r"^wild: expected a card"),
    (lambda: api.check_hand("indian13", "3S", wild="7C", options=[1]), r"^options: expected"),
    (lambda: api.read_games(5), r"^path: expected a games.jsonl's path, got 5"),
    (lambda: api.replay("x"), r"^record: expected a GameRecord, got 'x'"),
    (lambda: api.play("indian13", []), r"^bots: expected one bot a seat, at least 2, got 0"),
    (lambda: api.run(5), r"^config: expected a Config or a config file's path, got 5"),
    (lambda: api.run("configs/quickstart.yaml", on_game=5), r"^on_game: expected a function"),
])
def test_each_call_names_the_argument_of_the_wrong_kind(call: Any, message: str) -> None:
    """These were TypeErrors and AttributeErrors from deep inside (run's on_game only after
    its first game was played and written)."""
    with pytest.raises(BadInput, match=message):
        call()


@pytest.mark.parametrize(("argv", "call"), [
    (["meld", "indian13", "4H", "9D", "6D", "--wild", "9D"],
     lambda: api.check_meld("indian13", "4H 9D 6D", wild="9D")),
    (["meld", "rummy51", "9S", "9S", "9H"], lambda: api.check_meld("rummy51", ["9S", "9S", "9H"])),
    (["meld", "rummy51", "JK=8H", "6H", "7H"], lambda: api.check_meld("rummy51", "JK=8H 6H 7H")),
    (["open", "rummy51", "9S 9H 9D", "KC KD KS"],
     lambda: api.check_opening("rummy51", ["9S 9H 9D", "KC KD KS"])),
    (["open", "rummy51", "10S 10H 10D", "--table", "6H 7H JK=8H", "--take", "0 8H"],
     lambda: api.check_opening("rummy51", ["10S 10H 10D"], table=["6H 7H JK=8H"],
                               takebacks=["0 8H"])),
])
def test_the_meld_and_opening_calculators_are_calls_too(argv: list[str], call: Any) -> None:
    """docs/api.md: everything the command does is a call of arena.api; arena meld and arena
    open were not (their variant methods failed on text with an AttributeError)."""
    done = CliRunner().invoke(app, [*argv, "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout) == call().as_json()


@pytest.mark.parametrize(("call", "message"), [
    (lambda: api.check_meld("rummy51", ["3S"] * 5), "3S given 5 times: the deck holds 2"),
    (lambda: api.check_meld("rummy51", ""), "no cards given"),
    (lambda: api.check_meld("rummy51", [3]), "cards: expected cards such as 7H"),
    (lambda: api.check_opening("rummy51", "9S 9H 9D"), "melds: expected a list of "
                                                       "combinations"),
    (lambda: api.check_opening("moroccan", ["9S 9H 9D"], level=58),
     "level 58: expected 71 or more"),
    (lambda: api.check_opening("rummy51", ["9S 9H 9D"], takebacks=["x"]),
     "takebacks: expected the table combination's number"),
])
def test_the_calculator_calls_name_what_they_refuse(call: Any, message: str) -> None:
    with pytest.raises(BadInput, match=f"^{re.escape(message)}"):
        call()


@pytest.mark.parametrize(("argv", "call"), [
    (["meld", "rummy51", "JK=", "8H", "9H"], lambda: api.check_meld("rummy51", "JK= 8H 9H")),
    (["meld", "rummy51", *["3S"] * 14], lambda: api.check_meld("rummy51", ["3S"] * 14)),
    (["open", "rummy51", "9S 9H JK="], lambda: api.check_opening("rummy51", ["9S 9H JK="])),
])
def test_a_call_and_its_command_refuse_cards_in_the_same_words(argv: list[str],
                                                               call: Any) -> None:
    """One reading of table cards (arena.actions.placed_cards): the library had its own copy,
    and a joker naming nothing was refused in other words by each."""
    done = CliRunner().invoke(app, argv)
    assert done.exit_code == 2
    with pytest.raises(BadInput) as refused:
        call()
    assert done.stderr.strip() == f"arena: error: {refused.value}"


def test_ind_1_too_many_bots_are_told_as_bots_not_as_an_option() -> None:
    """Seven bots read "option 'players' = 7", an option neither caller gave."""
    said = "7 bots, one a seat: indian13 takes an integer from 2 to 6 players (IND-1)"
    with pytest.raises(BadInput, match=f"^{re.escape(said)}$"):
        api.play("indian13", ["random"] * 7, seed=1)
    done = CliRunner().invoke(app, ["play", "indian13", *["random"] * 7])
    assert done.exit_code == 2 and done.stderr.strip() == f"arena: error: {said}"
