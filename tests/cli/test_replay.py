"""`arena replay`: a finished game rebuilt from its record (COM-4), shown to the organiser
with every hand, or to one seat with only what it saw (COM-5): a card another seat drew
from the stock never appears; faults where they happened; --step waits for Enter."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from conftest import bot_target
from typer.testing import CliRunner

from arena.cli.app import app
from arena.records import GameRecord, read_games
from arena.replay import steps
from arena.report.replays import packed_steps

runner = CliRunner()
CONFIG = """\
name: watched
variant: {variant}
options: {{players: 2{extra}}}
bots:
  - name: greedy
    module: bots.greedy:GreedyBot
  - name: {second}
    module: {module}
format: {{games: 2}}
workers: 1
seed: 11
output: {out}
"""


def tournament(tmp_path: Path, variant: str = "indian13", *, second: str = "random",
               module: str = "bots.random_bot:RandomBot", extra: str = "") -> Path:
    config = tmp_path / f"{variant}.yaml"
    config.write_text(CONFIG.format(variant=variant, second=second, module=module,
                                    extra=extra, out=tmp_path / "results"), "utf-8")
    result = runner.invoke(app, ["run", str(config)])
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return tmp_path / "results" / "watched"


def shown(*args: str, stdin: str | None = None) -> str:
    result = runner.invoke(app, ["replay", *args], input=stdin)
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result.stdout


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tournament(tmp_path_factory.mktemp("replay"))


@pytest.mark.parametrize("variant", ["indian13", "three_thirteen", "rummy51",
                                     "moroccan"])
def test_com_4_every_step_replays_the_record(tmp_path: Path, variant: str) -> None:
    """The steps apply the record's actions in order and end on its totals; each round
    end shows the record's penalties; a draw adds its card to the hand the seat was shown."""
    folder = tournament(tmp_path, variant)
    for record in read_games(folder / "games.jsonl"):
        got = list(steps(record))
        actions = [s for s in got if s.at is not None]
        assert [f"{s.seat} {s.action}" for s in actions] == list(record.actions)
        assert [s.ended.penalties for s in actions if s.ended] == \
            [r.penalties for r in record.rounds]
        assert got[-1].after.totals == record.totals
        for s in got:
            if s.is_draw and s.ended is None and s.seat is not None and s.view is not None:
                assert s.drawn is not None
                assert Counter(s.after.hands[s.seat]) == Counter([*s.view.hand, s.drawn])


def test_the_organiser_sees_every_hand_and_each_draw(played: Path) -> None:
    record = read_games(played / "games.jsonl")[0]
    out = shown(str(played), record.id)
    first = next(s for s in steps(record) if s.at is None)
    for seat, hand in enumerate(first.after.hands):
        assert f"hand {seat}: " in out
        assert all(str(c) in out for c in hand)
    for s in steps(record):
        if s.is_draw and s.action == "stock":
            assert f"seat {s.seat} ({record.seats[s.seat].bot}): draws {s.drawn} from the " \
                   "stock" in out  # type: ignore[index]
    assert f"final totals {list(record.totals)}" in out


def test_com_5_a_seat_sees_only_its_own_view(played: Path) -> None:
    """With --seat 1, seat 0's stock draws show no card and seat 0's hand is never listed
    before a round ends; seat 1's hand at each of its decisions is what its bot was given."""
    record = read_games(played / "games.jsonl")[0]
    out = shown(str(played), record.id, "--seat", "1")
    lines = out.splitlines()
    assert not any(re.match(r"\s+hand 0:", line) for line in lines)
    assert "seat 0 (greedy): draws from the stock" in out
    assert not re.search(r"seat 0 \(greedy\): draws \S+ from the stock", out)
    for s in steps(record):
        if s.seat == 1 and s.view is not None:
            assert all(str(c) in out for c in s.view.hand)


def test_faults_are_shown_where_they_happened(tmp_path: Path) -> None:
    folder = tournament(tmp_path, second="raiser", module=bot_target("Raiser"))
    record: GameRecord = read_games(folder / "games.jsonl")[0]
    assert record.fault_log
    out = shown(str(folder), record.id)
    lines = out.splitlines()
    faults = [i for i, line in enumerate(lines) if "fault: crash" in line]
    assert len(faults) == len(record.fault_log)
    for i in faults:  # the action played for the fault comes next, by the same seat
        assert lines[i + 1].lstrip().startswith("seat 1 (raiser): ")


NOT_AT_SEAT_1 = """\
from bots.random_bot import RandomBot


class NotAtSeat1(RandomBot):
    \"\"\"Starts at seat 0 (so the run's start check passes), never at seat 1.\"\"\"

    def start_game(self, info):
        if info.seat == 1:
            raise RuntimeError("start_game broke")
"""


def test_a_seat_that_did_not_start_is_not_blamed_on_the_seat_that_acted(
        tmp_path: Path) -> None:
    """Its fault is noted before the first action, which is another seat's: the replay said
    that seat faulted and played the safe action, and the report marked its step so."""
    (tmp_path / "nostart.py").write_text(NOT_AT_SEAT_1, "utf-8")
    folder = tournament(tmp_path, second="nostart", module=f"{tmp_path / 'nostart.py'}"
                        ":NotAtSeat1")
    record = next(r for r in read_games(folder / "games.jsonl") if r.seats[1].bot == "nostart")
    assert [(n.at, n.seat, n.kind) for n in record.fault_log][:1] == [(0, 1, "crash")]
    lines = shown(str(folder), record.id).splitlines()
    faults = [line.strip() for line in lines if "fault:" in line]
    assert faults[0] == "seat 1 (nostart) fault: crash (no action of it here: it did not " \
        "start, or was stopped)", faults
    assert not any(line.startswith("seat 0") for line in faults), faults
    first = packed_steps(steps(record))[1]
    assert first["s"] == 0 and "f" not in first and first["o"] == [[1, "crash"]], first
    # the forfeit names its seat, in the game's last line and in the folder's list
    assert lines[-1].endswith("(forfeit: seat 1 nostart)"), lines[-1]
    listed = [line for line in shown(str(folder)).splitlines() if line.startswith(record.id)]
    assert listed == [f"{record.id}  greedy {record.totals[0]}, nostart {record.totals[1]}  "
                      "(forfeit: seat 1 nostart)"], listed


def test_step_waits_for_enter_and_input_running_out_plays_through(played: Path) -> None:
    record = read_games(played / "games.jsonl")[0]
    assert shown(str(played), record.id, "--step", stdin="\n\n") == \
        shown(str(played), record.id)


def test_seed_replays_the_game_arena_play_plays() -> None:
    play = runner.invoke(app, ["play", "indian13", "greedy", "random", "--seed", "3"])
    assert play.exit_code == 0
    totals = re.findall(r"^\s+\d+\s+\w+\s+\d+\s+(\d+)", play.stdout, re.M)
    out = shown("--seed", "3", "indian13", "greedy", "random")
    assert f"final totals [{', '.join(totals)}]" in out
    assert out.startswith("arena play's game: indian13/v1, seed 3, seat 0 greedy, seat 1 "
                          "random\n")  # it was "game game: ..."


def test_colour_only_on_a_terminal(played: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = read_games(played / "games.jsonl")[0]
    assert "\x1b[" not in shown(str(played), record.id)
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    coloured = shown(str(played), record.id)
    assert "\x1b[31m" in coloured  # a heart or a diamond in red


def test_a_folder_alone_lists_its_games_in_id_order(played: Path) -> None:
    """The README's `arena replay results/quickstart` (lists the folder's game ids) was an
    error naming 20 ids in the order they finished."""
    records = read_games(played / "games.jsonl")
    lines = shown(str(played)).splitlines()
    assert [line.split()[0] for line in lines] == sorted(r.id for r in records)
    first = min(records, key=lambda r: r.id)
    assert lines[0] == (f"{first.id}  {first.seats[0].bot} {first.totals[0]}, "
                        f"{first.seats[1].bot} {first.totals[1]}  ({first.termination})")


@pytest.mark.parametrize(("args", "expected"), [
    ([], "name a results folder and a game id"),
    (["{folder}/missing"], "missing: no such folder or file (expected a results folder "
                           "or its games.jsonl)"),
    (["{folder}/logs"], "logs: no games.jsonl here"),
    (["{folder}", "nope"], "no game 'nope'; its games are t0000-g00"),
    (["{folder}", "t0000-g000", "--seat", "2"], "--seat 2: the game has seats 0 to 1"),
    (["{folder}/missing", "g"], "no such folder or file"),
    (["--seed", "1", "indian13"], "name the variant and one bot per seat"),
    (["--seed", "3", "indian13", "greedy"],  # "option 'players' = 1 (IND-1)", unasked
     "replay --seed: one bot: a game needs one bot per seat, at least 2"),
])
def test_bad_requests_are_one_line(played: Path, args: list[str], expected: str) -> None:
    result = runner.invoke(app, ["replay", *(a.format(folder=played) for a in args)])
    assert result.exit_code == 2, result.stdout
    assert len(result.stderr.splitlines()) == 1 and expected in result.stderr, result.stderr


def test_r51_1_a_team_game_names_the_sides(tmp_path: Path) -> None:
    """R51-1: a replay listed four seats and never said who was whose partner; the header
    says it, and the report's game list shows the sides."""
    from arena.referee import play_game
    from arena.seats.bot import BotSpec
    from arena.tournament.results import sides
    from arena.variants import find_variant

    assert sides(["a", "b", "c", "d"], (0, 1, 0, 1)) == "a & c v b & d"
    assert sides(["a", "b", "c"], None) == "a v b v c"
    specs = [BotSpec(name, "bots.greedy:GreedyBot") for name in ("g1", "g2", "g3", "g4")]
    record = play_game(find_variant("rummy51"), specs, seed=3, game_id="t0000-g000",
                       options={"teams": True, "match": {"rounds": 1}, "draw_cap": 40})
    folder = tmp_path / "teams"
    folder.mkdir()
    (folder / "games.jsonl").write_text(record.to_json() + "\n", "utf-8")
    assert shown(str(folder), "t0000-g000").splitlines()[0].endswith(
        "seat 3 g4 (teams: seats 0 & 2 v 1 & 3)")
    done = runner.invoke(app, ["report", str(folder)])
    assert done.exit_code == 0, done.output
    assert "t0000-g000: g1 &amp; g3 v g2 &amp; g4" in (folder / "report.html").read_text("utf-8")


DECLARES_ANYTHING = """
class Bot:
    def draw(self, view):
        return "stock"

    def play(self, view):
        return f"declare {view.hand[0]}"
"""


@pytest.mark.parametrize("players", [2, 3])
def test_ind_20_an_invalid_declaration_is_told_where_it_happened(tmp_path: Path,
                                                                 players: int) -> None:
    """It looked like any declaration in `arena play -v` and `arena replay`: the round then
    went on (3 seats) or ended "(last_player)", and nothing said why."""
    (tmp_path / "declares.py").write_text(DECLARES_ANYTHING, "utf-8")
    bots = [f"{tmp_path / 'declares.py'}:Bot", *["random"] * (players - 1)]
    for argv in (["play", "indian13", *bots, "-v"], ["replay", "--seed", "1", "indian13",
                                                     *bots]):
        done = runner.invoke(app, [*argv, "--seed", "1", "-o", "draw_cap=6"]
                             if argv[0] == "play" else [*argv, "-o", "draw_cap=6"])
        assert done.exit_code == 0, done.output
        lines = done.stdout.splitlines()
        at = next(i for i, line in enumerate(lines) if re.search(r"seat 0 \(\w+\):? declare",
                                                                 line))
        assert lines[at + 1].strip() == "seat 0's declaration is invalid (IND-20)", lines[at:]
        ends = [line.strip() for line in lines if " ends (" in line]
        reason = "last_player: one seat is left, the others eliminated; an invalid " \
            "declaration eliminates its declarer, IND-20" if players == 2 else \
            "draw_cap: the draw cap was reached, COM-9"
        assert ends[0].startswith(f"round 1 ends ({reason}): penalties [80, 0"), ends
