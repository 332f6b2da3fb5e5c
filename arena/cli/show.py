"""Cards and tables for a person at a terminal: suits in colour when the output is a
terminal (plain text otherwise, or with NO_COLOR), hands sorted and grouped by suit."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.console import Console
from rich.markup import escape

from arena.cards import Card
from arena.engine.view import RoundSummary, TableMeld
from arena.replay import Step, Table

SUIT_STYLE = ("", "red", "red", "")  # S H D C: hearts and diamonds red, as on the cards
JOKER_STYLE = "bold magenta"

WHY_ROUNDS_END = {  # a person (and a replay) is told why, in words: "(last_player)" hid that
    # a declaration had been invalid and eliminated its declarer
    "declaration": "a valid declaration, IND-17",
    "invalid_declaration": "an invalid declaration ends the deal, IND-20",
    "last_player": "one seat is left, the others eliminated; an invalid declaration "
                   "eliminates its declarer, IND-20",
    "out": "a seat went out",
    "rami_sec": "a seat laid its whole hand in one turn",
    "draw_cap": "the draw cap was reached, COM-9",
    "dead_stock": "no card was left to draw, COM-12",
}


def round_end(r: RoundSummary) -> str:
    """A round's end in words: why it ended, with the rule, then penalties and totals."""
    why = WHY_ROUNDS_END.get(r.reason, "")
    return (f"round {r.round} ends ({r.reason}{': ' + why if why else ''}): penalties "
            f"{list(r.penalties)}, totals {list(r.totals)}")


def step_notes(s: Step) -> list[str]:
    """What a step did that its action's text does not say: an invalid declaration (IND-20)
    looked like any other, and the round went on, or ended "(last_player)"."""
    return [f"seat {e.seat}'s declaration is invalid (IND-20)" for e in s.events
            if e.kind == "invalid"]


class _Console(Console):
    """rich's console, leaving a reader that went away (``| head``) to the arena's own
    handling: rich exited 1, the code of ``arena sprt``'s H0, where every other command
    ends as a program SIGPIPE stopped (141)."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError


def console() -> Console:
    """The terminal, coloured only where it is one (rich reads NO_COLOR and the pipe)."""
    return _Console(highlight=False, soft_wrap=True)


def card(c: Card | None) -> str:
    """One card as rich markup: ``[red]KH[/red]``; a missing card as ``-``."""
    if c is None:
        return "-"
    style = JOKER_STYLE if c.is_joker else SUIT_STYLE[c.suit]
    return f"[{style}]{c}[/{style}]" if style else str(c)


def cards(cs: Iterable[Card]) -> str:
    """Cards in the order given."""
    return " ".join(card(c) for c in cs) or "-"


def hand(cs: Sequence[Card]) -> str:
    """A hand sorted by suit then rank, the suits apart, jokers last: ``2S 5S | 9H | JK``."""
    groups: list[list[Card]] = [[], [], [], [], []]
    for c in sorted(cs, key=lambda c: c.code):
        groups[4 if c.is_joker else c.suit].append(c)
    return " | ".join(cards(g) for g in groups if g) or "-"


def melds(table: Sequence[TableMeld]) -> str:
    """The combinations on the table, by owner, numbered as lay-offs name them; a wild card
    with the card it stands for (``JK=JD``), which a take-back must put down."""
    return "; ".join(f"{i}: {_standing(m)} (seat {m.owner})" for i, m in enumerate(table))


def _standing(meld: TableMeld) -> str:
    return " ".join(card(c) + (f"={f}" if f is not None and f != c else "")
                    for c, f in zip(meld.cards, meld.stands_for, strict=True)) or "-"


def table_line(t: Table, seat: int | None = None) -> str:
    """Discard top, stock and scores; and the table's combinations where there are some."""
    line = f"    discard top {card(t.discard_top)}, stock {t.stock_size}, " \
           f"totals {list(t.totals)}"
    if seat is not None:
        line += ", hand sizes " + str([len(h) for h in t.hands])
    return line + (f"\n    table: {melds(t.melds)}" if t.melds else "")


def plain(text: str) -> str:
    """Text from a bot or a record, shown as it is (never read as markup)."""
    return escape(text)
