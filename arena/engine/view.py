"""What one seat is shown (COM-5): built by the engine for that seat, never the state itself."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Self, TypeVar

import msgspec

from arena.actions import Source
from arena.cards import Card
from arena.engine.melds import WildSpec

Decision = Literal["draw", "play"]
PlayKind = Literal["declare", "meld", "lay_off", "take_back"]
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


class ViewPart:
    """What one variant family adds to its views (an indicator, a threshold): the view stays
    generic, and the family's part travels on the wire as its own top-level fields."""

    __slots__ = ()
    headline_fields: ClassVar[tuple[tuple[str, str], ...]] = ()  # (label, attribute) to show

    def wire(self) -> dict[str, Any]:
        """The part's fields as JSON values, merged into the view's message."""
        raise NotImplementedError

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Self:
        """Back from :meth:`wire`, out of the whole view message."""
        raise NotImplementedError

    def headline(self) -> str:
        """What a person watching should know of the round, such as ", indicator 7C"."""
        return "".join(f", {label} {value}" for label, attr in self.headline_fields
                       if (value := getattr(self, attr)))

    def status(self) -> str:
        """What a person at the table should know before each decision, where it changes
        within a round (who has opened, what an opening needs now), or ""."""
        return ""


P = TypeVar("P", bound=ViewPart)


class View(msgspec.Struct, frozen=True, kw_only=True):
    """Everything seat ``seat`` may know when asked for ``decision``, and what is legal now
    (a struct: one is built for every decision, and a frozen dataclass takes 4x as long)."""

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
    legal_draws: tuple[Source, ...]
    draws: int
    draw_cap: int
    plays: frozenset[PlayKind] = frozenset()
    part: ViewPart | None = None

    def is_wild(self, card: Card) -> bool:
        """Whether ``card`` is wild this round."""
        return card.code in self.wilds.wild

    def allows(self, play: PlayKind) -> bool:
        """Whether this variant has ``play`` at all (a discard it always has): bots ask this
        rather than guess the variant from its name."""
        return play in self.plays

    def part_as(self, kind: type[P]) -> P:
        """The variant family's own part of this view, as ``kind``; TypeError otherwise."""
        if not isinstance(self.part, kind):
            raise TypeError(f"{self.variant} views carry no {kind.__name__}")
        return self.part

    @property
    def next_seat(self) -> int:
        """The next active seat clockwise, as the turn passes: the one that may take this
        seat's discard."""
        for step in range(1, self.players):
            seat = (self.seat + step) % self.players
            if self.active[seat]:
                return seat
        return self.seat

    @property
    def discardable(self) -> tuple[Card, ...]:
        """Cards of the hand that may be discarded now (COM-11 keeps a taken discard)."""
        kept = self.kept
        if kept is None:  # most turns: the whole hand, with nothing to copy
            return self.hand
        return tuple([c for c in self.hand if c is not kept])  # a card is its one object


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """Shown to every seat when a round ends: all final hands and penalties (COM-5)."""

    round: int
    reason: str
    hands: tuple[tuple[Card, ...], ...]
    penalties: tuple[int, ...]
    totals: tuple[int, ...]
