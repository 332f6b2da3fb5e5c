"""The leaderboard and the head-to-head table printed in any tabulate format, or as CSV or
JSON. The default table fits a 100-column terminal; ``wide`` gives every column. Under a
table, one line each for what a reader must know to trust it (:func:`footnotes`). As html
the leaderboard is a whole page (:func:`html_page`), its table the fragment the tournament
report shows too (:func:`html_leaderboard`)."""

from __future__ import annotations

import csv
import html
import io
import json
from collections.abc import Sequence
from dataclasses import asdict, replace
from typing import Any

from tabulate import tabulate

from arena.errors import counted
from arena.ratings.bradley_terry import MIN_UNITS
from arena.ratings.duplicate import DuplicateGain
from arena.ratings.leaderboard import (
    Footing,
    Meeting,
    Standing,
)
from arena.ratings.terms import check_format

_TABULATE = {"plain": "simple", "github": "github", "markdown": "pipe", "html": "html"}

# csv: one number per column
HEADERS = ["rank", "bot", "games", "wins", "win %", "mean points", "points low", "points high",
           "vs field", "vs field low", "vs field high", "mean rank", "Elo", "Elo low",
           "Elo high", "openskill", "faults", "forfeits", "LOS next %"]
# --wide: every column (forfeits where a bot forfeited), each interval named after its own
TABLE_HEADERS = ["rank", "bot", "Elo", "Elo 95% CI", "games", "wins", "win %", "points",
                 "points 95% CI", "vs field", "vs field 95% CI", "mean rank", "openskill",
                 "faults", "forfeits", "LOS next"]
COMPACT_HEADERS = ["rank", "bot", "Elo ± 95%", "games", "win %", "points", "vs field ± 95%",
                   "openskill", "faults", "LOS next"]
ANCHOR = "anchor"  # the Elo interval cell of the bot the scale is fixed to


def render(rows: Sequence[Standing], fmt: str = "plain", *, wide: bool = False,
           footing: Footing | None = None) -> str:
    """The leaderboard as text in one of :data:`arena.ratings.terms.FORMATS`: every column
    with ``wide`` (csv and json always), and for a table the footnotes of its ``footing``
    under it."""
    check_format(fmt)
    if fmt == "json":
        return json.dumps([asdict(r) for r in rows], indent=2)
    if fmt == "csv":
        return _csv(HEADERS, [[_cell(v) for v in asdict(r).values()] for r in rows])
    if fmt == "html":
        return html_page(rows, footing, wide=wide)
    rows = [replace(r, bot=_name(r.bot, fmt)) for r in rows]
    anchor = None if footing is None or footing.anchor is None else _name(footing.anchor, fmt)
    if wide:
        headers, table = _wide(rows, anchor)
        text = tabulate(table, headers, tablefmt=_TABULATE[fmt], disable_numparse=True,
                        colalign=["left" if h == "bot" else "right" for h in headers])
    else:
        table = _compact(rows, anchor)
        align = ["left" if h == "bot" else "right" for h in COMPACT_HEADERS]
        text = _columns(COMPACT_HEADERS, table, align) if fmt == "plain" else \
            tabulate(table, COMPACT_HEADERS, tablefmt=_TABULATE[fmt], disable_numparse=True,
                     colalign=align)
    return _with_notes(text, [] if footing is None else footnotes(footing, wide=wide), fmt)


def _columns(headers: Sequence[str], table: Sequence[Sequence[str]],
             align: Sequence[str]) -> str:
    """tabulate's simple layout without its two spaces of padding around each header,
    which would cost the compact table 20 columns of a terminal."""
    widths = [max([len(h), *(len(row[c]) for row in table)]) for c, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(cell.ljust(w) if a == "left" else cell.rjust(w)
                         for cell, w, a in zip(cells, widths, align, strict=True)).rstrip()
    return "\n".join([line(headers), line(["-" * w for w in widths]), *map(line, table)])


def _wide(rows: Sequence[Standing], anchor: str | None) -> tuple[list[str], list[list[Any]]]:
    """Every column, each interval in its own cell (the table before the compact one); the
    forfeits column only where a bot forfeited (a line under the table names them too).
    Numbers keep their digits as text: read back as numbers, 60.0 printed as 60 beside 66.7."""
    table = [[str(r.rank), r.bot, f"{r.elo:.0f}",
              ANCHOR if r.bot == anchor else _interval(r.elo_low, r.elo_high, 0), str(r.games),
              f"{r.wins:.2f}", f"{r.win_pct:.1f}", f"{r.mean_points:.2f}",
              _interval(r.points_low, r.points_high, 1), f"{r.vs_field:.2f}",
              _interval(r.vs_field_low, r.vs_field_high, 1), f"{r.mean_rank:.2f}",
              f"{r.openskill:.2f}", str(r.faults), str(r.forfeits), _percent(r.los_next)]
             for r in rows]
    if any(r.forfeits for r in rows):
        return TABLE_HEADERS, table
    at = TABLE_HEADERS.index("forfeits")
    return TABLE_HEADERS[:at] + TABLE_HEADERS[at + 1:], [row[:at] + row[at + 1:] for row in table]


def _compact(rows: Sequence[Standing], anchor: str | None) -> list[list[str]]:
    """The columns that decide a ranking, each symmetric interval as a half-width."""
    return [[str(r.rank), r.bot,
             f"{r.elo:.0f} ({ANCHOR})" if r.bot == anchor else _plus_minus(r.elo, r.elo_low,
                                                                             r.elo_high, 0),
             str(r.games), f"{r.win_pct:.1f}", f"{r.mean_points:.1f}",
             _plus_minus(r.vs_field, r.vs_field_low, r.vs_field_high, 1),
             f"{r.openskill:.2f}", str(r.faults), _percent(r.los_next)] for r in rows]


def _percent(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}%"


def _plus_minus(value: float, low: float | None, high: float | None, digits: int) -> str:
    """``value ± half`` when the interval is centred on the value (Elo and vs field are, up
    to the rounding of their ends), else ``value [low, high]``."""
    shown = f"{value:.{digits}f}"
    if low is None or high is None:
        return shown
    if abs((high - value) - (value - low)) > 0.5 * 10 ** -digits:
        return f"{shown} {_interval(low, high, digits)}"
    return f"{shown} ± {_nonzero((high - low) / 2, digits)}"


def _nonzero(width: float, digits: int) -> str:
    """A positive width with enough digits not to print as zero."""
    for more in range(4):
        text = f"{width:.{digits + more}f}"
        if float(text) > 0:
            return text
    return f"{width:.2g}"


def _interval(low: float | None, high: float | None, digits: int) -> str:
    """``[low, high]``, with more digits where the ends would print alike."""
    if low is None or high is None:
        return ""
    for more in range(4):
        a, b = f"{low:.{digits + more}f}", f"{high:.{digits + more}f}"
        if a != b:
            return f"[{a}, {b}]"
    return f"[{low:g}, {high:g}]"


def footnotes(footing: Footing, *, wide: bool = False) -> list[str]:
    """One line for each thing the table cannot show: too few sets for intervals (and the
    games it would take), intervals with no spread, and what the duplicate deals saved."""
    lines = []
    if footing.games and not footing.has_intervals:
        lines.append(_too_few(footing))
    flat = [f"{bot}'s {column}" for bot, column in footing.flat
            if wide or column in _COMPACT_INTERVALS]
    if flat:
        lines.append(f"No interval for {_some(flat)}: every resample gives the same value.")
    if footing.level:
        pairs = [f"{a} over {b}" for a, b in footing.level]
        lines.append(f"No LOS for {_some(pairs)}: every resample gives the same Elo gap.")
    if footing.unbounded:
        lines.append(f"No Elo interval or LOS for {_some(list(footing.unbounded))}: the "
                     f"results leave a gap open (one side won every comparison, or they never "
                     f"met), so the Elo there rests on the virtual tie.")
    if footing.forfeited:
        lines.append(_forfeits(footing.forfeited))
    if footing.gain is not None:
        lines.append(_gain(footing.gain))
    return lines


_COMPACT_INTERVALS = ("Elo", "vs field")


def _some(names: Sequence[str]) -> str:
    """Up to three names, and how many more."""
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _too_few(footing: Footing) -> str:
    """Why the interval cells are empty, and how many games would fill them."""
    if not footing.sets:
        return (f"No intervals or LOS: {counted(footing.games, 'game')}; they need "
                f"{MIN_UNITS} games or more.")
    about = "about " if footing.uneven else ""  # a mean of whole sets can be whole
    return (f"No intervals or LOS: {counted(footing.units, 'duplicate set')} "
            f"({counted(footing.games, 'game')}); they need {MIN_UNITS} sets, "
            f"{about}{footing.games_needed} games.")


def _forfeits(forfeited: Sequence[tuple[str, int, int]]) -> str:
    """Who forfeited games: the faults column alone hid a bot that lost most of its games
    that way (a forfeiting seat is asked no more, so its faults stay few)."""
    shown = [f"{bot} {n} of {games}" for bot, n, games in forfeited]  # every one: the
    # compact table has no forfeits column to show the rest
    return (f"Forfeited games (COM-6: each a loss to every seat that did not forfeit): "
            f"{', '.join(shown)}.")


def _gain(gain: DuplicateGain) -> str:
    """The variance ratio of the duplicate deals as a share of independent deals'."""
    share = 100 * gain.ratio
    text = f"{share:.0f}%" if share >= 10 or share == 0 else f"{share:.2g}%"
    return (f"Duplicate deals: the variance of bots' point differences is {text} of "
            f"independent deals' ({counted(gain.sets, 'set')}).")


def _with_notes(table: str, notes: Sequence[str], fmt: str) -> str:
    """The table with its footnotes: plain lines, or a paragraph after a blank line for the
    markup formats (a line right under a pipe table would join it)."""
    if not notes:
        return table
    gap = [""] if fmt != "plain" else []
    shown = [markdown_text(n) for n in notes] if fmt in MARKDOWN else notes  # names in them
    return "\n".join([table, *gap, *shown])


# The html page's styles; the report opens its own with them, for the same table
HTML_STYLE = """\
:root { --ink: #1d2430; --muted: #5b6575; --line: #d9dee7; --paper: #ffffff;
        --band: #f4f6fa; --accent: #2f5d9e; }
body { margin: 0; background: var(--band); color: var(--ink);
       font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans",
             "DejaVu Sans", sans-serif; }
main { max-width: 76rem; margin: 0 auto; padding: 1.5rem 1.25rem 3rem; }
h1 { font-size: 1.75rem; margin: 0 0 .25rem; }
h2 { font-size: 1.3rem; margin: 2.25rem 0 .75rem; padding-bottom: .25rem;
     border-bottom: 2px solid var(--line); }
.lead { color: var(--muted); margin: 0 0 1rem; }
.table-wrap { overflow-x: auto; background: var(--paper); border: 1px solid var(--line);
              border-radius: 6px; }
table.leaderboard { border-collapse: collapse; width: 100%; font-size: .95rem;
                    font-variant-numeric: tabular-nums; }
table.leaderboard th, table.leaderboard td { padding: .4rem .5rem; white-space: nowrap;
                                             border-bottom: 1px solid var(--line); }
table.leaderboard thead th { background: var(--band); font-weight: 600; text-align: right;
                             vertical-align: bottom; white-space: normal; line-height: 1.25; }
table.leaderboard td { text-align: right; }
table.leaderboard .bot { text-align: left; font-weight: 600; }
table.leaderboard tbody tr:nth-child(even) { background: #fafbfd; }
table.leaderboard tbody tr:last-child td { border-bottom: none; }
p.note { color: var(--muted); font-size: .92rem; margin: .6rem 0 0; }
"""


_BOT_CLASS = ' class="bot"'
_COLUMN = ' scope="col"'


def html_leaderboard(rows: Sequence[Standing], footing: Footing | None = None, *,
                     wide: bool = False) -> str:
    """The leaderboard as an html table, one header a column, and its footnotes as
    paragraphs: the one markup both the html page and the tournament report show."""
    anchor = footing.anchor if footing is not None else None
    headers, wide_table = _wide(rows, anchor) if wide else (COMPACT_HEADERS, [])
    table = [[str(cell) for cell in row] for row in wide_table] if wide else \
        _compact(rows, anchor)
    notes = [] if footing is None else footnotes(footing, wide=wide)
    return "\n".join([_html_table(headers, table),
                      *(f'<p class="note">{html.escape(n)}</p>' for n in notes)])


def html_page(rows: Sequence[Standing], footing: Footing | None = None, *,
              wide: bool = False) -> str:
    """The leaderboard as a standalone html page: a file to open or mail, styled as the
    report's leaderboard, fetching nothing."""
    return _page("Leaderboard", "Best Elo first; points are penalty points, lower is better.",
                 html_leaderboard(rows, footing, wide=wide))


def _page(title: str, lead: str, body: str) -> str:
    """A standalone html page around ``body``: every html table the CLI prints is a file
    to open as it is, in the report's styles."""
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{title}</title>", f"<style>\n{HTML_STYLE}</style>", "</head>",
        "<body>", "<main>", f"<h1>{title}</h1>", f'<p class="lead">{lead}</p>',
        body, "</main>", "</body>", "</html>"])


def _html_table(headers: Sequence[str], table: Sequence[Sequence[str]]) -> str:
    """A table in the leaderboard's markup, one header a column, the "bot" column's cells
    set as names."""
    def cells(tag: str, values: Sequence[str]) -> str:
        return "".join(f"<{tag}{_BOT_CLASS if h == 'bot' else ''}"
                       f"{_COLUMN if tag == 'th' else ''}>{html.escape(v)}</{tag}>"
                       for h, v in zip(headers, values, strict=True))
    body = "\n".join(f"<tr>{cells('td', row)}</tr>" for row in table)
    return (f'<div class="table-wrap"><table class="leaderboard">\n'
            f"<thead><tr>{cells('th', headers)}</tr></thead>\n"
            f"<tbody>\n{body}\n</tbody>\n</table></div>")


def _name(bot: str, fmt: str) -> str:
    """A bot's name in a text table, as itself in the Markdown formats."""
    return markdown_text(bot) if fmt in MARKDOWN else bot


MARKDOWN = ("github", "markdown")
_MARKUP = str.maketrans({c: "\\" + c for c in "\\`[]|*"} | {"<": "&lt;", ">": "&gt;",
                                                              "&": "&amp;"})


def markdown_text(text: str) -> str:
    """Text that Markdown shows as it is: a name ``<img src=x onerror=...>`` was live HTML
    wherever the Markdown is rendered with HTML allowed, and ``[x](javascript:...)`` a
    link; a ``|`` would end a table's cell."""
    return text.translate(_MARKUP)


def _cell(value: Any) -> Any:
    """A CSV cell a spreadsheet does not run: text starting with ``= + - @`` (or a tab or
    CR) is a formula to Excel and LibreOffice, so it gets a leading ``'`` (OWASP's advice
    on CSV injection); numbers are left alone."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def _csv(headers: Sequence[str], table: Sequence[Sequence[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(headers)
    writer.writerows(table)
    return out.getvalue().rstrip("\n")


def render_h2h(meetings: Sequence[Meeting], fmt: str = "plain") -> str:
    """The head-to-head table: one line per pair for csv and json, else a matrix whose cell
    is the row bot's score against the column bot, out of their games."""
    check_format(fmt)
    if fmt == "json":
        return json.dumps([asdict(m) for m in meetings], indent=2)
    if fmt == "csv":
        return _csv(["bot", "opponent", "score", "games"],
                    [[_cell(m.bot), _cell(m.opponent), m.score, m.games] for m in meetings])
    meetings = [replace(m, bot=_name(m.bot, fmt), opponent=_name(m.opponent, fmt))
                for m in meetings]
    bots = list(dict.fromkeys(b for m in meetings for b in (m.bot, m.opponent)))
    cells = {(m.bot, m.opponent): f"{m.score:g}/{m.games}" for m in meetings}
    table = [[a, *(cells.get((a, b), "-" if a == b else "") for b in bots)] for a in bots]
    if fmt == "html":
        return _page("Head to head", "Each cell is the row bot's score against the column "
                     "bot (comparisons won, ties as halves) out of their comparisons: one "
                     "per game they met in, one per pair of their seats where a bot held "
                     "several.",
                     _html_table(["bot", *bots], table))
    return tabulate(table, ["bot", *bots], tablefmt=_TABULATE[fmt], disable_numparse=True)
