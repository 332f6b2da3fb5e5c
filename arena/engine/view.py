"""What one seat is shown (COM-5): built by the engine for that seat, never the state itself."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from arena.actions import Source
from arena.cards import Card
from arena.engine.melds import WildSpec

if TYPE_CHECKING:
    from arena.engine.rules import LayingRules

Decision = Literal["draw", "play"]
EventKind = Literal["discard", "take", "declare", "invalid", "out", "meld", "lay", "take_back",
                    "return"]


@dataclass(frozen=True, slots=True)
class PublicEvent:
    """Something every seat saw happen: a discard, a take from the pile, a shown hand."""

    seat: int
    kind: EventKind
    cards: tuple[Card, ...]

    def __str__(self) -> str:
        return f"{self.seat} {self.kind} " + " ".join(str(c) for c in self.cards)


@dataclass(frozen=True, slots=True)
class TableMeld:
    """A combination on the table, the cards its wild cards stand for, and who laid it."""

    owner: int
    cards: tuple[Card, ...]
    stands_for: tuple[Card | None, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class View:
    """Everything seat ``seat`` may know when asked for ``decision``, and what is legal now."""

    variant: str
    seat: int
    players: int
    decision: Decision
    round: int
    dealer: int
    hand: tuple[Card, ...]
    drawn: Card | None
    drawn_from: Source | None
    kept: Card | None
    discard_top: Card | None
    history: tuple[PublicEvent, ...]
    table: tuple[TableMeld, ...]
    hand_sizes: tuple[int, ...]
    stock_size: int
    scores: tuple[int, ...]
    active: tuple[bool, ...]
    wilds: WildSpec
    indicator: Card | None
    wild_rank: int | None
    legal_draws: tuple[Source, ...]
    draws: int
    draw_cap: int
    opened: tuple[bool, ...] = ()
    threshold: int | None = None
    tournante: Card | None = None
    first_cycle: bool = False
    rules: LayingRules | None = None

    def is_wild(self, card: Card) -> bool:
        """Whether ``card`` is wild this round."""
        return card.code in self.wilds.wild

    @property
    def discardable(self) -> tuple[Card, ...]:
        """Cards of the hand that may be discarded now (COM-11 keeps a taken discard)."""
        return tuple(c for c in self.hand if c != self.kept)


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """Shown to every seat when a round ends: all final hands and penalties (COM-5)."""

    round: int
    reason: str
    hands: tuple[tuple[Card, ...], ...]
    penalties: tuple[int, ...]
    totals: tuple[int, ...]
