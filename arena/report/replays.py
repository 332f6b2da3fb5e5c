r"""Every game of a tournament packed for the report's replay viewer.

Each game is its :func:`arena.replay.steps`, one entry a step, holding only what changed
since the step before, with cards as their codes (0..51 suit by suit, 52 the joker): a deal
holds the whole table; an action its seat, its text and the hands, discard top, stock,
totals and combinations it changed; an action that ends a round the round's summary. The
keys are short because a tournament has a thousand games of a hundred steps:

==== ===========================================================================
key  meaning
==== ===========================================================================
n    a deal: the round (1-based)
l    a deal: the dealer's seat
g    a deal: the round's headline (", indicator 7C")
H    a deal: every hand, or a round's final hands (in ``r``)
s    the acting seat
a    the action as recorded ("discard KS"; a draw's text is its source)
w    a draw decision: 1 when its card is the seat's secret, 2 when every seat saw it
d    the card the draw brought into the seat's hand
u    the step as the other seats saw it, where that is not ``a`` (a play) nor
     "draws [d] from the [a]" (a draw, the card named where every seat saw it)
f    the seat's faults on this decision
\+   cards the acting seat gained (left out when a draw brought in ``d`` alone)
\-   cards the acting seat lost
h    other seats' changed hands: [seat, cards gained, cards lost]
p    the discard top (null: an empty pile)
k    the stock's size
t    the totals
m    the table's combinations: [owner, cards] or [owner, cards, what wild cards stand for]
r    the round this action ended: n, why, pen (penalties), t (totals), H (final hands)
==== ===========================================================================
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from arena.cards import Card
from arena.engine.view import RoundSummary, TableMeld
from arena.errors import ArenaError
from arena.records import GameRecord
from arena.replay import Step, Table, public_text, steps

Packed = dict[str, Any]


def game_replay(record: GameRecord) -> Packed:
    """One game for the viewer: its seats and result, and its steps; a record that does not
    replay as recorded carries the reason instead (the report lists it, never drops it)."""
    head: Packed = {"id": record.id, "bots": [s.bot for s in record.seats],
                    "seed": str(record.seed),  # 63 bits: more than a JavaScript number holds
                    "totals": list(record.totals), "ranks": list(record.ranks),
                    "end": str(record.termination),
                    "forfeit": [i for i, s in enumerate(record.seats) if s.forfeit]}
    try:
        return head | {"steps": packed_steps(steps(record))}
    except (ValueError, ArenaError) as exc:
        return head | {"error": str(exc) or type(exc).__name__}


def packed_steps(replayed: Iterable[Step]) -> list[Packed]:
    """The steps, each as what changed since the table before it."""
    packed: list[Packed] = []
    before: Table | None = None
    for step in replayed:
        if step.at is None or before is None:
            packed.append(_deal(step.after))
        else:
            packed.append(_action(step, before))
        if step.ended is None:  # the table after a round's end is the next deal's
            before = step.after
    return packed


def _deal(t: Table) -> Packed:
    """A freshly dealt table, whole."""
    return {"n": t.round, "l": t.dealer, "g": t.headline, "H": [_codes(h) for h in t.hands],
            "p": _code(t.discard_top), "k": t.stock_size, "t": list(t.totals),
            "m": _melds(t.melds)}


def _action(step: Step, before: Table) -> Packed:
    """One applied action: who, what, what the others saw, and what it changed."""
    entry: Packed = {"s": step.seat, "a": step.action}
    seen = any(e.kind == "take" for e in step.events)
    if step.is_draw:
        entry["w"] = 2 if seen else 1
        if step.drawn is not None:
            entry["d"] = step.drawn.code
    public = public_text(step)
    if public != _told(step, seen):
        entry["u"] = public
    if own := [str(note.kind) for note in step.faults if note.seat == step.seat]:
        entry["f"] = own  # the action is the one played for them
    if others := [[note.seat, str(note.kind)] for note in step.faults
                  if note.seat != step.seat]:
        entry["o"] = others  # another seat's (a bot that did not start): no action of it
    if step.ended is not None:
        entry["r"] = _summary(step.ended)
        return entry
    return entry | _changes(before, step)


def _told(step: Step, seen: bool) -> str:
    """The public text the viewer makes of a step by itself: the action, or for a draw its
    source, with the card where every seat saw it."""
    if not step.is_draw:
        return step.action
    card = f" {step.drawn}" if seen and step.drawn is not None else ""
    return f"draws{card} from the {step.action}"


def _changes(before: Table, step: Step) -> Packed:
    """The parts of the table that differ, hands as the cards each seat gained and lost."""
    after = step.after
    changed: Packed = {}
    others = []
    for seat, (old, new) in enumerate(zip(before.hands, after.hands, strict=True)):
        if old == new:  # most hands stay as they were
            continue
        gained, lost = _difference(old, new)
        if not gained and not lost:
            continue
        if seat != step.seat:
            others.append([seat, gained, lost])
            continue
        if gained and not (step.drawn is not None and gained == [step.drawn.code]):
            changed["+"] = gained
        if lost:
            changed["-"] = lost
    if others:
        changed["h"] = others
    if after.discard_top is not before.discard_top:
        changed["p"] = _code(after.discard_top)
    if after.stock_size != before.stock_size:
        changed["k"] = after.stock_size
    if after.totals != before.totals:
        changed["t"] = list(after.totals)
    if after.melds != before.melds:
        changed["m"] = _melds(after.melds)
    return changed


def _difference(old: Sequence[Card], new: Sequence[Card]) -> tuple[list[int], list[int]]:
    """The cards a hand gained and lost, copies counted (two decks hold two of a card)."""
    gained, lost = list(new), []
    for card in old:
        if card in gained:
            gained.remove(card)
        else:
            lost.append(card)
    return _codes(gained), _codes(lost)


def _summary(ended: RoundSummary) -> Packed:
    """A round's end: every final hand is shown to every seat (COM-5)."""
    return {"n": ended.round, "why": str(ended.reason), "pen": list(ended.penalties),
            "t": list(ended.totals), "H": [_codes(h) for h in ended.hands]}


def _melds(melds: Sequence[TableMeld]) -> list[list[Any]]:
    """Combinations as [owner, cards], with what each card stands for where one is wild."""
    packed: list[list[Any]] = []
    for meld in melds:
        entry: list[Any] = [meld.owner, [c.code for c in meld.cards]]  # the table's
        # order, as arena replay shows it: a sort parted each card from what it stands for
        if any(c is not None for c in meld.stands_for):
            entry.append([_code(c) for c in meld.stands_for])
        packed.append(entry)
    return packed


def _codes(cards: Iterable[Card]) -> list[int]:
    """Cards as codes, in code order (suit by suit, the joker last), as the viewer shows them."""
    return sorted(c.code for c in cards)


def _code(card: Card | None) -> int | None:
    return None if card is None else card.code
