"""The report as one html file: the template filled with the tournament, its leaderboard,
plots and replays, every style, script and plot inlined so that it opens offline."""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from arena.errors import BadInput
from arena.ratings.leaderboard import board, head_to_head
from arena.ratings.render import HTML_STYLE, html_leaderboard
from arena.records import GameRecord, games_file, read_games
from arena.report.faults import told_faults
from arena.report.plots import report_plots
from arena.report.replays import game_replay
from arena.report.summary import tournament
from arena.tournament.results import sides, stored_anchor, teams_of

REPORT_FILE = "report.html"
TEMPLATE = "report.html.j2"


@dataclass(frozen=True, slots=True)
class Written:
    """A report on disk: where, its size in bytes, its games and those that do not replay."""

    path: Path
    size: int
    games: int
    broken: int


def write_report(where: Path, out: Path | None = None) -> Written:
    """Read a results folder (or its games.jsonl) and write its report, by default into the
    folder as report.html."""
    games = games_file(where)
    records = sorted(read_games(games), key=lambda r: r.id)
    if not records:
        raise BadInput(f"{games}: no games recorded yet")
    text, broken = report_html(games.parent, records)
    path = out if out is not None else games.parent / REPORT_FILE
    _check_replaceable(path)
    data = text.encode("utf-8")
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise BadInput(f"{path}: cannot write the report ({exc.strerror or exc})") from exc
    return Written(path, len(data), len(records), broken)


REPORT_MARK = " · Rummy Arena report</title>".encode()  # in every report's head


def _check_replaceable(path: Path) -> None:
    """BadInput unless ``path`` is new or an earlier report: ``-o games.jsonl`` overwrote
    the tournament's games with the page, and any other file of the user's would go too."""
    try:
        with path.open("rb") as f:
            head = f.read(4096)
    except FileNotFoundError:
        return
    except OSError:
        return  # a folder, or unreadable: writing it says what is wrong
    if not (head.startswith(b"<!DOCTYPE html>") and REPORT_MARK in head):
        raise BadInput(f"{path}: exists and is not a report of the arena: expected a new "
                       f"file or an earlier report (remove it to write there)")


def report_html(folder: Path, records: Sequence[GameRecord]) -> tuple[str, int]:
    """The report page of a folder's records, and how many of its games do not replay."""
    teams = teams_of(records)
    rated = board(records, anchor=stored_anchor(folder), teams=teams)
    meetings = head_to_head(records, teams=teams)
    packer = Packer()
    packer.write('{"games":[')
    games, broken = [], []
    for n, record in enumerate(records):  # packed as they come: a league's replays held
        replay = game_replay(record)  # at once took a gigabyte (12,000 games)
        packer.write(("," if n else "") + as_json(replay))
        games.append((record.id, sides(replay["bots"], teams), "error" in replay))
        if "error" in replay:
            broken.append((record.id, replay["error"]))
    packer.write("]}")
    plots = report_plots(rated.rows, meetings, records)
    summary = tournament(folder, records)
    page = _environment().get_template(TEMPLATE).render(
        t=summary, folder=str(folder),
        faults=told_faults(folder, [b.name for b in summary.bots]),
        leaderboard=Markup(html_leaderboard(rated.rows, rated.footing, wide=True)),
        plots=[(p, Markup(p.svg)) for p in plots],
        games=games, broken=broken,
        style=Markup(HTML_STYLE + _static("report.css")),
        script=Markup(_static("viewer.js")), data=packer.done())
    return page, len(broken)


def as_json(value: Any) -> str:
    """Compact JSON with no ``<`` in it (escaped as in a script)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")


class Packer:
    """JSON gzipped and in base64, to embed in a <script> element, written a piece at a
    time: a tenth of the JSON's size, in an alphabet (letters, digits, + / =) that can never
    end the element (the JSON holds no ``<`` either: :func:`as_json`)."""

    def __init__(self) -> None:
        self.stream = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: gzip's header, mtime 0
        self.out: list[bytes] = []

    def write(self, text: str) -> None:
        self.out.append(self.stream.compress(text.encode("utf-8")))

    def done(self) -> str:
        self.out.append(self.stream.flush())
        return base64.b64encode(b"".join(self.out)).decode("ascii")


def _environment() -> Environment:
    """Templates from the package, every value escaped unless marked as markup."""
    return Environment(loader=PackageLoader("arena.report", "templates"), autoescape=True,
                       undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                       keep_trailing_newline=True)


def _static(name: str) -> str:
    """A style sheet or script shipped with the package, to inline in the page."""
    text = (resources.files("arena.report") / "static" / name).read_text(encoding="utf-8")
    if "</" + "script" in text.lower() or "</" + "style" in text.lower():
        raise AssertionError(f"{name} would end the element it is inlined in")
    return text
