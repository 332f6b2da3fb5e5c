"""Plays one game between bots: asks each seat, times it, applies the fault policy (COM-6)."""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.actions import Action, Draw, Play, parse_action
from arena.bot import Bot, BotSpec, GameInfo, call_hook
from arena.errors import ArenaError, IllegalAction
from arena.game import Game
from arena.records import FAULT_KINDS, GameRecord, RoundRecord, SeatRecord, action_text

log = logging.getLogger("arena.referee")
NORMAL_ENDS = ("declaration", "out", "last_player", "invalid_declaration")


@dataclass(frozen=True, slots=True, kw_only=True)
class Clock:
    """Per-decision limits in milliseconds (COM-8 defaults)."""

    draw_ms: int = 15_000
    play_ms: int = 22_000


def bot_seed(game_seed: int, seat: int) -> int:
    """A seed of the bot's own, derived from the game seed but never its RNG (COM-4)."""
    digest = hashlib.sha256(f"{game_seed}/{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(slots=True)
class _Seat:
    """The referee's running tally for one seat."""

    spec: BotSpec
    bot: Bot | None
    faults: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAULT_KINDS, 0))
    times: list[float] = field(default_factory=list)

    def record(self) -> SeatRecord:
        ts = sorted(self.times) or [0.0]
        return SeatRecord(bot=self.spec.name, faults=dict(self.faults), decisions=len(self.times),
                          time_mean_ms=round(sum(ts) / len(ts), 3),
                          time_p95_ms=round(ts[min(len(ts) - 1, int(0.95 * len(ts)))], 3),
                          time_max_ms=round(ts[-1], 3))


class Referee:
    """Runs one game in this process; a faulty seat gets the safe action, never a traceback."""

    def __init__(self, variant: type[Game], seats: Sequence[BotSpec], *, seed: int,
                 options: Mapping[str, Any] | None = None, clock: Clock | None = None,
                 game_id: str = "game") -> None:
        self.game = variant(seed=seed, options=options)
        if len(seats) != self.game.players:
            raise ArenaError(f"{variant.name} with {self.game.players} players needs "
                             f"{self.game.players} bots, got {len(seats)}")
        self.clock = clock or Clock()
        self.game_id = game_id
        self.seats = [_Seat(spec, self._make(spec)) for spec in seats]

    def _make(self, spec: BotSpec) -> Bot | None:
        try:
            return spec.make()
        except Exception:  # a bot that cannot start plays safe actions all game
            log.exception("bot %s failed to start", spec.name)
            return None

    def play(self) -> GameRecord:
        """Play to the end and return the record."""
        game = self.game
        for seat in range(game.players):
            info = GameInfo(seat, game.players, game.version, dict(game.options),
                            bot_seed(game.seed, seat))
            self._hook(seat, "start_game", info)
        rounds_seen = 0
        while not game.finished:
            self._turn_step(game.to_act)
            if len(game.results) > rounds_seen:
                rounds_seen = len(game.results)
                for seat in range(game.players):
                    self._hook(seat, "end_round", game.last_summary)
        for seat in range(game.players):
            self._hook(seat, "end_game", tuple(game.totals))
        return self.record()

    def _hook(self, seat: int, hook: str, arg: Any) -> None:
        bot = self.seats[seat].bot
        if bot is None:
            return
        try:
            call_hook(bot, hook, arg)
        except Exception:
            self._fault(seat, "crash", f"{hook} raised")

    def _turn_step(self, seat: int) -> None:
        """Ask ``seat`` for its current decision and apply the answer or the safe action."""
        game = self.game
        decision = game.decision
        action = self._ask(seat, decision)
        if action is not None:
            try:
                game.apply(action)
                return
            except IllegalAction as exc:
                self._fault(seat, "illegal", str(exc))
        safe = game.safe_action()
        game.apply(safe)
        if isinstance(safe, Draw) and not game.finished and game.to_act == seat \
                and game.decision == "play" and game.turn.drawn is not None:
            game.apply(Play(discard=game.turn.drawn))  # COM-10: discard the card just drawn

    def _ask(self, seat: int, decision: str) -> Action | None:
        """The bot's answer, or None after counting a fault (crash, unreadable, timeout)."""
        s = self.seats[seat]
        if s.bot is None:
            self._fault(seat, "crash", "bot did not start")
            return None
        view = self.game.view(seat)
        limit = self.clock.draw_ms if decision == "draw" else self.clock.play_ms
        start = time.perf_counter()
        try:
            answer = s.bot.draw(view) if decision == "draw" else s.bot.play(view)
        except Exception as exc:
            s.times.append((time.perf_counter() - start) * 1000)
            self._fault(seat, "crash", f"{decision} raised {type(exc).__name__}: {exc}")
            return None
        elapsed = (time.perf_counter() - start) * 1000
        s.times.append(elapsed)
        if elapsed > limit:
            self._fault(seat, "timeout", f"{decision} took {elapsed:.0f} ms > {limit} ms")
            return None
        try:
            return parse_action(answer) if isinstance(answer, str) else _checked(answer)
        except (ArenaError, ValueError, TypeError) as exc:
            self._fault(seat, "unreadable", str(exc))
            return None

    def _fault(self, seat: int, kind: str, detail: str) -> None:
        self.seats[seat].faults[kind] += 1
        log.info("%s seat %d (%s) %s: %s", self.game_id, seat, self.seats[seat].spec.name,
                 kind, detail)

    def record(self) -> GameRecord:
        """The finished game as a record (its actions replay to the same totals)."""
        game = self.game
        rounds = tuple(RoundRecord(round=r.round, dealer=r.dealer, reason=r.reason,
                                   penalties=r.penalties) for r in game.results)
        last = rounds[-1].reason if rounds else "normal"
        return GameRecord(
            schema=1, id=self.game_id, variant=game.version, options=dict(game.options),
            seed=game.seed, seats=tuple(s.record() for s in self.seats),
            actions=tuple(action_text(seat, a) for seat, a in game.log), rounds=rounds,
            totals=tuple(game.totals), ranks=game.ranks(),
            termination="normal" if last in NORMAL_ENDS else "draw_cap")


def _checked(answer: object) -> Action:
    if isinstance(answer, Draw | Play):
        return answer
    raise TypeError(f"expected a Draw, a Play or their text, got {type(answer).__name__}")


def play_game(variant: type[Game], seats: Sequence[BotSpec], *, seed: int,
              options: Mapping[str, Any] | None = None, clock: Clock | None = None,
              game_id: str = "game") -> GameRecord:
    """Play one game in this process and return its record."""
    return Referee(variant, seats, seed=seed, options=options, clock=clock,
                   game_id=game_id).play()
