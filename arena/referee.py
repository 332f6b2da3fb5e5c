"""Plays one game between seats: asks each, times it, applies the fault policy (COM-6).

A fault (timeout, illegal answer, crash, unreadable answer) is counted against the seat and
answered by the policy's action: the variant's safe action (COM-10, the default) or a random
legal one. With ``forfeit_after`` a seat that reaches that many faults forfeits: it plays safe
actions for the rest of the game without being asked, and ranks last.
"""

from __future__ import annotations

import hashlib
import logging
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from arena.actions import Action, Draw, Play, not_an_answer, parse_action, plain_answer
from arena.cards import Card
from arena.engine.game import Game
from arena.engine.results import Fault, GameEnd
from arena.engine.view import RoundSummary
from arena.errors import ArenaError, BadInput, IllegalAction, printable
from arena.records import (
    FAULT_KINDS,
    SCHEMA,
    FaultNote,
    GameRecord,
    SeatRecord,
    action_text,
    places,
)
from arena.seats.bot import BOT_FAILURES, BotSpec, GameInfo
from arena.seats.make import Isolation, Seat, make_seat
from arena.seats.protocol import END_GRACE_S
from arena.seats.seat import Limits

log = logging.getLogger("arena.referee")
ENDED_WAIT_S = 3.0  # beyond the grace, for the host's word that a game child is gone
LOGGED_CHARS = 200  # of what a bot said (an unreadable action, an error), per log line


@dataclass(frozen=True, slots=True, kw_only=True)
class Clock:
    """Per-decision limits in milliseconds (COM-8 defaults)."""

    draw_ms: int = 15_000
    play_ms: int = 22_000


@dataclass(frozen=True, slots=True, kw_only=True)
class FaultPolicy:
    """What a fault costs: the action played for it, and an optional forfeit."""

    policy: Literal["safe_action", "random_legal"] = "safe_action"
    forfeit_after: int | None = None
    forfeit_after_consecutive: int | None = 5  # a dead bot stops costing its deadline


def bot_seed(game_seed: int, seat: int) -> int:
    """A seed of the bot's own, derived from the game seed but never its RNG (COM-4)."""
    digest = hashlib.sha256(f"{game_seed}/{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(frozen=True, slots=True)
class FaultEvent:
    """One fault as it happened: before action number ``at`` of the game's log."""

    at: int
    seat: int
    kind: str
    detail: str


@dataclass(slots=True)
class _Tally:
    """The referee's running count for one seat."""

    name: str
    faults: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAULT_KINDS, 0))
    times: list[float] = field(default_factory=list)
    forfeit: bool = False
    streak: int = 0  # faults since its last good decision

    def record(self) -> SeatRecord:
        ts = sorted(self.times) or [0.0]
        return SeatRecord(bot=self.name, faults=dict(self.faults), decisions=len(self.times),
                          time_mean_ms=round(sum(ts) / len(ts), 3),
                          time_p95_ms=round(ts[min(len(ts) - 1, int(0.95 * len(ts)))], 3),
                          time_max_ms=round(ts[-1], 3), forfeit=self.forfeit)


def _told(exc: BaseException) -> str:
    """An exception of a bot's as one short text (its own ``__str__`` may raise too)."""
    try:
        return f"{type(exc).__name__}: {exc}"
    except BOT_FAILURES:
        return "an exception that cannot be shown"


def _parsed(text: str, decision: str) -> Action:
    """An answer's action; text that is no action at all is said to be no draw at a draw
    ("None" was called a bad play, with the forms of a play)."""
    try:
        return parse_action(text)
    except BadInput:
        if decision == "draw":
            Draw.parse(text)  # raises, naming the draws
        raise


class Referee:
    """Runs one game; a faulty seat gets the policy's action, never a traceback."""

    def __init__(self, variant: type[Game], seats: Sequence[Seat], names: Sequence[str], *,
                 seed: int, options: Mapping[str, Any] | None = None,
                 clock: Clock | None = None, faults: FaultPolicy | None = None,
                 game_id: str = "game",
                 on_fault: Callable[[FaultEvent], None] | None = None) -> None:
        self.game = variant(seed=seed, options=options)
        self.on_fault = on_fault
        if len(seats) != self.game.players:
            raise BadInput(f"{variant.name} with {self.game.players} players needs "
                             f"{self.game.players} bots, got {len(seats)}")
        self.seats = list(seats)
        self.clock = clock or Clock()
        self.policy = faults or FaultPolicy()
        self.game_id = game_id
        self.tally = [_Tally(n) for n in names]
        self.fault_log: list[FaultNote] = []
        self.rng = random.Random(bot_seed(seed, -1))  # for random_legal; not the game RNG

    def _info(self, seat: int) -> GameInfo:
        game = self.game
        return GameInfo(seat, game.players, game.version, dict(game.options),
                        bot_seed(game.seed, seat), draw_ms=self.clock.draw_ms,
                        play_ms=self.clock.play_ms)

    def play(self) -> GameRecord:
        """Play to the end and return the record."""
        game = self.game
        for s in self.seats:
            s.launch()  # every process starts at once
        begun = [s.begin(self._info(seat)) for seat, s in enumerate(self.seats)]
        for seat, s in enumerate(self.seats):  # every seat was told; now each must be ready
            fault = begun[seat] or s.ready()
            if fault:
                self._fault(seat, fault, "bot did not start", s.start_error)
                self._forfeit_dead(seat, "it did not start")
        rounds_seen = 0
        while not game.finished:
            self._turn_step(game.to_act)
            if len(game.results) > rounds_seen:
                rounds_seen = len(game.results)
                self._notify_all("end_round", game.last_summary)
        self._notify_all("end_game", tuple(game.totals))
        self._await_ends()
        return self.record()

    def _await_ends(self) -> None:
        """A game child of the Python host that outstays its grace after end_game is killed
        (so nothing of it reaches the next game) and counted as a fault of its seat."""
        deadline = time.monotonic() + END_GRACE_S + ENDED_WAIT_S
        for seat, s in enumerate(self.seats):
            if self.tally[seat].forfeit:  # a dead bot is not waited for: stopped now
                s.stop()
                continue
            fault = s.ended(deadline)
            if fault == "crash":  # it said so in its log, as at any decision
                self._fault(seat, fault, "end_game failed")
            elif fault:
                self._fault(seat, fault, f"its game went on {END_GRACE_S + ENDED_WAIT_S:g} s "
                                         "after end_game: killed")

    def _notify_all(self, hook: str, arg: RoundSummary | tuple[int, ...]) -> None:
        for seat, s in enumerate(self.seats):  # a forfeited seat is told too: its game ends
            if (kind := s.notify(hook, arg)) and not self.tally[seat].forfeit:
                self._fault(seat, kind, f"{hook} failed" if kind == "crash" else
                            f"{hook} still busy past grace_ms: stopped")

    def _turn_step(self, seat: int) -> None:
        """Ask ``seat`` for its current decision and apply the answer or the fault action."""
        game = self.game
        if not self.tally[seat].forfeit:
            action = self._ask(seat)
            if action is not None:
                try:
                    remedy = game.apply(action)
                    if remedy is not None:  # R51-9, MAR-8: one fault; asked again
                        self._fault(seat, "illegal", remedy)
                    else:
                        self.tally[seat].streak = 0
                    return
                except IllegalAction as exc:
                    self._fault(seat, "illegal", str(exc))
        self._fault_action(seat)

    def _fault_action(self, seat: int) -> None:
        """COM-6: the safe action (COM-10), or a random legal one if the policy says so."""
        game = self.game
        rounds = len(game.results)
        random_ok = self.policy.policy == "random_legal" and not self.tally[seat].forfeit
        action = self._random_action() if random_ok else game.safe_action()
        try:
            remedy = game.apply(action)
        except IllegalAction:
            action = game.safe_action()
            remedy = game.apply(action)
        if isinstance(action, Draw) and self._owes_play(seat, rounds) and \
                game.turn.drawn is not None:
            remedy = game.apply(game.safe_action())  # COM-10: discard the card just drawn
        if remedy is not None and self._owes_play(seat, rounds):
            game.apply(game.safe_action())  # COM-10: then the stock card drawn in its place

    def _owes_play(self, seat: int, rounds: int) -> bool:
        """The same seat still has the play decision of its turn to make (of the round
        that was on when ``rounds`` rounds had ended: a remedy's draw from a dead stock
        ends it, and the seat may deal the next, whose first play is its own to make)."""
        game = self.game
        return not game.finished and game.to_act == seat and game.decision == "play" and \
            len(game.results) == rounds

    def _random_action(self) -> Action:
        view = self.game.view(self.game.to_act)
        if view.decision == "draw":
            return Draw(self.rng.choice(view.legal_draws))
        return Play(discard=self.rng.choice(view.discardable or view.hand))

    def _ask(self, seat: int) -> Action | None:
        """The seat's answer as an action, or None after counting a fault."""
        view = self.game.view(seat)
        limit = self.clock.draw_ms if view.decision == "draw" else self.clock.play_ms
        answer, fault, elapsed, said, dead = self.seats[seat].ask(view, limit)
        self.tally[seat].times.append(elapsed)
        if fault is not None:
            self._fault(seat, fault, f"{view.decision} decision ({elapsed:.0f} ms)", said)
            if dead:
                self._forfeit_dead(seat, "it did not start again")
            return None
        try:
            plain = plain_answer(answer)
        except BOT_FAILURES as exc:  # the bot's own object raised as it was read (in process)
            self._fault(seat, "unreadable", f"{view.decision} decision: its answer raised "
                                            f"{_told(exc)} as it was read")
            return None
        try:
            if isinstance(plain, str):
                return _parsed(plain, view.decision)
            if isinstance(plain, Play) and (plain.lays_anything or
                                            type(plain.discard) is not Card):
                return _parsed(str(plain), view.decision)  # read as an isolated seat's
                # host sends it: Play(discard="QC") played there and was refused here
            if isinstance(plain, Draw | Play):
                return plain
            raise not_an_answer(plain)
        except (ArenaError, ValueError, TypeError) as exc:
            self._fault(seat, "unreadable", f"{view.decision} decision: {exc}")
            return None

    def _fault(self, seat: int, kind: str, detail: str, said: str = "") -> None:
        tally = self.tally[seat]
        tally.faults[Fault(kind)] += 1
        last = _error_of(said)
        log.info("%s seat %d (%s) %s: %s%s", self.game_id, seat, tally.name, kind,
                 printable(detail[:LOGGED_CHARS]),
                 f": {printable(last[:LOGGED_CHARS])}" if last else "")
        self.fault_log.append(FaultNote(len(self.game.log), seat, Fault(kind)))
        if self.on_fault is not None:
            told = f"{detail}\n{said.rstrip()[-8000:]}" if said else detail  # the bot's
            self.on_fault(FaultEvent(len(self.game.log), seat, kind, told))  # words cut, ours not
        tally.streak += 1
        if self.game.finished:
            return  # a fault after the end (a game child that lingered) forfeits nothing
        limit, in_a_row = self.policy.forfeit_after, self.policy.forfeit_after_consecutive
        if limit is not None and sum(tally.faults.values()) >= limit:
            self._forfeit(seat, f"{limit} faults")
        elif in_a_row is not None and tally.streak >= in_a_row:
            self._forfeit(seat, f"{in_a_row} faults in a row")

    def _forfeit_dead(self, seat: int, why: str) -> None:
        """A bot that does not (re)start would cost ``startup_ms`` every turn: it forfeits,
        unless the policy forfeits nobody for faults in a row (COM-6 alone)."""
        if self.policy.forfeit_after_consecutive is not None:
            self._forfeit(seat, why)

    def _forfeit(self, seat: int, why: str) -> None:
        """From now on the seat plays safe actions without being asked, and ranks last."""
        tally = self.tally[seat]
        if not tally.forfeit:
            tally.forfeit = True
            log.info("%s seat %d (%s) forfeits: %s", self.game_id, seat, tally.name, why)

    def ranks(self) -> tuple[int, ...]:
        """Ranks by total, with forfeited seats after all others (records.places: a
        record's ranks are checked by the same rule)."""
        return places(self.game.totals, [t.forfeit for t in self.tally])

    def record(self) -> GameRecord:
        """The finished game as a record (its actions replay to the same totals)."""
        game = self.game
        rounds = tuple(game.results)
        forfeit = any(t.forfeit for t in self.tally)
        won = not rounds or rounds[-1].reason.won
        return GameRecord(
            schema=SCHEMA, id=self.game_id, variant=game.version, options=dict(game.options),
            seed=game.seed, seats=tuple(t.record() for t in self.tally),
            actions=tuple(action_text(seat, a) for seat, a in game.log), rounds=rounds,
            totals=tuple(game.totals), ranks=self.ranks(),
            termination=GameEnd.FORFEIT if forfeit else GameEnd.NORMAL if won
            else GameEnd.DRAW_CAP, fault_log=tuple(self.fault_log))


def _error_of(said: str) -> str:
    """The line of what a bot said that names its error, for the log: a Python
    traceback's last line; else the first that mentions an error (a JavaScript stack starts
    with it, and its last line is a frame of Node's); else the last."""
    lines = said.strip().split("\n")
    if lines[0].startswith("Traceback"):
        return lines[-1]
    return next((line for line in lines if "error" in line.lower()), lines[-1])


def play_game(variant: type[Game], specs: Sequence[BotSpec], *, seed: int,
              options: Mapping[str, Any] | None = None, clock: Clock | None = None,
              faults: FaultPolicy | None = None, isolation: Isolation = "inprocess",
              limits: Limits | None = None, game_id: str = "game",
              stderr_dir: Path | None = None,
              on_fault: Callable[[FaultEvent], None] | None = None) -> GameRecord:
    """Play one game with fresh seats and return its record (bots' stderr and tracebacks
    go to ``stderr_dir``, else nowhere; ``on_fault`` hears of each fault as it happens)."""
    seats = [make_seat(s, isolation=isolation, limits=limits, stderr_dir=stderr_dir)
             for s in specs]
    try:
        return Referee(variant, seats, [s.name for s in specs], seed=seed, options=options,
                       clock=clock, faults=faults, game_id=game_id,
                       on_fault=on_fault).play()
    finally:
        for seat in seats:
            seat.close()
