"""Seats: how the referee reaches a bot, and the trusted kind that runs it in this process.

Every seat answers :meth:`ask` with the bot's answer text or a fault kind, and times the
decision itself; the bot never reports its own clock. The isolated kind
(:mod:`arena.seats.process`) enforces the deadline at the process boundary, ignores late
replies by request id, and restarts a bot that crashed, exited or stayed silent past a grace
period; :mod:`arena.seats.make` builds either.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from arena.actions import Draw, Play
from arena.engine.view import RoundSummary, View
from arena.seats.bot import BOT_FAILURES, Bot, BotSpec, GameInfo, call_hook


class Answer(NamedTuple):
    """A seat's reply to one decision: the answer, or the kind of fault it was."""

    answer: str | Draw | Play | None
    fault: str | None
    ms: float
    detail: str = ""  # what the bot said of its fault: the traceback of a crash
    dead: bool = False  # the bot could not be started again: it forfeits (referee)


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """Resource limits of an isolated seat (documented in docs/protocol.md)."""

    memory_mb: int = 1024
    cpu_s_per_game: float = 300.0
    processes: int = 64
    line_bytes: int = 1 << 20
    startup_ms: int = 10_000
    grace_ms: int = 1_000
    stderr_bytes: int = 1 << 20


@dataclass(frozen=True, slots=True)
class Confinement:
    """What a confined bot may see of the file system (arena.seats.confine)."""

    read: tuple[str, ...] = ()
    write: tuple[str, ...] = ()
    network: bool = False
    hide: tuple[str, ...] = ()  # shown empty even inside a folder it may read

    def arguments(self) -> list[str]:
        """The sandbox wrapper's flags for it."""
        args = ["--confine", *(["--network"] if self.network else [])]
        for flag, paths in (("--read", self.read), ("--write", self.write),
                            ("--hide", self.hide)):
            for path in paths:
                args += [flag, path]
        return args


class InProcessSeat:
    """A trusted bot called directly: fast, but it shares this process. What it raises is
    appended to its stderr log, as an isolated bot's traceback would be."""

    def __init__(self, spec: BotSpec, *, stderr: Path | None = None) -> None:
        self.spec = spec
        self.stderr_path = stderr
        self.bot: Bot | None = None

    def start(self, info: GameInfo) -> str | None:
        """Make the game's bot instance; a fault kind if it cannot start."""
        try:
            self.bot = self.spec.make()
            call_hook(self.bot, "start_game", info)
        except BOT_FAILURES as exc:
            self.bot = None
            self._log(exc)
            return "crash"
        return None

    def begin(self, info: GameInfo) -> str | None:
        """As :meth:`start` (nothing to wait for in process)."""
        return self.start(info)

    def ready(self) -> str | None:
        """Always ready once begun."""
        return None

    def ask(self, view: View, limit_ms: int) -> Answer:
        """The bot's answer (object or text), or a fault kind."""
        if self.bot is None:
            return Answer(None, "crash", 0.0, "the bot did not start")
        start = time.perf_counter()
        try:
            answer = self.bot.draw(view) if view.decision == "draw" else self.bot.play(view)
        except BOT_FAILURES as exc:
            return Answer(None, "crash", (time.perf_counter() - start) * 1000, self._log(exc))
        elapsed = (time.perf_counter() - start) * 1000
        return Answer(None, "timeout", elapsed) if elapsed > limit_ms else \
            Answer(answer, None, elapsed)

    def notify(self, hook: str, arg: RoundSummary | tuple[int, ...]) -> str | None:
        """An end-of-round or end-of-game hook; a fault kind if it raised."""
        try:
            call_hook(self.bot, hook, arg)
        except BOT_FAILURES as exc:
            self._log(exc)
            return "crash"
        return None

    def _log(self, exc: BaseException) -> str:
        """The traceback, appended to the bot's stderr log (if it has one) and returned."""
        text = "".join(traceback.format_exception(exc))
        if self.stderr_path is not None:
            self.stderr_path.parent.mkdir(parents=True, exist_ok=True)
            with self.stderr_path.open("a", encoding="utf-8") as log:
                log.write(text)
        return text

    def launch(self) -> None:
        """Nothing to start: the bot lives in this process."""

    def ended(self, deadline: float) -> str | None:
        """Its game ended with the end_game hook: nothing to wait for."""
        return None

    def stop(self) -> None:
        """Nothing runs on after its game."""

    def close(self) -> None:
        """Nothing to release."""
        self.bot = None
