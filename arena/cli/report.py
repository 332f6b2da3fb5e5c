"""`arena report`: a tournament's results as one html file that opens offline."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import guarded
from arena.errors import counted


@guarded
def report(
    results: Annotated[Path, typer.Argument(metavar="RESULTS_DIR",
                                            help="A results folder (with games.jsonl).")],
    output: Annotated[Path | None, typer.Option(
        "-o", "--output", metavar="FILE", dir_okay=False,
        help="The html file to write (default: RESULTS_DIR/report.html).")] = None,
) -> None:
    """Write a tournament's report: leaderboard, plots and a replay of every game, in one
    html file that fetches nothing (styles, script, plots and games all inside it)."""
    from arena.report.page import write_report  # jinja2 and the plots: only for a report

    written = write_report(results, output)
    broken = f"; {written.broken} do not replay (listed in the report)" if written.broken \
        else ""
    games = counted(written.games, "game")
    typer.echo(f"{written.path}: {games}, {written.size / 1e6:.1f} MB{broken}")
