"""The leaderboard and the head-to-head table printed in any tabulate format, or as CSV or
JSON."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from tabulate import tabulate

from arena.errors import BadInput
from arena.ratings.leaderboard import (
    Meeting,
    Standing,
)

FORMATS = ("plain", "github", "markdown", "csv", "json", "html")
_TABULATE = {"plain": "simple", "github": "github", "markdown": "pipe", "html": "html"}



HEADERS = ["rank", "bot", "games", "wins", "win %", "mean points", "points low", "points high",
           "vs field", "vs field low", "vs field high", "mean rank", "Elo", "Elo low",
           "Elo high", "openskill", "faults", "LOS next %"]  # csv: one number per column
TABLE_HEADERS = ["rank", "bot", "Elo", "95% CI", "games", "wins", "points", "95% CI",
                 "vs field", "95% CI", "mean rank", "openskill", "faults", "LOS next"]


def render(rows: Sequence[Standing], fmt: str = "plain") -> str:
    """The leaderboard as text in one of :data:`FORMATS`."""
    _check_format(fmt)
    if fmt == "json":
        return json.dumps([asdict(r) for r in rows], indent=2)
    if fmt == "csv":
        return _csv(HEADERS, [list(asdict(r).values()) for r in rows])
    table = [[r.rank, r.bot, round(r.elo), _interval(r.elo_low, r.elo_high, 0), r.games,
              r.wins, r.mean_points, _interval(r.points_low, r.points_high, 1), r.vs_field,
              _interval(r.vs_field_low, r.vs_field_high, 1), r.mean_rank, r.openskill,
              r.faults, "" if r.los_next is None else f"{r.los_next:.1f}%"] for r in rows]
    return tabulate(table, TABLE_HEADERS, tablefmt=_TABULATE[fmt])


def _interval(low: float | None, high: float | None, digits: int) -> str:
    return "" if low is None or high is None else f"[{low:.{digits}f}, {high:.{digits}f}]"


def _check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise BadInput(f"--format {fmt!r}: expected one of {', '.join(FORMATS)}")


def _csv(headers: Sequence[str], table: Sequence[Sequence[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(headers)
    writer.writerows(table)
    return out.getvalue().rstrip("\n")


def render_h2h(meetings: Sequence[Meeting], fmt: str = "plain") -> str:
    """The head-to-head table: one line per pair for csv and json, else a matrix whose cell
    is the row bot's score against the column bot, out of their games."""
    _check_format(fmt)
    if fmt == "json":
        return json.dumps([asdict(m) for m in meetings], indent=2)
    if fmt == "csv":
        return _csv(["bot", "opponent", "score", "games"],
                    [[m.bot, m.opponent, m.score, m.games] for m in meetings])
    bots = list(dict.fromkeys(b for m in meetings for b in (m.bot, m.opponent)))
    cells = {(m.bot, m.opponent): f"{m.score:g}/{m.games}" for m in meetings}
    table = [[a, *(cells.get((a, b), "-" if a == b else "") for b in bots)] for a in bots]
    return tabulate(table, ["bot", *bots], tablefmt=_TABULATE[fmt], disable_numparse=True)
