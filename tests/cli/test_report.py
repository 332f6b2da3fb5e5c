"""`arena report`: one html file of a real tournament that fetches nothing, with every bot,
game, leaderboard row and plot in it, and replay data true to the records; and the
leaderboard's html format as a whole page."""

from __future__ import annotations

import base64
import gzip
import json
import re
import subprocess
import sys
import warnings
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from msgspec import to_builtins
from msgspec.structs import replace
from typer.testing import CliRunner

from arena.cards import Card
from arena.cli.app import app
from arena.ratings.leaderboard import board
from arena.records import GameRecord, read_games
from arena.replay import steps
from arena.tournament.results import stored_anchor, teams_of

runner = CliRunner()
PLOTS = ("elo", "h2h", "points", "faults", "times")


def tournament_config(name: str, variant: str, players: int, games: int, seed: int,
                      extra: str = "") -> str:
    """A round robin of the built-in bots, in process, on one worker."""
    bots = ["greedy: bots.greedy:GreedyBot", "random: bots.random_bot:RandomBot",
            "greedy-2: bots.greedy:GreedyBot"][:max(players, 2)]
    listed = "".join(f"  - name: {b.split(': ')[0]}\n    module: {b.split(': ')[1]}\n"
                     for b in bots)
    return (f"name: {name}\nvariant: {variant}\noptions:\n  players: {players}\n{extra}"
            f"bots:\n{listed}format:\n  games: {games}\n  duplicate: true\nseed: {seed}\n"
            "isolation: inprocess\nworkers: 1\n")


def played(root: Path, config: str) -> Path:
    """The results folder of a tournament played with `arena run`."""
    path = root / "config.yaml"
    path.write_text(config, "utf-8")
    done = runner.invoke(app, ["run", str(path), "--out", str(root / "results")])
    assert done.exit_code == 0, (done.stdout, done.stderr)
    (folder,) = (root / "results").iterdir()
    return folder


def reported(folder: Path, *args: str) -> str:
    """`arena report FOLDER`, which must succeed in one line; the page it wrote."""
    done = runner.invoke(app, ["report", str(folder), *args])
    assert done.exit_code == 0, (done.stdout, done.stderr, done.exception)
    assert len(done.stdout.splitlines()) == 1 and " games, " in done.stdout, done.stdout
    out = Path(args[args.index("-o") + 1]) if "-o" in args else folder / "report.html"
    return out.read_text("utf-8")


def replay_data(page: str) -> dict[str, Any]:
    """The viewer's data, unpacked here with the standard library alone."""
    found = re.search(r'<script type="application/octet-stream" id="replay-data"[^>]*>'
                      r"([A-Za-z0-9+/=\s]*)</script>", page)
    assert found, "no replay data in the page"
    data: dict[str, Any] = json.loads(gzip.decompress(base64.b64decode(found.group(1))))
    return data


class Tables(HTMLParser):
    """The cells of every <table> of a page, by the table's class: rows of (tag, text)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[tuple[str, str]]]] = {}
        self._table: list[list[tuple[str, str]]] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._table = self.tables.setdefault(dict(attrs).get("class") or "", [])
        elif tag == "tr" and self._table is not None:
            self._table.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._table is not None:
            self._table[-1].append((tag, "".join(self._cell).strip()))
            self._cell = None
        elif tag == "table":
            self._table = None


def tables(page: str) -> dict[str, list[list[tuple[str, str]]]]:
    parser = Tables()
    parser.feed(page)
    return parser.tables


def hands_by_step(game: dict[str, Any]) -> list[list[list[int]] | None]:
    """The hands the viewer shows at each step, rebuilt from its packed steps as the
    viewer's keys say (the docstring of arena/report/replays.py); None at a round's end."""
    shown: list[list[list[int]] | None] = []
    hands: list[list[int]] = []
    for entry in game["steps"]:
        if "s" not in entry:
            hands = [list(h) for h in entry["H"]]
        elif "r" not in entry:
            changes = [*entry.get("h", [])]
            gained = entry.get("+", [entry["d"]] if "d" in entry else [])
            changes.append([entry["s"], gained, entry.get("-", [])])
            for seat, add, remove in changes:
                for code in remove:
                    hands[seat].remove(code)
                hands[seat] = sorted(hands[seat] + add)
        shown.append(None if "r" in entry else [list(h) for h in hands])
    return shown


def codes(cards: tuple[Card, ...]) -> list[int]:
    return sorted(c.code for c in cards)


# ------------------------------------------------------------------ a small real tournament


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return played(tmp_path_factory.mktemp("tiny"),
                  tournament_config("tiny", "indian13", 2, 10, 11))


@pytest.fixture(scope="module")
def page(folder: Path) -> str:
    return reported(folder)


@pytest.fixture(scope="module")
def records(folder: Path) -> list[GameRecord]:
    return sorted(read_games(folder / "games.jsonl"), key=lambda r: r.id)


def test_the_report_names_the_tournament_every_bot_and_every_game(
        page: str, records: list[GameRecord]) -> None:
    assert "<title>tiny · Rummy Arena report</title>" in page
    assert records[0].variant in page and f"<dd>{len(records)}</dd>" in page
    for bot in ("greedy", "random"):
        assert f'<td class="bot">{bot}</td>' in page
    for record in records:
        assert f'{record.id}: {" v ".join(s.bot for s in record.seats)}</option>' in page
    assert "time of games.jsonl" in page and "carry no timestamps" in page


def test_the_report_holds_the_leaderboard_rows_with_their_intervals(
        folder: Path, page: str, records: list[GameRecord]) -> None:
    rows = board(records, anchor=stored_anchor(folder), teams=teams_of(records)).rows
    table = tables(page)["leaderboard"]
    header, *body = table
    names = [text for _, text in header]
    assert all(tag == "th" for tag, _ in header) and len(names) == len(set(names))
    assert "Elo 95% CI" in names and "points 95% CI" in names
    assert [[text for _, text in line][:3] for line in body] == \
        [[str(r.rank), r.bot, str(round(r.elo))] for r in rows]
    interval = names.index("Elo 95% CI")
    for line, row in zip(body, rows, strict=True):
        assert len(line) == len(names)
        if row.elo_low is not None:
            assert line[interval][1].startswith("[")


def test_the_report_inlines_every_plot_as_svg(page: str) -> None:
    for key in PLOTS:
        figure = re.search(rf'<figure class="plot" id="plot-{key}">(.*?)</figure>', page, re.S)
        assert figure, key
        assert "<svg " in figure.group(1) and "</svg>" in figure.group(1), key
        assert "<figcaption>" in figure.group(1), key
    assert page.count("<svg ") >= len(PLOTS)
    times = re.search(r'id="plot-times">.*?<figcaption>(.*?)</figcaption>', page, re.S)
    assert times and "over the bot" in times.group(1)


def test_the_report_fetches_nothing(page: str) -> None:
    for fetch in ('src="http', "src='http", 'href="http', "@import", "url(http", "url('http",
                  'url("http', "<link", "<iframe", "<img"):
        assert fetch not in page, fetch
    assert " src=" not in page
    assert [t for t in re.findall(r'href="([^"]*)"', page) if not t.startswith("#")] == []
    assert "<?xml" not in page and "<!DOCTYPE svg" not in page


def test_the_viewer_data_matches_the_records(page: str, records: list[GameRecord]) -> None:
    games = replay_data(page)["games"]
    assert [g["id"] for g in games] == [r.id for r in records]
    for game, record in zip(games, records, strict=True):
        assert game["bots"] == [s.bot for s in record.seats]
        assert "error" not in game
        deals = [entry for entry in game["steps"] if "s" not in entry]
        assert len(deals) == len(record.rounds)
        assert len(game["steps"]) == len(record.actions) + len(record.rounds)
        assert [e["a"] for e in game["steps"] if "s" in e] == \
            [a.partition(" ")[2] for a in record.actions]
        assert game["steps"][-1]["r"]["t"] == list(record.totals)
        assert game["totals"] == list(record.totals)


def test_the_viewer_data_rebuilds_every_hand_of_every_step(
        page: str, records: list[GameRecord]) -> None:
    game, record = replay_data(page)["games"][0], records[0]
    for shown, step in zip(hands_by_step(game), steps(record), strict=True):
        if shown is not None:
            assert shown == [codes(h) for h in step.after.hands]
        else:
            assert step.ended is not None


def test_a_draw_from_the_stock_keeps_its_card_from_the_other_seats(page: str) -> None:
    game = replay_data(page)["games"][0]
    stock = [e for e in game["steps"] if e.get("a") == "stock"]
    assert stock and all(e["w"] == 1 and "d" in e for e in stock)
    assert all(e.get("u", "draws from the stock") == "draws from the stock" for e in stock)


def test_a_game_of_several_rounds_with_melds(tmp_path: Path) -> None:
    folder = played(tmp_path, tournament_config("laying", "rummy51", 3, 3, 5,
                                                "  match: {rounds: 2}\n"))
    page = reported(folder, "-o", str(tmp_path / "laying.html"))
    records = sorted(read_games(folder / "games.jsonl"), key=lambda r: r.id)
    for game, record in zip(replay_data(page)["games"], records, strict=True):
        assert len(game["steps"]) == len(record.actions) + len(record.rounds)
        ends = [e["r"] for e in game["steps"] if "r" in e]
        assert [r["pen"] for r in ends] == [list(r.penalties) for r in record.rounds]
        assert ends[-1]["t"] == list(record.totals)
        for shown, step in zip(hands_by_step(game), steps(record), strict=True):
            assert shown is None or shown == [codes(h) for h in step.after.hands]
    assert any("m" in e and e["m"] for g in replay_data(page)["games"] for e in g["steps"])
    assert not (folder / "report.html").exists()


# ------------------------------------------------------------ untrusted text and bad records


def tampered(folder: Path, target: Path, edit: Any) -> Path:
    """A results folder of the same games, each record passed through ``edit`` (and written
    with its actions as a list, which every schema reads)."""
    target.mkdir()
    records = read_games(folder / "games.jsonl")
    (target / "games.jsonl").write_text(
        "".join(json.dumps(to_builtins(edit(i, r))) + "\n" for i, r in enumerate(records)),
        "utf-8")
    return target


def test_bot_names_and_errors_are_escaped_and_a_game_that_does_not_replay_is_listed(
        folder: Path, tmp_path: Path) -> None:
    hostile = "<!--<script><img src=x onerror=alert(1)>$x$"  # no '/': a config refuses it,
    # and so does a record

    def edit(i: int, record: GameRecord) -> GameRecord:
        seats = tuple(replace(s, bot=hostile if s.bot == "greedy" else s.bot)
                      for s in record.seats)
        actions = record.actions
        if i == 0:
            actions = (actions[0], actions[1].split(" ")[0] + " <b>bogus</b>", *actions[2:])
        return replace(record, seats=seats, actions=actions)

    bad = tampered(folder, tmp_path / "hostile", edit)
    done = runner.invoke(app, ["report", str(bad)])
    assert done.exit_code == 0, (done.stdout, done.stderr)
    assert "1 do not replay" in done.stdout
    page = (bad / "report.html").read_text("utf-8")
    assert "<img" not in page and "<b>bogus" not in page and "<!--<script>" not in page
    assert "&lt;!--&lt;script&gt;&lt;img src=x onerror=alert(1)&gt;$x$" in page
    assert "Games that do not replay" in page and "&lt;b&gt;bogus&lt;/b&gt;" in page
    games = replay_data(page)["games"]
    broken = [g for g in games if "error" in g]
    assert len(broken) == 1 and "bogus" in broken[0]["error"]
    assert any(hostile in g["bots"] for g in games)
    assert "(does not replay)</option>" in page
    assert "unknown (no config.yaml)" in page  # no config: what the bots run is unknown


def test_a_record_whose_totals_do_not_replay_is_listed_not_dropped(
        folder: Path, tmp_path: Path) -> None:
    def edit(i: int, record: GameRecord) -> GameRecord:
        if i != 2:
            return record
        *first, last = record.rounds
        last = replace(last, penalties=tuple(p + 1 for p in last.penalties))
        return replace(record, totals=tuple(t + 1 for t in record.totals),
                       rounds=(*first, last))

    bad = tampered(folder, tmp_path / "totals", edit)
    page = reported(bad)
    games = replay_data(page)["games"]
    broken = [g for g in games if "error" in g]
    assert len(broken) == 1 and "differ from the record" in broken[0]["error"]
    assert len(games) == len(read_games(bad / "games.jsonl"))
    assert f"<code>{broken[0]['id']}</code>: " in page


def test_a_folder_without_games_is_one_line_of_error(tmp_path: Path) -> None:
    done = runner.invoke(app, ["report", str(tmp_path)])
    assert done.exit_code == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [f"arena: error: {tmp_path}: no games.jsonl here"]
    (tmp_path / "games.jsonl").write_text("", "utf-8")
    done = runner.invoke(app, ["report", str(tmp_path)])
    assert done.exit_code == 2 and done.stderr.startswith("arena: error: ")
    assert "no games recorded yet" in done.stderr


def test_an_output_that_cannot_be_written_is_one_line_of_error(folder: Path,
                                                               tmp_path: Path) -> None:
    done = runner.invoke(app, ["report", str(folder), "-o", str(tmp_path / "no" / "r.html")])
    assert done.exit_code == 2 and len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith("arena: error: ") and "cannot write the report" in done.stderr


def test_a_file_that_is_no_report_is_not_overwritten(folder: Path, tmp_path: Path) -> None:
    """-o games.jsonl wrote the page over the tournament's games (exit 0); config.yaml and
    any file of the user's went the same way. An earlier report is replaced."""
    games = folder / "games.jsonl"
    before = games.read_bytes()
    mine = tmp_path / "notes.txt"
    mine.write_text("mine", "utf-8")
    for target in (games, folder / "config.yaml", mine):
        kept = target.read_bytes()
        done = runner.invoke(app, ["report", str(folder), "-o", str(target)])
        assert done.exit_code == 2 and len(done.stderr.splitlines()) == 1, done.stderr
        assert f"{target}: exists and is not a report of the arena" in done.stderr
        assert target.read_bytes() == kept
    assert games.read_bytes() == before
    again = tmp_path / "r.html"
    for _ in range(2):  # new, then an earlier report of its own
        assert runner.invoke(app, ["report", str(folder), "-o", str(again)]).exit_code == 0
    assert again.read_text("utf-8").startswith("<!DOCTYPE html>")


def test_matplotlib_is_imported_only_by_the_report() -> None:
    code = "import sys, arena.cli.app; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


# ------------------------------------------------------------- the leaderboard as html


@pytest.mark.parametrize("wide", [False, True])
def test_the_html_leaderboard_is_a_whole_page_with_one_header_a_column(
        folder: Path, records: list[GameRecord], wide: bool) -> None:
    done = runner.invoke(app, ["leaderboard", str(folder), "--format", "html",
                               *(["--wide"] if wide else [])])
    assert done.exit_code == 0, (done.stdout, done.stderr)
    text = done.stdout
    assert text.startswith("<!DOCTYPE html>\n") and text.rstrip().endswith("</html>")
    assert "<title>" in text and "<h1>" in text and "<style>" in text
    header, *body = tables(text)["leaderboard"]
    names = [name for _, name in header]
    assert all(tag == "th" for tag, _ in header)
    assert len(re.findall(r"<th[ >]", text)) == len(names) == len(set(names))
    assert "95% CI" not in names
    assert len(body) == len({s.bot for r in records for s in r.seats})
    assert all(len(line) == len(names) for line in body)
    assert ("mean rank" in names) == wide
    notes = re.findall(r'<p class="note">(.*?)</p>', text)
    assert notes and all("\n" not in n for n in notes)


def test_the_other_leaderboard_formats_are_unchanged(folder: Path) -> None:
    done = runner.invoke(app, ["leaderboard", str(folder), "--format", "github"])
    assert done.exit_code == 0 and done.stdout.startswith("| ")
    assert "<" not in done.stdout


def test_long_bot_names_leave_the_plots_room(tmp_path: Path) -> None:
    """A bot name may take 64 characters: on the axes it used to leave the plots no room
    (matplotlib warned that the layout collapsed, once a plot); the axes shorten it."""
    long = "x" * 64
    config = tournament_config("long", "indian13", 2, 2, 5).replace("name: greedy\n",
                                                                    f"name: {long}\n")
    folder = played(tmp_path, config)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a layout warning fails the report
        page = reported(folder)
    assert long in page and f"{'x' * 23}…" in page


def test_a_name_in_a_script_the_plots_font_lacks_warns_of_nothing(tmp_path: Path) -> None:
    """A CJK bot name made matplotlib warn, once a character, on the organiser's console;
    the plots' text is drawn by the browser, whose fonts have it."""
    config = tournament_config("cjk", "indian13", 2, 2, 5).replace("name: greedy\n",
                                                                   "name: 李小龙\n")
    folder = played(tmp_path, config)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        page = reported(folder)
    assert ">李小龙</text>" in page  # as text in the SVG


def test_a_command_bot_is_shown_with_its_command(tmp_path: Path) -> None:
    """config.yaml kept no command line: a command bot read "unknown (no config.yaml)",
    beside the config.yaml that was there."""
    from arena.report.summary import tournament
    from arena.tournament.config import load_config
    from arena.tournament.runner import store_identity
    path = tmp_path / "cmd.yaml"
    path.write_text(tournament_config("cmd", "indian13", 2, 2, 5).replace(
        "  - name: random\n    module: bots.random_bot:RandomBot\n",
        f"  - name: random\n    command: [{sys.executable}, -m, arena.seats.host, "
        "'bots.random_bot:RandomBot']\n"), "utf-8")
    folder = tmp_path / "results"
    store_identity(load_config(path), folder / "config.yaml")
    runs = {b.name: b.runs for b in tournament(folder, []).bots}
    assert runs == {"greedy": "bots.greedy:GreedyBot",
                    "random": f"{sys.executable} -m arena.seats.host bots.random_bot:RandomBot"}


def test_a_bot_in_several_seats_of_a_game_played_it_once(tmp_path: Path) -> None:
    """The Bots table counted seats: an SPRT's baseline at 4 seats showed three times its
    games, beside the leaderboard's count."""
    from arena import api
    from arena.report.summary import tournament
    game = api.play("indian13", ["greedy", "random", "random"], seed=1)
    games = {b.name: b.games for b in tournament(tmp_path, [game]).bots}
    assert games == {"greedy": 1, "random": 1}


def test_a_table_joker_is_shown_on_the_card_it_is_and_for_the_card_it_stands_for() -> None:
    """The viewer's combinations were sorted by card code while what each card stands for
    kept the table's order: a run 6C JK=7C 8C 9C showed 8C "as 7C" and a bare joker."""
    from arena.actions import Placed
    from arena.engine.rules import LayingRules
    from arena.report.replays import _melds
    from arena.variants.laying.table import build_meld
    run = build_meld([Placed.parse(t) for t in ["9C", "JK=7C", "6C", "8C"]],
                     LayingRules(prefix="MAR"), owner=1)
    card = Card.parse
    assert _melds([run]) == [[1, [card(t).code for t in ("6C", "JK", "8C", "9C")],
                              [None, card("7C").code, None, None]]]


def test_the_viewer_is_told_which_seats_forfeited() -> None:
    """The viewer said nothing of a forfeit: the seat that lost that way looked like the
    winner, on 0 points."""
    from conftest import bot_target

    from arena.referee import play_game
    from arena.report.replays import game_replay
    from arena.seats.bot import BotSpec
    from arena.variants import find_variant
    record = play_game(find_variant("indian13"), [BotSpec("greedy", "bots.greedy:GreedyBot"),
                       BotSpec("broken", bot_target("BrokenStart"))], seed=2,
                       options={"players": 2, "draw_cap": 4})
    packed = game_replay(record)
    assert packed["forfeit"] == [1] and packed["end"] == "forfeit", packed["end"]


BREAKS = '''
class Bot:
    def draw(self, view):
        raise RuntimeError("<b>no draw</b> today")

    def play(self, view):
        return "discard " + str(view.drawn or view.hand[-1])
'''


def test_what_a_broken_bot_did_is_told_in_the_report(tmp_path: Path, page: str) -> None:
    """A teacher asked what a student's broken bot did wrong found only a count of crashes
    in the report: the first message of each kind, as arena.log told it, is there now, and
    where the bot's own log is (escaped: a bot's words are not markup)."""
    (tmp_path / "breaks.py").write_text(BREAKS, "utf-8")
    config = tournament_config("broken", "indian13", 2, 2, 5).replace(
        "  - name: random\n    module: bots.random_bot:RandomBot\n",
        f"  - name: breaks\n    module: {tmp_path / 'breaks.py'}:Bot\n").replace(
        "players: 2\n", "players: 2\n  draw_cap: 6\n")
    shown = reported(played(tmp_path, config))
    section = shown[shown.index('<section id="faults">'):]
    section = section[:section.index("</section>")]
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", row)
            for row in re.findall(r"<tr>(.*?)</tr>", section) if "<td" in row]
    assert [row[:2] for row in rows] == [["breaks", "crash"]], section
    times, game, what, log = rows[0][2:]
    assert int(times) >= 1 and re.fullmatch(r"<code>t\d{4}-g\d{3}</code>", game)
    assert "RuntimeError: &lt;b&gt;no draw&lt;/b&gt; today" in what
    assert log == "<code>logs/breaks.stderr.log</code>"
    assert 'href="#faults"' in shown
    assert 'id="faults"' not in page and 'href="#faults"' not in page  # none: no section
