"""The words the rating commands take, checked before anything is computed: an anchor and
an output format. Kept apart from the statistics, so that a command that rates nothing
never loads numpy."""

from __future__ import annotations

import math

from arena.errors import BadInput, shown

Anchor = tuple[str, float]
MAX_ELO = 10_000  # an anchor beyond it is a typing error (and overflows the logistic)
FORMATS = ("plain", "github", "markdown", "csv", "json", "html")


def parse_anchor(text: str) -> Anchor:
    """``NAME=ELO`` from the command line."""
    name, sep, value = text.rpartition("=")
    try:
        elo = float(value)
    except ValueError:
        elo = math.nan
    if not sep or not name or not abs(elo) <= MAX_ELO:
        raise BadInput(f"--anchor {text!r}: expected NAME=ELO, ELO a number from "
                       f"-{MAX_ELO:,} to {MAX_ELO:,}, e.g. random=1000")
    return name, elo


def check_anchor(anchor: object) -> Anchor:
    """An anchor given in code, ``(name, elo)``: BadInput naming it otherwise (a string was
    taken letter by letter, NaN set every Elo to 0)."""
    if not isinstance(anchor, tuple) or len(anchor) != 2 or not isinstance(anchor[0], str) \
            or isinstance(anchor[1], bool) or not isinstance(anchor[1], int | float) \
            or not abs(anchor[1]) <= MAX_ELO:
        raise BadInput(f"anchor: expected (bot name, Elo), the Elo a number from "
                       f"-{MAX_ELO:,} to {MAX_ELO:,}, e.g. ('random', 1000), got {shown(anchor)}")
    return anchor[0], float(anchor[1])


def check_format(fmt: str) -> None:
    """A table format the renderer knows, or a one-line error naming them."""
    if fmt not in FORMATS:
        raise BadInput(f"--format {fmt!r}: expected one of {', '.join(FORMATS)}")
