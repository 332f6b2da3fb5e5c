"""The JSON-lines wire format between the referee and a bot in its own process.

One JSON object per line, both ways (``docs/protocol.md`` has the full description and a
transcript). Views travel as deltas: each request carries only the public events that are new
since the seat's previous request, and :class:`ViewDecoder` rebuilds the whole view.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import orjson

from arena.cards import TEXTS, Card, cards_of
from arena.engine.melds import WildSpec
from arena.engine.view import EventKind, PublicEvent, RoundSummary, TableMeld, View, ViewPart
from arena.seats.bot import GameInfo
from arena.variants import find_variant

PROTOCOL = 3  # 3: start_game tells the clock; 2: a view carries its family's fields, and plays
END_GRACE_S = 2.0  # after end_game, a game child's time to exit (the referee adds a margin)
HOST_ENDED = "game_over"  # the Python host's line after end_game: its game child is gone
MAX_LINE = 1 << 20  # bytes a reply line may take before it counts as unreadable


def _cards(cards: Sequence[Card]) -> list[str]:
    return [TEXTS[c.code] for c in cards]


def _card(text: str | None) -> Card | None:
    return None if text is None else Card.parse(text)


def _text(card: Card | None) -> str | None:
    return None if card is None else TEXTS[card.code]


def encode_line(message: Mapping[str, Any]) -> bytes:
    """One message as one line of bytes."""
    return orjson.dumps(message) + b"\n"


def hello(info: GameInfo) -> dict[str, Any]:
    """The start-of-game message; the bot answers ``{"type": "ready"}``."""
    return {"type": "start_game", "protocol": PROTOCOL, "seat": info.seat,
            "players": info.players, "variant": info.variant, "options": dict(info.options),
            "seed": info.seed, "clock": {"draw_ms": info.draw_ms, "play_ms": info.play_ms}}


def info_of(message: Mapping[str, Any]) -> GameInfo:
    """The :class:`GameInfo` of a start-of-game message."""
    clock = message.get("clock") or {}  # none from a version 2 referee: the defaults
    return GameInfo(message["seat"], message["players"], message["variant"],
                    message["options"], message["seed"],
                    **{k: clock[k] for k in ("draw_ms", "play_ms") if k in clock})


def encode_view(view: View, since: int) -> dict[str, Any]:
    """A view with only the history from event ``since`` on."""
    return {
        "variant": view.variant, "seat": view.seat, "players": view.players,
        "decision": view.decision, "round": view.round, "dealer": view.dealer,
        "hand": _cards(view.hand), "drawn": _text(view.drawn), "drawn_from": view.drawn_from,
        "kept": _text(view.kept), "discard_top": _text(view.discard_top),
        "history_start": since,
        "history": [[e.seat, e.kind, _cards(e.cards)] for e in view.history[since:]],
        "table": [{"owner": m.owner, "cards": _cards(m.cards),
                   "stands_for": [_text(c) for c in m.stands_for]} for m in view.table],
        "hand_sizes": list(view.hand_sizes), "stock_size": view.stock_size,
        "scores": list(view.scores), "active": list(view.active),
        "wild": sorted([TEXTS[c] for c in view.wilds.wild]),
        "self_standing": view.wilds.self_standing, "legal_draws": list(view.legal_draws),
        "draws": view.draws, "draw_cap": view.draw_cap, "plays": sorted(view.plays),
        **({} if view.part is None else view.part.wire()),
    }


class ViewDecoder:
    """Rebuilds full views from delta messages; one per game. What stays the same from one
    view to the next (the wild cards, the variant's part, the table's combinations) is read
    once and shared, so a bot's process spends its time on the bot, not on the wire."""

    def __init__(self) -> None:
        self.history: list[PublicEvent] = []
        self.variant: tuple[str, type[ViewPart] | None] = ("", None)
        self.wilds: tuple[list[str], bool, WildSpec] | None = None
        self.table: list[tuple[dict[str, Any], TableMeld]] = []
        self.part: tuple[dict[str, Any], ViewPart] | None = None  # its fields, as sent

    def decode(self, data: Mapping[str, Any]) -> View:
        """The view a delta message stands for."""
        start = int(data["history_start"])
        if start > len(self.history):
            raise ValueError(f"history gap: have {len(self.history)} events, delta from {start}")
        del self.history[start:]
        self.history += [PublicEvent(int(s), cast(EventKind, k), cards_of(cs))
                         for s, k, cs in data["history"]]
        return View(
            variant=data["variant"], seat=data["seat"], players=data["players"],
            decision=data["decision"], round=data["round"], dealer=data["dealer"],
            hand=cards_of(data["hand"]), drawn=_card(data["drawn"]),
            drawn_from=data["drawn_from"], kept=_card(data["kept"]),
            discard_top=_card(data["discard_top"]), history=tuple(self.history),
            table=self._table(data["table"]),
            hand_sizes=tuple(data["hand_sizes"]), stock_size=data["stock_size"],
            scores=tuple(data["scores"]), active=tuple(data["active"]),
            wilds=self._wilds(data["wild"], data["self_standing"]),
            legal_draws=tuple(data["legal_draws"]), draws=data["draws"],
            draw_cap=data["draw_cap"], plays=frozenset(data["plays"]), part=self._part(data))

    def _wilds(self, wild: list[str], self_standing: bool) -> WildSpec:
        """The wild cards, read again only when they change (once a round at most)."""
        if self.wilds is None or self.wilds[:2] != (wild, self_standing):
            codes = frozenset(c.code for c in cards_of(wild))
            self.wilds = (wild, self_standing, WildSpec(codes, self_standing))
        return self.wilds[2]

    def _table(self, table: list[dict[str, Any]]) -> tuple[TableMeld, ...]:
        """The table's combinations, each read again only when it changed."""
        known = self.table
        del known[len(table):]
        for at, wire in enumerate(table):
            if at < len(known) and known[at][0] == wire:
                continue
            meld = TableMeld(wire["owner"], cards_of(wire["cards"]),
                             tuple(_card(c) for c in wire["stands_for"]))
            known[at:at + 1] = [(wire, meld)]
        return tuple(meld for _, meld in known)

    def _part(self, data: Mapping[str, Any]) -> ViewPart | None:
        """The variant family's part, read by the class the variant names, and read again
        only when one of its fields changed."""
        name, kind = self.variant
        if name != data["variant"]:
            kind = find_variant(data["variant"]).view_part
            self.variant, self.part = (data["variant"], kind), None
        if kind is None:
            return None
        if self.part is not None and all(data.get(k) == v for k, v in self.part[0].items()):
            return self.part[1]
        part = kind.from_wire(data)
        self.part = ({key: data.get(key) for key in part.wire()}, part)
        return part


def encode_summary(summary: RoundSummary) -> dict[str, Any]:
    """The end-of-round message: every final hand and penalty (COM-5)."""
    return {"type": "end_round", "round": summary.round, "reason": summary.reason,
            "hands": [_cards(h) for h in summary.hands], "penalties": list(summary.penalties),
            "totals": list(summary.totals)}


def decode_summary(data: Mapping[str, Any]) -> RoundSummary:
    """Back from :func:`encode_summary`."""
    return RoundSummary(data["round"], data["reason"],
                        tuple(tuple(map(Card.parse, h)) for h in data["hands"]),
                        tuple(data["penalties"]), tuple(data["totals"]))
