"""The report's plots, drawn server-side by matplotlib as SVG to inline in the page.

matplotlib is imported only when a plot is drawn (``arena report``), with the Agg backend,
so the other commands start without it and no display is ever needed. Text stays text in
the SVG (``svg.fonttype: none``), never mathtext: a bot named ``$x$`` is shown as named.
"""

from __future__ import annotations

import io
import math
import os
import re
import warnings
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from arena.ratings.leaderboard import Meeting, Standing
from arena.records import FAULT_KINDS, GameRecord

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

WIDTH = 7.5  # inches: the page's column at 96 dpi
ROW = 0.42  # inches a bot takes in a plot of one row a bot
LABEL_CHARS = 24  # at most, of a bot's name on an axis
COLOURS = ("#2f5d9e", "#d1603d", "#3a9a6a", "#8a5bb5", "#c7a22b", "#4fa3c7", "#b5485f",
           "#6b7f2a", "#7a6a58", "#d07fb0")
TIMES = (("time_mean_ms", "mean"), ("time_p95_ms", "95th percentile"),
         ("time_max_ms", "slowest"))
STYLE: dict[RcKeyType, Any] = {"svg.fonttype": "none", "text.parse_math": False, "font.size": 9.5,
         "font.family": "sans-serif",
         "font.sans-serif": ["DejaVu Sans", "Liberation Sans", "Arial"],
         "axes.spines.top": False, "axes.spines.right": False, "axes.edgecolor": "#7d8796",
         "axes.labelcolor": "#1d2430", "xtick.color": "#394150", "ytick.color": "#394150",
         "axes.grid": True, "grid.color": "#e3e7ee", "grid.linewidth": 0.8,
         "axes.axisbelow": True}


@dataclass(frozen=True, slots=True)
class Plot:
    """One figure of the report: its anchor, title, inline SVG and the caption under it."""

    key: str
    title: str
    svg: str
    caption: str


def report_plots(rows: Sequence[Standing], meetings: Sequence[Meeting],
                 records: Sequence[GameRecord]) -> list[Plot]:
    """Every plot of the report, bots in leaderboard order."""
    bots = [r.bot for r in rows]
    return [elo_plot(rows), head_to_head_plot(meetings, bots), points_plot(records, bots),
            faults_plot(records, bots), times_plot(records, bots)]


def elo_plot(rows: Sequence[Standing]) -> Plot:
    """Each bot's Elo with its 95% interval: whether two bots differ at a glance."""
    with _figure("elo", len(rows)) as (fig, ax):
        for place, row in enumerate(rows):
            colour = _colour(place)
            if row.elo_low is not None and row.elo_high is not None:
                ax.plot([row.elo_low, row.elo_high], [place, place], color=colour,
                        linewidth=2.2, solid_capstyle="butt")
                for end in (row.elo_low, row.elo_high):
                    ax.plot([end, end], [place - 0.18, place + 0.18], color=colour,
                            linewidth=1.4)
            ax.plot([row.elo], [place], "o", color=colour, markersize=6.5)
            ax.annotate(f"{row.elo:.0f}", (row.elo, place), xytext=(0, 7),
                        textcoords="offset points", ha="center", fontsize=8.5,
                        color="#394150")
        _bot_axis(ax, [r.bot for r in rows])
        ax.set_xlabel("Elo (Bradley-Terry fit; mean 1500 unless anchored)")
        ax.grid(axis="y", visible=False)
        ax.margins(x=0.12, y=0.3 if len(rows) < 3 else 0.1)
        svg = _svg(fig, "Elo")
    flat = [r.bot for r in rows if r.elo_low is None]
    return Plot("elo", "Elo and its 95% interval", svg,
                "Dot: each bot's Elo; bar: its 95% bootstrap interval (resampling duplicate "
                "sets, or games without them)." +
                (f" No interval for {_names(flat)}: too few games, the anchor, or no spread."
                 if flat else ""))


def head_to_head_plot(meetings: Sequence[Meeting], bots: Sequence[str]) -> Plot:
    """The head-to-head matrix as a heat map: how each bot fared against each other one."""
    index = {b: i for i, b in enumerate(bots)}
    share = [[math.nan] * len(bots) for _ in bots]
    counts: dict[tuple[int, int], Meeting] = {}
    for m in meetings:
        if m.bot in index and m.opponent in index:
            share[index[m.bot]][index[m.opponent]] = m.score / m.games if m.games else math.nan
            counts[index[m.bot], index[m.opponent]] = m
    side = max(3.2, min(WIDTH, 1.6 + 0.75 * len(bots)))
    with _figure("h2h", 0, size=(side + 1.4, side)) as (fig, ax):
        grid = np.ma.masked_invalid(np.array(share, dtype=float))
        from matplotlib import colormaps
        shades = colormaps["RdBu"].resampled(20)  # steps of 5%: a colour bar of 20 boxes
        mesh = ax.pcolormesh(grid, cmap=shades, vmin=0, vmax=1, edgecolors="white",
                             linewidth=1.5)
        ax.set_xticks([i + 0.5 for i in range(len(bots))], labels=tick_labels(bots), rotation=30,
                      ha="right")
        ax.set_yticks([i + 0.5 for i in range(len(bots))], labels=tick_labels(bots))
        ax.invert_yaxis()
        ax.set_aspect("equal")
        ax.grid(visible=False)
        ax.tick_params(length=0)
        for spine in ax.spines.values():
            spine.set_visible(False)
        if len(bots) <= 12:
            for (row, col), m in counts.items():
                value = m.score / m.games
                ax.text(col + 0.5, row + 0.5, f"{value:.0%}\n{m.score:g}/{m.games}",
                        ha="center", va="center", fontsize=8,
                        color="white" if abs(value - 0.5) > 0.3 else "#1d2430")
        ax.set_xlabel("opponent")
        bar = fig.colorbar(mesh, ax=ax, shrink=0.8)
        if bar.solids is not None:
            bar.solids.set_rasterized(False)  # vector, as the rest: no image inside the SVG
        bar.set_label("share of comparisons won (ties half)")
        svg = _svg(fig, "Head to head")
    return Plot("h2h", "Head to head", svg,
                "Row bot against column bot: the share of their pairwise comparisons the row "
                "bot won (the lower total wins; ties count half), with the score out of the "
                "comparisons. Blue: the row bot did better; red: worse; blank: never met.")


def points_plot(records: Sequence[GameRecord], bots: Sequence[str]) -> Plot:
    """Penalty points per game per bot, as box plots: spread, not only the mean."""
    points: dict[str, list[int]] = {b: [] for b in bots}
    for record in records:
        for seat, total in zip(record.seats, record.totals, strict=True):
            points.setdefault(seat.bot, []).append(total)
    with _figure("points", len(bots)) as (fig, ax):
        _boxes(ax, [points[b] for b in bots])
        _bot_axis(ax, bots)
        ax.set_xlabel("penalty points in a game (lower is better)")
        svg = _svg(fig, "Points per game")
    return Plot("points", "Points per game", svg,
                "The distribution over games of each bot's game total: box from the first to "
                "the third quartile, line at the median, diamond at the mean, whiskers to "
                "1.5 times the box, dots beyond.")


def faults_plot(records: Sequence[GameRecord], bots: Sequence[str]) -> Plot:
    """Faults per bot and kind, stacked: a broken bot shows as one, not as a weak one."""
    counts: dict[str, Counter[str]] = {b: Counter() for b in bots}
    for record in records:
        for seat in record.seats:
            counts.setdefault(seat.bot, Counter()).update(seat.faults)
    total = sum(c.total() for c in counts.values())
    with _figure("faults", len(bots)) as (fig, ax):
        left = [0] * len(bots)
        for k, kind in enumerate(FAULT_KINDS):
            values = [counts[b][kind] for b in bots]
            ax.barh(range(len(bots)), values, left=left, height=0.55, label=str(kind),
                    color=COLOURS[(k + 1) % len(COLOURS)])
            left = [a + v for a, v in zip(left, values, strict=True)]
        _bot_axis(ax, bots)
        ax.set_xlabel("faults (sum over games)")
        ax.grid(axis="y", visible=False)
        if total:
            ax.legend(loc="lower right", frameon=False, ncols=len(FAULT_KINDS), fontsize=8.5)
        else:
            ax.set_xlim(0, 1)
            ax.set_xticks([0])
            ax.text(0.5, (len(bots) - 1) / 2, "no faults in any game", ha="center",
                    va="center", color="#5b6575")
        svg = _svg(fig, "Faults")
    kinds = ", ".join(map(str, FAULT_KINDS))
    return Plot("faults", "Faults", svg,
                f"Faults per bot, by kind ({kinds}), summed over every game: {total} in all. "
                "Each fault's safe action was played for the bot.")


def times_plot(records: Sequence[GameRecord], bots: Sequence[str]) -> Plot:
    """Decision times per bot: the distribution over games of each game's mean, 95th
    percentile and slowest decision, the three figures a record keeps per seat."""
    values: dict[str, dict[str, list[float]]] = {b: {f: [] for f, _ in TIMES} for b in bots}
    for record in records:
        for seat in record.seats:
            if seat.decisions:
                for field, _ in TIMES:
                    values.setdefault(seat.bot, {f: [] for f, _ in TIMES})[field].append(
                        max(getattr(seat, field), 1e-3))
    rows = max(len(bots), 1)
    with _figure("times", rows, size=(WIDTH, 1.3 + ROW * rows), panels=len(TIMES)) as \
            (fig, _):
        from matplotlib.ticker import FuncFormatter, NullFormatter
        for panel, (ax, (field, label)) in enumerate(zip(fig.axes, TIMES, strict=True)):
            _boxes(ax, [values[b][field] for b in bots])
            ax.set_xscale("log")
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_title(f"{label} (ms)", fontsize=9.5)
            if panel == 0:
                _bot_axis(ax, bots)
            else:
                ax.tick_params(axis="y", length=0, labelleft=False)
        svg = _svg(fig, "Decision times")
    return Plot("times", "Decision times", svg,
                "Records keep three decision-time figures per seat and game (the mean, the "
                "95th percentile and the slowest decision, in milliseconds, as the referee "
                "measured them); each box is the distribution of one of them over the bot's "
                "games, on a log scale. Seats that made no decision are left out.")


def _boxes(ax: Axes, data: Sequence[Sequence[float]]) -> None:
    """Horizontal box plots, one a bot in leaderboard order, with the mean marked."""
    shown = [list(d) if d else [math.nan] for d in data]
    parts = ax.boxplot(shown, positions=range(len(shown)), orientation="horizontal",
                       widths=0.55, patch_artist=True, showmeans=True, manage_ticks=False,
                       meanprops={"marker": "D", "markerfacecolor": "white",
                                  "markeredgecolor": "#1d2430", "markersize": 4.5},
                       medianprops={"color": "#1d2430", "linewidth": 1.4},
                       flierprops={"marker": "o", "markersize": 2.5, "alpha": 0.45,
                                   "markeredgewidth": 0})
    for place, box in enumerate(parts["boxes"]):
        box.set_facecolor(_colour(place))
        box.set_alpha(0.75)
        box.set_edgecolor("#394150")
    for place, flier in enumerate(parts["fliers"]):
        flier.set_markerfacecolor(_colour(place))
    ax.grid(axis="y", visible=False)


def _bot_axis(ax: Axes, bots: Sequence[str]) -> None:
    """Bots down the y axis, the leaderboard's first at the top."""
    ax.set_yticks(range(len(bots)), labels=tick_labels(bots))
    ax.set_ylim(len(bots) - 0.5, -0.5)
    ax.tick_params(axis="y", length=0)


def tick_labels(bots: Sequence[str]) -> list[str]:
    """Bot names short enough for an axis: a long one (a name may take 64 characters) left
    the plots no room at all (the table beside them has the whole name).

    >>> tick_labels(["greedy", "x" * 40])
    ['greedy', 'xxxxxxxxxxxxxxxxxxxxxxx…']
    """
    return [b if len(b) <= LABEL_CHARS else b[:LABEL_CHARS - 1] + "…" for b in bots]


def _colour(place: int) -> str:
    return COLOURS[place % len(COLOURS)]


def _names(bots: Sequence[str]) -> str:
    return ", ".join(bots[:3]) + (f" and {len(bots) - 3} more" if len(bots) > 3 else "")


@contextmanager
def _figure(key: str, rows: int, *, size: tuple[float, float] | None = None,
            panels: int = 1) -> Iterator[tuple[Figure, Axes]]:
    """A figure of the report's style (one row a bot unless ``size`` says otherwise), its
    SVG ids salted with ``key`` so that several inline in one page never share an id."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    style: dict[RcKeyType, Any] = {**STYLE, "svg.hashsalt": f"arena-{key}"}
    with matplotlib.rc_context(style):
        fig = Figure(figsize=size or (WIDTH, 1.1 + ROW * max(rows, 1)),
                     layout="constrained")
        axes = fig.subplots(1, panels, sharey=panels > 1, squeeze=False)[0]
        yield fig, axes[0]


_PROLOGUE = re.compile(r"\A.*?(?=<svg\b)", re.S)
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
_ID = re.compile(r'\sid="([^"]+)"')
_REFERENCE = re.compile(r'(?:url\(#|href="#)([^")]+)')


def _svg(fig: Figure, title: str) -> str:
    """The figure as an SVG element to inline in html: no XML prologue or doctype (whose
    DTD address a reader might fetch), no metadata, and only the ids something refers to."""
    out = io.StringIO()
    with warnings.catch_warnings():  # the text stays text, drawn by the browser's fonts: a
        # name in a script matplotlib's font lacks (CJK) is shown, not worth a warning
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
    text = _METADATA.sub("", _PROLOGUE.sub("", out.getvalue(), count=1))
    used = set(_REFERENCE.findall(text))
    text = _ID.sub(lambda m: m.group(0) if m.group(1) in used else "", text)
    return text.replace("<svg ", f'<svg role="img" aria-label="{title}" ', 1).strip()
