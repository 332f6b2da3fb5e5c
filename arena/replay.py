"""A finished game rebuilt from its record, step by step: the table after each action and
what the acting seat was shown, for ``arena replay``, the human seat's screen and the
report's viewer. The rebuilt game must end on the record's totals (COM-4), else it is
refused: a replay shows a game exactly as played or not at all."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from arena.actions import Draw
from arena.cards import Card
from arena.engine.game import Game
from arena.engine.view import PublicEvent, RoundSummary, TableMeld, View
from arena.records import (
    FaultNote,
    GameRecord,
    apply_recorded,
    check_replayed,
    recorded_action,
    replay_start,
)


@dataclass(frozen=True, slots=True)
class Table:
    """Everything on and around the table at one moment, every hand included."""

    round: int
    dealer: int
    headline: str  # what a watcher should know of the round: ", indicator 7C"
    hands: tuple[tuple[Card, ...], ...]
    melds: tuple[TableMeld, ...]
    discard_top: Card | None
    stock_size: int
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Step:
    """One deal or one applied action, and the table after it."""

    at: int | None  # the action's index in the record; None for a deal
    seat: int | None  # who acted; None for a deal
    action: str  # the action as recorded ("discard KS"); "" for a deal
    drawn: Card | None  # the card a draw brought into the seat's hand (the seat's secret)
    events: tuple[PublicEvent, ...]  # what every seat saw happen in this step
    faults: tuple[FaultNote, ...]  # noted before the action: the actor's (the action is its
    # safe action) and any other seat's (one that did not start has no action of its own)
    view: View | None  # what the acting seat was shown for this decision
    after: Table
    ended: RoundSummary | None  # the round this action ended: final hands, penalties

    @property
    def is_draw(self) -> bool:
        """A draw decision (its card is hidden from the other seats)."""
        return self.view is not None and self.view.decision == "draw"


def steps(record: GameRecord) -> Iterator[Step]:
    """The record's game, step by step; ValueError naming the record where it does not
    replay as recorded (a rule broken, a seed or options no game starts from)."""
    game = replay_start(record)
    faults: dict[int, list[FaultNote]] = {}
    for note in record.fault_log:
        faults.setdefault(note.at, []).append(note)
    yield Step(None, None, "", None, (), (), None, _table(game), None)
    for at, text in enumerate(record.actions):
        seat, action = recorded_action(record, at, text, game)
        view = game.view(seat)
        before_round, before_hand = game.round, Counter(game.hands[seat])
        seen = len(game.history)
        apply_recorded(record, at, text, game, action)
        ended = game.last_summary if game.round != before_round or game.finished else None
        same = ended is None
        drawn = None
        if isinstance(action, Draw) and same:
            extra = Counter(game.hands[seat]) - before_hand
            drawn = next(iter(extra), None)
        events = tuple((game.history if same else game.last_history)[seen:])
        yield Step(at, seat, str(action), drawn, events, tuple(faults.get(at, ())), view,
                   _table(game), ended)
        if ended is not None and not game.finished:
            yield Step(None, None, "", None, (), (), None, _table(game), None)
    check_replayed(record, game)


def _table(game: Game) -> Table:
    return Table(game.round, game.dealer, game.headline(),
                 tuple(tuple(h) for h in game.hands), tuple(game.table),
                 game.pile[-1] if game.pile else None, len(game.stock), tuple(game.totals))


def public_text(step: Step) -> str:
    """The step as a seat other than the actor saw it: a stock draw without its card."""
    if step.at is None or step.seat is None:
        return ""
    if step.is_draw:
        taken = [e for e in step.events if e.kind == "take"]
        card = f" {taken[0].cards[0]}" if taken else ""
        return f"draws{card} from the {step.action}"  # a draw's text is its source
    shown = [str(e).partition(" ")[2] for e in step.events]
    return "; ".join(shown) if shown else step.action
