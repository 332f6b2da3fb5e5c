"""The leaderboard from synthetic records: wins, points, ranks, faults, Elo, every format."""

from __future__ import annotations

import csv
import html
import io
import json
import random
from collections.abc import Sequence
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from arena.cli.app import app
from arena.engine.results import GameEnd, RoundEnd
from arena.errors import BadInput
from arena.ratings.bradley_terry import ELO_MEAN, bradley_terry_elo
from arena.ratings.comparisons import pairwise
from arena.ratings.leaderboard import Standing, board, faulty_bots, head_to_head, standings
from arena.ratings.render import (
    COMPACT_HEADERS,
    HEADERS,
    TABLE_HEADERS,
    footnotes,
    markdown_text,
    render,
    render_h2h,
)
from arena.ratings.sprt import set_result
from arena.ratings.terms import FORMATS
from arena.records import FAULT_KINDS, GameRecord, RoundRecord, SeatRecord, places

runner = CliRunner()


def ranks_of(totals: Sequence[int]) -> tuple[int, ...]:
    return tuple(1 + sum(1 for o in totals if o < t) for t in totals)


def record(bots: Sequence[str], totals: Sequence[int], *, gid: str = "g",
           faults: Sequence[int] | None = None) -> GameRecord:
    seats = tuple(SeatRecord(bot=b, faults={**dict.fromkeys(FAULT_KINDS, 0),
                                            "timeout": (faults or [0] * len(bots))[i]},
                             decisions=10, time_mean_ms=1.0, time_p95_ms=2.0,
                             time_max_ms=3.0)
                  for i, b in enumerate(bots))
    return GameRecord(schema=1, id=gid, variant="indian13/v1", options={"players": len(bots)},
                      seed=1, seats=seats, actions=(),
                      rounds=(RoundRecord(round=1, dealer=0, reason=RoundEnd.DECLARATION,
                                          penalties=tuple(totals)),),
                      totals=tuple(totals), ranks=ranks_of(totals), termination=GameEnd.NORMAL)


def by_bot(rows: list[Standing]) -> dict[str, Standing]:
    return {r.bot: r for r in rows}


def test_wins_points_ranks_and_faults() -> None:
    records = [
        record(["a", "b", "c"], [0, 20, 40], gid="1", faults=[0, 1, 2]),
        record(["b", "c", "a"], [0, 0, 10], gid="2", faults=[0, 3, 0]),  # shared first
        record(["c", "a", "b"], [5, 0, 5], gid="3"),  # shared second
    ]
    rows = by_bot(standings(records))
    a, b, c = rows["a"], rows["b"], rows["c"]
    assert (a.games, b.games, c.games) == (3, 3, 3)
    assert (a.wins, b.wins, c.wins) == (2.0, 0.5, 0.5)
    assert sum(r.wins for r in rows.values()) == 3  # one win per game, shared ones split
    assert a.win_pct == round(100 * 2 / 3, 1)
    assert b.win_pct == round(100 * 0.5 / 3, 1)
    assert (a.mean_points, b.mean_points, c.mean_points) == (round(10 / 3, 2), round(25 / 3, 2),
                                                             15.0)
    # ranks: a 1, 3, 1; b 2, 1, 2; c 3, 1, 2 (competition ranks, ties share)
    assert (a.mean_rank, b.mean_rank, c.mean_rank) == (round(5 / 3, 2), round(5 / 3, 2), 2.0)
    assert (a.faults, b.faults, c.faults) == (0, 1, 5)


def test_a_bot_in_two_seats_of_a_game_played_one_game() -> None:
    """An SPRT's baseline holds two of three seats: the games column counted 180 of 90. Its
    win is its seats' mean, as its rank is: won by any of its seats, a bot in two of three
    seats of equals would show twice their win %."""
    records = [record(["a", "b", "b"], [0, 20, 40], gid="1"),
               record(["b", "a", "b"], [0, 10, 30], gid="2"),
               record(["b", "b", "a"], [10, 10, 0], gid="3")]
    rows = by_bot(standings(records))
    assert (rows["a"].games, rows["b"].games) == (3, 3)
    assert (rows["a"].wins, rows["b"].wins) == (2.0, 0.5)  # game 2: one of b's two seats won
    assert rows["b"].win_pct == round(100 * 0.5 / 3, 1)
    assert rows["b"].mean_rank == round((2.5 + 2 + 2) / 3, 2)  # the mean of its seats' ranks


def test_three_way_shared_first_splits_in_thirds() -> None:
    rows = by_bot(standings([record(["a", "b", "c"], [7, 7, 7])]))
    assert {r.wins for r in rows.values()} == {0.33}
    assert {r.mean_rank for r in rows.values()} == {1.0}
    assert {r.elo for r in rows.values()} == {ELO_MEAN}


def test_all_fault_kinds_are_summed() -> None:
    r = record(["a", "b"], [0, 10])
    seats = (SeatRecord(bot="a", faults={"timeout": 1, "illegal": 2, "crash": 3,
                                         "unreadable": 4}, decisions=1, time_mean_ms=0,
                        time_p95_ms=0, time_max_ms=0), r.seats[1])
    rows = by_bot(standings([GameRecord(**{**{f: getattr(r, f) for f in r.__slots__},
                                           "seats": seats})]))
    assert rows["a"].faults == 10
    assert rows["b"].faults == 0


def league(seed: int = 3, games: int = 300) -> list[GameRecord]:
    """Bots of known strength: a lower 'skill' number means lower penalty points."""
    rng = random.Random(seed)
    skill = {"strong": 0, "good": 10, "fair": 20, "weak": 35}
    names = list(skill)
    out = []
    for i in range(games):
        table = rng.sample(names, 3)
        totals = [max(0, int(rng.gauss(skill[b], 15))) for b in table]
        out.append(record(table, totals, gid=f"g{i}"))
    return out


def test_elo_follows_strength_and_averages_1500() -> None:
    rows = standings(league())
    assert [r.bot for r in rows] == ["strong", "good", "fair", "weak"]
    assert [r.rank for r in rows] == [1, 2, 3, 4]
    elos = [r.elo for r in rows]
    assert elos == sorted(elos, reverse=True)
    assert sum(elos) / len(elos) == pytest.approx(ELO_MEAN, abs=0.1)
    assert elos[0] - elos[-1] > 200


def test_elo_does_not_depend_on_record_order() -> None:
    records = league()
    first = standings(records)
    for seed in range(3):
        shuffled = records[:]
        random.Random(seed).shuffle(shuffled)
        assert standings(shuffled) == first


def test_elo_fit_exact_values() -> None:
    names = ["a", "b"]
    wins, meets = pairwise([(["a", "b"], [0, 10])] * 3 + [(["b", "a"], [0, 10])])
    assert wins[("a", "b")] == 3 and wins[("b", "a")] == 1 and meets[("a", "b")] == 4
    elo = bradley_terry_elo(names, wins, meets)
    assert sum(elo.values()) / 2 == pytest.approx(ELO_MEAN)
    assert elo["a"] > elo["b"]
    # ties count half each way: an all-tied pair is rated equal
    wins, meets = pairwise([(["a", "b"], [5, 5])] * 4)
    elo = bradley_terry_elo(names, wins, meets)
    assert elo["a"] == pytest.approx(elo["b"]) == pytest.approx(ELO_MEAN)


def test_unbeaten_bot_has_a_finite_elo() -> None:
    rows = standings([record(["a", "b"], [0, 10], gid=str(i)) for i in range(20)])
    top = by_bot(rows)["a"].elo
    assert ELO_MEAN < top < 3000


def test_empty_leaderboard() -> None:
    assert standings([]) == []
    for fmt in FORMATS:
        render([], fmt)


SAMPLE = [record(["a", "b", "c"], [0, 20, 40], gid="1"), record(["b", "c", "a"], [0, 0, 10],
                                                                  gid="2")]


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_renders_every_bot(fmt: str) -> None:
    text = render(standings(SAMPLE), fmt)
    for bot in "abc":
        assert bot in text
    assert "win" in text or fmt == "json"


def test_json_parses_to_standings() -> None:
    rows = standings(SAMPLE)
    parsed = json.loads(render(rows, "json"))
    assert [Standing(**r) for r in parsed] == rows
    assert set(parsed[0]) == {"rank", "bot", "games", "wins", "win_pct", "mean_points",
                              "mean_rank", "elo", "faults", "forfeits", "elo_low", "elo_high",
                              "points_low", "points_high", "vs_field", "vs_field_low",
                              "vs_field_high", "openskill", "los_next"}


def test_csv_has_the_header_and_one_row_per_bot() -> None:
    rows = standings(SAMPLE)
    table = list(csv.reader(io.StringIO(render(rows, "csv"))))
    assert table[0] == HEADERS
    assert [r[1] for r in table[1:]] == [r.bot for r in rows]
    assert len(table) == 4


def test_github_and_html_shapes() -> None:
    rows = standings(SAMPLE)
    github = render(rows, "github").splitlines()
    assert github[0].startswith("|") and set(github[1]) <= set("|-: ")
    assert len(github) == 2 + len(rows)
    page = render(rows, "html")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert page.count("<tr>") - 1 == len(rows)
    assert render(rows, "markdown").splitlines()[0].startswith("|")


def test_the_head_to_head_in_html_is_a_page_like_the_leaderboard_s() -> None:
    """``--h2h --format html`` printed tabulate's bare table, unstyled and without a page
    around it, where the leaderboard's html is a page to open."""
    records = [record(["<b>x</b>", "c"], [0, 10], gid="1"), record(["c", "<b>x</b>"], [5, 0],
                                                                     gid="2")]
    page = render_h2h(head_to_head(records), "html")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<h1>Head to head</h1>" in page and 'class="leaderboard"' in page
    assert "<b>x</b>" not in page and page.count("&lt;b&gt;x&lt;/b&gt;") == 2
    assert '<td class="bot">c</td><td>0/2</td><td>-</td>' in page


def test_unknown_format_is_bad_input() -> None:
    with pytest.raises(BadInput, match="--format 'xml'"):
        render([], "xml")


# ---------------------------------------------------------------- arena leaderboard


def results_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "results" / "demo"
    folder.mkdir(parents=True)
    lines = "".join(r.to_json() + "\n" for r in league(games=40))
    (folder / "games.jsonl").write_text(lines, encoding="utf-8")
    return folder


@pytest.mark.parametrize("fmt", FORMATS)
def test_cli_leaderboard_every_format(tmp_path: Path, fmt: str) -> None:
    folder = results_folder(tmp_path)
    result = runner.invoke(app, ["leaderboard", str(folder), "--format", fmt])
    assert result.exit_code == 0, result.output
    expected = render(standings(league(games=40)), fmt)
    assert result.output.rstrip("\n") == expected


def test_cli_leaderboard_json_parses(tmp_path: Path) -> None:
    result = runner.invoke(app, ["leaderboard", str(results_folder(tmp_path)),
                                 "--format", "json"])
    assert json.loads(result.output)[0]["bot"] == "strong"


def test_cli_leaderboard_accepts_the_file_itself(tmp_path: Path) -> None:
    folder = results_folder(tmp_path)
    result = runner.invoke(app, ["leaderboard", str(folder / "games.jsonl")])
    assert result.exit_code == 0
    assert "strong" in result.output


def test_cli_leaderboard_skips_a_torn_last_line(tmp_path: Path) -> None:
    folder = results_folder(tmp_path)
    with (folder / "games.jsonl").open("a", encoding="utf-8") as f:
        f.write(record(["strong", "weak"], [90, 0]).to_json()[:50])
    result = runner.invoke(app, ["leaderboard", str(folder), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == json.loads(render(standings(league(games=40)), "json"))


@pytest.mark.parametrize("bad", ['{"schema": 1, "id": "x"', '{"schema": 1}', "not json"])
def test_cli_leaderboard_with_a_corrupt_line_is_one_line(tmp_path: Path, bad: str) -> None:
    # A damaged whole line (not the torn tail) should be reported in one line naming the
    # file and the line (bad input, exit 2), not as a traceback.
    folder = results_folder(tmp_path)
    games = folder / "games.jsonl"
    lines = games.read_text("utf-8").splitlines(keepends=True)
    games.write_text("".join([lines[0], bad + "\n", *lines[1:]]), encoding="utf-8")
    result = runner.invoke(app, ["leaderboard", str(folder)])
    assert result.exit_code == 2, (result.output, result.exception)
    out = result.output.strip().splitlines()
    assert len(out) == 1 and out[0].startswith("arena: error: "), result.output
    assert f"{games}:2" in out[0]


def test_cli_leaderboard_without_games_exits_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["leaderboard", str(tmp_path)])
    assert result.exit_code == 2
    assert result.output.strip() == f"arena: error: {tmp_path}: no games.jsonl here"


def test_cli_leaderboard_missing_folder_exits_2(tmp_path: Path) -> None:
    """It said "nope: no games.jsonl here", as of a folder that exists."""
    result = runner.invoke(app, ["leaderboard", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert result.output.strip() == (f"arena: error: {tmp_path / 'nope'}: no such folder or "
                                     "file (expected a results folder or its games.jsonl)")


def test_cli_leaderboard_bad_format_exits_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["leaderboard", str(results_folder(tmp_path)),
                                 "--format", "xml"])
    assert result.exit_code == 2
    assert result.output.strip().startswith("arena: error: --format 'xml'")


def test_r51_team_games_never_compare_partners() -> None:
    """R51-1 (teams): seats 0 and 2 play against 1 and 3, and partners share their score.
    The leaderboard reads the team map from the records: partners never meet in the
    head-to-head, and the team of two greedy bots rates above the two random bots."""
    from arena.ratings.leaderboard import head_to_head
    from arena.referee import play_game
    from arena.seats.bot import BotSpec
    from arena.tournament.results import teams_of
    from arena.variants.rummy51 import Rummy51

    greedy, random_bot = "bots.greedy:GreedyBot", "bots.random_bot:RandomBot"
    specs = [BotSpec("greedy", greedy), BotSpec("random", random_bot),
             BotSpec("greedy-2", greedy), BotSpec("random-2", random_bot)]
    records = [play_game(Rummy51, specs, seed=seed,
                         options={"teams": True, "match": {"rounds": 1}, "draw_cap": 60})
               for seed in (1, 2)]
    assert teams_of(records) == (0, 1, 0, 1)
    met = {(m.bot, m.opponent) for m in head_to_head(records, teams=teams_of(records))}
    assert ("greedy", "greedy-2") not in met and ("random", "random-2") not in met
    assert ("greedy", "random") in met
    rows = standings(records, resamples=20, teams=teams_of(records))
    assert {rows[0].bot, rows[1].bot} == {"greedy", "greedy-2"}
    solo = play_game(Rummy51, specs, seed=3, options={"match": {"rounds": 1}, "draw_cap": 60})
    with pytest.raises(BadInput, match="mix team games"):
        teams_of([*records, solo])


def test_r51_a_team_s_first_place_is_a_win_for_each_partner() -> None:
    """R51-1 (teams): partners always share their total, so splitting a shared first place
    gave a team that won every game 50%; the team wins, each partner wins. A team's rank
    counts the teams ahead of it (2, not 3, for the team that lost)."""
    won = record(["a", "b", "c", "d"], [0, 50, 0, 50], gid="g1")
    lost = record(["a", "b", "c", "d"], [40, 0, 40, 0], gid="g2")
    rows = by_bot(standings([won, won, won, lost], resamples=0, teams=(0, 1, 0, 1)))
    assert (rows["a"].win_pct, rows["c"].win_pct, rows["b"].win_pct) == (75.0, 75.0, 25.0)
    assert (rows["a"].mean_rank, rows["b"].mean_rank) == (1.25, 1.75)
    both = record(["a", "b", "a", "a"], [0, 50, 0, 50], gid="g3")  # a on both teams
    assert by_bot(standings([both], resamples=0, teams=(0, 1, 0, 1)))["a"].win_pct == 66.7


def test_r51_an_sprt_baseline_on_both_teams_wins_as_its_seats_do() -> None:
    """R51-1 (teams): `arena sprt` seats (A, B, B, B), so B sits on both teams. Counted as
    won by any of its seats B won every game, 100% beside A's 60%; its seats' mean is the
    share its seats won: 1 of 3 when A's team wins, 2 of 3 when it loses."""
    games = [record(["A", "B", "B", "B"], [0, 30, 0, 30] if g < 6 else [30, 0, 30, 0],
                    gid=f"g{g}") for g in range(10)]
    rows = by_bot(standings(games, resamples=0, teams=(0, 1, 0, 1)))
    assert rows["A"].win_pct == 60.0
    assert rows["B"].win_pct == round(100 * (6 / 3 + 4 * 2 / 3) / 10, 1)  # 46.7
    assert rows["B"].mean_rank == round((6 * (1 + 2 + 2) / 3 + 4 * (2 + 1 + 1) / 3) / 10, 2)


def test_r51_partners_have_no_los_between_them() -> None:
    """R51-1 (teams): partners share every result, so no resample moves their gap; it
    differed by rounding alone (1e-13), and the LOS between them read 50.0%."""
    games = [record(["a", "b", "c", "d"], [0, 30, 0, 30] if g < 6 else [30, 0, 30, 0],
                    gid=f"g{g}") for g in range(10)]
    rows = standings(games, resamples=40, teams=(0, 1, 0, 1))
    assert [r.bot for r in rows][:2] in (["a", "c"], ["c", "a"])
    assert rows[0].los_next is None  # its partner is next
    assert rows[1].los_next is not None  # the other team is next: a measured spread
    assert [r.bot for r in rows][2:] in (["b", "d"], ["d", "b"]) and rows[2].los_next is None


def test_r51_com_6_a_team_whose_seat_forfeited_loses_in_every_column() -> None:
    """R51-12, COM-6: the forfeited seat's partner, who played on, has the record's rank 1;
    the Elo and the head-to-head counted the team's loss, but win % gave it the win and
    mean rank an impossible place."""
    game = record(["a", "quits", "c", "d"], [31, 0, 31, 0], gid="g1")
    seats = tuple(msgspec.structs.replace(s, forfeit=i == 1) for i, s in enumerate(game.seats))
    game = msgspec.structs.replace(game, seats=seats, ranks=places([31, 0, 31, 0],
                                                                   [False, True, False, False]),
                                   termination=GameEnd.FORFEIT)
    assert game.ranks == (2, 4, 2, 1)  # the record's own places, seat by seat
    rows = by_bot(standings([game], resamples=0, teams=(0, 1, 0, 1)))
    assert [rows[b].win_pct for b in ("a", "c", "quits", "d")] == [100.0, 100.0, 0.0, 0.0]
    assert [rows[b].mean_rank for b in ("a", "c", "quits", "d")] == [1.0, 1.0, 2.0, 2.0]
    meetings = {(m.bot, m.opponent): m.score for m in head_to_head([game], teams=(0, 1, 0, 1))}
    assert meetings[("a", "d")] == 1 and meetings[("d", "a")] == 0
    # arena sprt's set score: d, whose partner forfeited, loses to a (it had won)
    assert set_result([game], "d", "a", teams=(0, 1, 0, 1)) == (0.0, 1)


# ---------------------------------------------------------------- what the table rests on


def in_set(r: GameRecord, dup_set: str) -> GameRecord:
    """The record as a game of the duplicate set ``dup_set``."""
    return GameRecord(**{**{f: getattr(r, f) for f in r.__slots__}, "dup_set": dup_set})


def duplicate_league(sets: int, *, seats: int = 4, seed: int = 5,
                     names: Sequence[str] = ("greedy", "greedy-2", "first-bot", "random",
                                             "random-2")) -> list[GameRecord]:
    """Duplicate sets: one table of ``seats`` bots per set, one game per rotation."""
    rng = random.Random(seed)
    skill = {b: 10 * i for i, b in enumerate(names)}
    out = []
    for s in range(sets):
        table = rng.sample(list(names), seats)
        for g in range(seats):
            order = table[g:] + table[:g]
            totals = [max(0, int(rng.gauss(skill[b], 15))) for b in order]
            r = record(order, totals, gid=f"s{s:03d}-g{g}")
            out.append(GameRecord(**{**{f: getattr(r, f) for f in r.__slots__},
                                     "dup_set": f"s{s:03d}"}))
    return out


def test_too_few_sets_say_so_with_the_games_needed() -> None:
    rows = board(duplicate_league(2))
    assert not rows.footing.has_intervals and rows.footing.games_needed == 20
    text = render(rows.rows, footing=rows.footing)
    assert text.splitlines()[-1] == ("No intervals or LOS: 2 duplicate sets (8 games); they "
                                     "need 5 sets, 20 games.")
    loose = board(SAMPLE)  # games without sets: each game is a unit
    assert footnotes(loose.footing) == ["No intervals or LOS: 2 games; they need 5 games or "
                                        "more."]
    uneven = board([*duplicate_league(2), *duplicate_league(1, seats=3, seed=6)[:3]])
    assert "they need 5 sets, about" in footnotes(uneven.footing)[0]
    sets = duplicate_league(3)  # 4, 4 and 1 games: a mean of 3 a set, yet "about" all the same
    odd = board([*sets[:8], sets[8]])
    assert footnotes(odd.footing)[0] == ("No intervals or LOS: 3 duplicate sets (9 games); they "
                                         "need 5 sets, about 15 games.")
    assert not any("No intervals" in n for n in footnotes(board(duplicate_league(5)).footing))


def test_the_duplicate_gain_line_needs_enough_sets() -> None:
    enough = board(duplicate_league(12))
    assert enough.footing.gain is not None and enough.footing.gain.sets == 12
    line = footnotes(enough.footing)[-1]
    assert line.startswith("Duplicate deals: the variance of bots' point differences is ")
    assert line.endswith("of independent deals' (12 sets).")
    assert board(duplicate_league(4)).footing.gain is None  # no interval, no figure either
    assert board(league(games=60)).footing.gain is None  # no duplicate sets


def test_the_wide_table_keeps_each_number_s_digits() -> None:
    """Read back as numbers, the wide cells lost their digits: win % 60 beside 66.7, points
    26 beside 58.62."""
    games = [record(["a", "b"], [0, 26] if g < 6 else [26, 0], gid=f"g{g}") for g in range(10)]
    rows = board(games, resamples=0)
    for fmt in ("plain", "github"):
        line = next(x for x in render(rows.rows, fmt, wide=True).splitlines() if " a " in x)
        assert " 60.0 " in line and " 10.40 " in line and " 6.00 " in line, line


def test_the_default_table_fits_100_columns_and_wide_has_every_column() -> None:
    rows = board(duplicate_league(12), anchor=("random", 1000.0))
    compact = render(rows.rows, footing=rows.footing)
    assert max(len(line) for line in compact.splitlines()) <= 100, compact
    wide = render(rows.rows, wide=True, footing=rows.footing)
    no_forfeits = [h for h in TABLE_HEADERS if h != "forfeits"]  # none forfeited here
    assert wide.splitlines()[0].split() == " ".join(no_forfeits).split()
    # --wide dropped win % and named three columns "95% CI" alike
    assert {"win %", "Elo 95% CI", "points 95% CI", "vs field 95% CI"} <= set(TABLE_HEADERS)
    assert set(COMPACT_HEADERS) - set(TABLE_HEADERS) == {"Elo ± 95%", "vs field ± 95%"}
    assert max(len(line) for line in wide.splitlines()) > 100
    for fmt in ("github", "markdown", "html"):
        assert "mean rank" in render(rows.rows, fmt, wide=True)
        assert "mean rank" not in render(rows.rows, fmt)


def test_a_gap_no_resample_moves_has_no_los_and_a_line_says_why() -> None:
    """Two bots that split every game between them (the same bot twice, dealt the same
    decks) have a gap of 0 in every resample: no LOS, and a line saying so (the blank
    was left unexplained)."""
    games = [record(["a", "b"], [0, 10], gid=f"g{i}") if i % 2 else
             record(["b", "a"], [0, 10], gid=f"g{i}") for i in range(30)]
    level = board([in_set(r, f"s{i // 2:03d}") for i, r in enumerate(games)])
    assert [r.los_next for r in level.rows] == [None, None]
    assert level.footing.level == ((level.rows[0].bot, level.rows[1].bot),)
    assert f"No LOS for {level.rows[0].bot} over {level.rows[1].bot}: every resample gives " \
        "the same Elo gap." in footnotes(level.footing)
    apart = board([in_set(record(["a", "b"] if i % 3 else ["b", "a"], [0, 10], gid=f"g{i}"),
                          f"s{i // 2:03d}") for i in range(30)])
    assert apart.rows[0].los_next is not None and apart.footing.level == ()


def test_no_interval_is_shown_with_zero_width() -> None:
    """The anchor's own Elo is fixed: it says so instead of [1000, 1000]. A statistic every
    resample gives alike (a bot that always scores 0) has no interval, and a line says why."""
    rows = board(duplicate_league(12), anchor=("random", 1000.0))
    fixed = by_bot(rows.rows)["random"]
    assert fixed.elo == 1000.0 and fixed.elo_low is None and fixed.elo_high is None
    assert "1000 (anchor)" in render(rows.rows, footing=rows.footing)
    assert "anchor" in render(rows.rows, wide=True, footing=rows.footing)
    assert "[1000, 1000]" not in render(rows.rows, wide=True, footing=rows.footing)
    sweep = board([record(["a", "b"], [0, 10 + i % 7], gid=f"g{i}") for i in range(30)])
    a = by_bot(sweep.rows)["a"]
    assert a.points_low is None and a.elo_low is None  # a always scores 0 and always wins
    assert ("a", "points") in sweep.footing.flat
    notes = footnotes(sweep.footing, wide=True)
    assert "No interval for a's points: every resample gives the same value." in notes, notes
    assert any(n.startswith("No Elo interval or LOS for a, b: the results leave a gap open")
               for n in notes), notes
    for fmt in ("plain", "github", "html"):
        for wide in (False, True):
            text = render(sweep.rows, fmt, wide=wide, footing=sweep.footing)
            assert "± 0 " not in text and "[0.0, 0.0]" not in text


def test_a_bot_that_won_every_comparison_is_shown_without_an_interval() -> None:
    """a wins every game; b and c trade wins. a's Elo gets no interval (its gap to b and c has
    no upper bound) and a line says so; b and c keep theirs, centred on 1500."""
    games = [record(["a", "b", "c"], [0, 10 + i % 3, 12 - i % 5], gid=f"g{i}")
             for i in range(30)]
    rows = board(games)
    a, b, c = (by_bot(rows.rows)[x] for x in "abc")
    assert a.elo_low is None and a.elo_high is None and a.elo > 1500
    assert None not in (b.elo_low, b.elo_high, c.elo_low, c.elo_high)
    assert (b.elo + c.elo) / 2 == pytest.approx(1500, abs=0.1)
    assert rows.footing.unbounded == ("a",) and ("a", "Elo") not in rows.footing.flat
    for wide in (False, True):
        assert "No Elo interval or LOS for a: the results leave a gap open" in render(
            rows.rows, wide=wide, footing=rows.footing)
    assert a.los_next is None and c.los_next is not None  # a over c: a sweep, no LOS


def test_footnotes_sit_under_every_table_format_but_not_in_data() -> None:
    rows = board(duplicate_league(2))
    note = footnotes(rows.footing)[0]
    assert render(rows.rows, "plain", footing=rows.footing).endswith("\n" + note)
    for fmt in ("github", "markdown"):  # a blank line, or the note would join the table
        assert render(rows.rows, fmt, footing=rows.footing).endswith("|\n\n" + note)
    page = render(rows.rows, "html", footing=rows.footing)
    assert page.index("</table>") < page.index(f'<p class="note">{html.escape(note)}</p>')
    for fmt in ("csv", "json"):
        assert note not in render(rows.rows, fmt, footing=rows.footing)


def test_cli_leaderboard_wide_and_footnotes(tmp_path: Path) -> None:
    folder = tmp_path / "few"
    folder.mkdir()
    records = duplicate_league(2)
    (folder / "games.jsonl").write_text("".join(r.to_json() + "\n" for r in records), "utf-8")
    plain = runner.invoke(app, ["leaderboard", str(folder)])
    assert plain.exit_code == 0, plain.output
    assert plain.output.splitlines()[0].split()[:3] == ["rank", "bot", "Elo"]
    assert "mean rank" not in plain.output
    assert plain.output.splitlines()[-1].startswith("No intervals or LOS: 2 duplicate sets")
    wide = runner.invoke(app, ["leaderboard", str(folder), "--wide"])
    assert wide.exit_code == 0, wide.output
    assert "mean rank" in wide.output.splitlines()[0]
    assert wide.output.splitlines()[-1].startswith("No intervals or LOS: 2 duplicate sets")


RUN_CONFIG = """\
name: tiny
variant: indian13
isolation: inprocess
workers: 1
seed: 2
options: {players: 2}
bots:
  - {name: greedy, module: "bots.greedy:GreedyBot"}
  - {name: random, module: "bots.random_bot:RandomBot"}
format: {games: 2}
"""


def test_cli_run_prints_the_compact_table_or_the_wide_one(tmp_path: Path) -> None:
    path = tmp_path / "tiny.yaml"
    path.write_text(RUN_CONFIG + f"output: {tmp_path / 'out'}\n", "utf-8")
    compact = runner.invoke(app, ["run", str(path)])
    assert compact.exit_code == 0, compact.output
    lines = compact.output.splitlines()  # the first names the results folder
    assert max(len(line) for line in lines[1:]) <= 100
    assert lines[-1] == ("No intervals or LOS: 1 duplicate set (2 games); they need 5 sets, "
                         "10 games.")
    wide = runner.invoke(app, ["run", str(path), "--wide"])
    assert wide.exit_code == 0, wide.output
    assert "mean rank" in wide.output and "vs field low" not in wide.output


@pytest.mark.parametrize("fmt", ["github", "markdown"])
def test_a_pipe_in_a_name_stays_in_its_markdown_cell(fmt: str) -> None:
    """A ``|`` in a bot's name ended its cell: the row had a column too many."""
    records = [record(["a|b", "c"], [0, 10], gid="1"), record(["c", "a|b"], [5, 0], gid="2")]
    table = render(standings(records), fmt).splitlines()
    heads = table[0].count("|")
    rows = [line for line in table if "a\\|b" in line]
    assert rows and all(line.replace("\\|", "").count("|") == heads for line in rows)
    h2h = render_h2h(head_to_head(records), fmt)
    assert "a|b" not in h2h.replace("\\|", "") and h2h.count("a\\|b") == 2


@pytest.mark.parametrize("fmt", ["github", "markdown"])
def test_markup_in_a_name_is_shown_not_run_in_markdown(fmt: str) -> None:
    """A name was written into the Markdown tables raw: wherever they are rendered with
    HTML allowed (many course sites), ``<img onerror>`` ran, and ``[x](javascript:...)``
    was a link."""
    evil, link = "<img src=x onerror=alert(1)>", "[x](javascript:alert(1))"
    records = [record([evil, link], [0, 10], gid="1"), record([link, evil], [5, 0], gid="2")]
    for text in (render(standings(records), fmt), render_h2h(head_to_head(records), fmt)):
        assert "<img" not in text and "x](javascript" not in text
        assert "&lt;img src=x onerror=alert(1)&gt;" in text
        assert "\\[x\\](javascript:alert(1))" in text


def test_markdown_text_escapes_what_markdown_would_read_as_markup() -> None:
    assert markdown_text("a\\b `c` *d* <e> & [f]|g") == \
        "a\\\\b \\`c\\` \\*d\\* &lt;e&gt; &amp; \\[f\\]\\|g"
    assert markdown_text("search-easy v1.2_x") == "search-easy v1.2_x"  # names stay legible


def test_a_name_a_spreadsheet_would_run_is_quoted_in_csv() -> None:
    """OWASP's CSV injection: a cell starting with = + - @ is a formula to a spreadsheet."""
    evil = '=HYPERLINK("http://evil.example","x")'
    records = [record([evil, "-b", "c"], [0, 10, 20], gid="1")]
    rows = list(csv.reader(io.StringIO(render(standings(records), "csv"))))
    assert sorted(row[1] for row in rows[1:]) == ["'-b", "'" + evil, "c"]
    meetings = list(csv.reader(io.StringIO(render_h2h(head_to_head(records), "csv"))))
    assert {row[0] for row in meetings[1:]} == {"'-b", "'" + evil, "c"}


def test_a_bot_that_fails_every_play_is_named_broken() -> None:
    """Its draws succeed, so it faults on half of its decisions: that was not "more than
    half", and it went unnamed. A bot late now and then is not named."""
    def seat(bot: str, faults: int) -> SeatRecord:
        return SeatRecord(bot=bot, faults={**dict.fromkeys(FAULT_KINDS, 0), "crash": faults},
                          decisions=40, time_mean_ms=1.0, time_p95_ms=2.0, time_max_ms=3.0)
    game = record(["plays", "late", "fine"], [0, 5, 9])
    game = msgspec.structs.replace(game, seats=(seat("plays", 20), seat("late", 3),
                                                seat("fine", 0)))
    assert [(b.bot, b.faults, b.decisions) for b in faulty_bots([game])] == [("plays", 20, 40)]


def test_a_bot_that_forfeits_is_named_whatever_its_share_of_faults() -> None:
    """A forfeited seat is asked no more: 5 faults in a row of a long game stay under a
    fifth of its decisions, and a bot forfeiting most of its games went unnamed."""
    def seat(bot: str, faults: int, forfeit: bool) -> SeatRecord:
        return SeatRecord(bot=bot, faults={**dict.fromkeys(FAULT_KINDS, 0), "crash": faults},
                          decisions=40, time_mean_ms=1.0, time_p95_ms=2.0, time_max_ms=3.0,
                          forfeit=forfeit)
    game = msgspec.structs.replace(record(["quits", "fine"], [9, 0]),
                                   seats=(seat("quits", 5, True), seat("fine", 0, False)))
    assert [(b.bot, b.forfeits, b.games) for b in faulty_bots([game])] == [("quits", 1, 1)]


def forfeited(bots: list[str], totals: list[int], quitter: int, gid: str) -> GameRecord:
    """A game where seat ``quitter`` forfeited (COM-6): it ranks last whatever its total."""
    game = record(bots, totals, gid=gid)
    seats = tuple(msgspec.structs.replace(s, forfeit=i == quitter)
                  for i, s in enumerate(game.seats))
    ranks = places(totals, [i == quitter for i in range(len(bots))])
    return msgspec.structs.replace(game, seats=seats, ranks=ranks,
                                   termination=GameEnd.FORFEIT)


def test_a_seat_that_forfeits_loses_its_comparisons_whatever_its_total() -> None:
    """COM-6: a forfeited seat ranks last. The Elo, OpenSkill and head-to-head compared
    totals: a bot forfeiting every game (its total 0 when the game stopped) out-rated the
    bot that played them out; an SPRT of such a bot against random read -35 Elo."""
    games = [forfeited(["quits", "plays"], [0, 80], 0, f"a{i}") for i in range(10)] + \
            [forfeited(["plays", "quits"], [80, 0], 1, f"b{i}") for i in range(10)]
    rows = by_bot(standings(games))
    assert rows["plays"].elo > rows["quits"].elo
    assert rows["plays"].openskill > rows["quits"].openskill
    assert rows["plays"].wins == 20 and rows["quits"].wins == 0
    meetings = {(m.bot, m.opponent): m.score for m in head_to_head(games)}
    assert meetings[("plays", "quits")] == 20
    assert rows["quits"].mean_points == 0.0  # its points stay what it scored


def test_forfeits_are_a_column_and_a_line_under_every_table() -> None:
    """COM-6: a bot that forfeited most of its games showed only its faults (a forfeiting
    seat is asked no more) and the best points; a teacher sharing the leaderboard or the
    report could not see it had lost them by forfeit."""
    games = [forfeited(["quits", "plays"], [0, 80], 0, f"a{i}") for i in range(3)] + \
            [record(["plays", "quits"], [80, 10], gid=f"b{i}") for i in range(2)]
    result = board(games)
    rows = by_bot(result.rows)
    assert (rows["quits"].forfeits, rows["plays"].forfeits) == (3, 0)
    assert result.footing.forfeited == (("quits", 3, 5),)
    line = ("Forfeited games (COM-6: each a loss to every seat that did not forfeit): "
            "quits 3 of 5.")
    assert line in footnotes(result.footing)
    for fmt in ("plain", "github", "html"):
        assert html.escape(line) in render(result.rows, fmt, footing=result.footing), fmt
    wide = render(result.rows, "plain", wide=True, footing=result.footing)
    assert wide.splitlines()[0].split() == " ".join(TABLE_HEADERS).split()
    assert [r["forfeits"] for r in json.loads(render(result.rows, "json"))] == \
        [rows[r.bot].forfeits for r in result.rows]
    assert "forfeit" not in "".join(footnotes(board(games[3:]).footing))


def test_no_los_where_every_resample_gives_the_same_gap() -> None:
    """Two bots that tie every game: the Elo note said every resample gives the same
    value, and the LOS cell still read 50.0%."""
    records = [record(["a", "b"], [10, 10], gid=f"g{i}") for i in range(12)]
    rows = standings(records)
    assert [r.los_next for r in rows] == [None, None]
    assert rows[0].elo_low is None  # the interval's note, for the same reason


@pytest.mark.parametrize(("extra", "named"), [(["--wide"], "--wide"),
                                              (["--anchor", "a=1000"], "--anchor")])
def test_h2h_refuses_the_leaderboard_s_options(tmp_path: Path, extra: list[str],
                                               named: str) -> None:
    """They were accepted with --h2h and changed nothing."""
    result = runner.invoke(app, ["leaderboard", str(results_folder(tmp_path)), "--h2h",
                                 *extra])
    assert result.exit_code == 2, result.output
    assert result.stderr == (f"arena: error: --h2h with {named}: the head-to-head table has "
                             "no Elo or intervals; those options are for the leaderboard\n")


def test_every_bot_that_forfeited_is_named_and_one_game_is_one_game() -> None:
    """The forfeits line named three bots "and 2 more", and the compact table has no
    forfeits column to show the others; "1 duplicate set (1 games)" read as a typo."""
    games = [forfeited([f"q{i}", "plays"], [0, 80], 0, f"g{i}") for i in range(5)]
    line = footnotes(board(games).footing)[-1]
    assert line.endswith(": q0 1 of 1, q1 1 of 1, q2 1 of 1, q3 1 of 1, q4 1 of 1."), line
    one = record(["a", "b"], [0, 10], gid="g")
    assert footnotes(board([one]).footing)[0] == \
        "No intervals or LOS: 1 game; they need 5 games or more."
    in_a_set = msgspec.structs.replace(one, dup_set="s1")
    assert footnotes(board([in_a_set]).footing)[0] == \
        "No intervals or LOS: 1 duplicate set (1 game); they need 5 sets, 5 games."
