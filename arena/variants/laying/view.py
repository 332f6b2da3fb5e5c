"""What a laying-family view adds (R51, MAR): who has opened, the threshold, the tournante."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from arena.cards import Card
from arena.engine.rules import LayingRules
from arena.engine.view import ViewPart


@dataclass(frozen=True, slots=True, kw_only=True)
class LayingPart(ViewPart):
    """The laying family's part of a view: what an opening needs and what the table allows."""

    opened: tuple[bool, ...]  # per seat (a partner counts as opened, R51-12)
    threshold: int | None  # what an opening needs now (R51-11, MAR-9); None without openings
    tournante: Card | None  # R51-8: the dealer's first discard, while nobody has taken it
    first_cycle: bool  # R51-8: the first time round the table
    rules: LayingRules  # the table's rules: what may be laid, when, and what cards pay

    def has_opened(self, seat: int) -> bool:
        """Whether ``seat`` (or its partner) has opened this round."""
        return self.opened[seat]

    def may_lay_now(self) -> bool:
        """R51-8 (c): nobody lays in the first cycle; MAR-5 allows it."""
        return not self.first_cycle or self.rules.lay_in_first_cycle

    def status(self) -> str:
        """COM-5: who has opened and what an opening needs now, the tournante while it waits,
        and the first cycle's ban on laying; a person saw them only in a refusal."""
        opened = [str(i) for i, done in enumerate(self.opened) if done]
        parts = [f"opened: seat{'s' if len(opened) > 1 else ''} {', '.join(opened)}"
                 if opened else "nobody has opened"]
        if self.threshold is not None:
            parts.append(f"an opening needs {self.threshold}")
        if self.tournante is not None:
            parts.append(f"tournante {self.tournante}")
        if not self.may_lay_now():
            parts.append("first cycle: nobody lays (R51-8)")
        return "; ".join(parts)

    def wire(self) -> dict[str, Any]:
        return {"opened": list(self.opened), "threshold": self.threshold,
                "tournante": None if self.tournante is None else str(self.tournante),
                "first_cycle": self.first_cycle, "rules": _rules_wire(self.rules)}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> LayingPart:
        tournante = data.get("tournante")
        return cls(opened=tuple(map(bool, data["opened"])), threshold=data["threshold"],
                   tournante=None if tournante is None else Card.parse(tournante),
                   first_cycle=bool(data["first_cycle"]), rules=LayingRules(**data["rules"]))


@cache
def _rules_wire(rules: LayingRules) -> dict[str, Any]:
    """A table's rules as the wire shows them: the same for a whole game, so built once
    (``dataclasses.asdict`` walked them again in every view); only ever serialised."""
    return dataclasses.asdict(rules)
