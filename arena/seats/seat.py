"""Seats: how the referee reaches a bot, and the trusted kind that runs it in this process.

Every seat answers :meth:`ask` with the bot's answer text or a fault kind, and times the
decision itself; the bot never reports its own clock. The isolated kind
(:mod:`arena.seats.process`) enforces the deadline at the process boundary, ignores late
replies by request id, and restarts a bot that crashed, exited or stayed silent past a grace
period; :mod:`arena.seats.make` builds either.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, NamedTuple, TypeVar

from arena.actions import Draw, Play
from arena.engine.view import RoundSummary, View
from arena.seats.bot import BOT_FAILURES, Bot, BotSpec, GameInfo, bots_story, call_hook
from arena.seats.start_error import first_error_line


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


class Overran(BaseException):
    """Raised in a trusted bot still busy ``grace_ms`` past its clock: a BaseException, so
    that the bot's own ``except Exception`` lets it through."""


T = TypeVar("T")
TICK_S = 0.1  # how often a timer checks the deadline of the bot being called


class _Watch:
    """The deadline of the trusted bot being called, checked by a ticking timer: setting it
    costs an assignment, where arming a timer for each decision cost two system calls."""

    deadline = 0.0  # monotonic seconds; 0: no bot is being called
    ticking = False
    caller: tuple[Any, tuple[float, float], float] | None = None  # the SIGALRM handler and
    # timer found when the ticks began, and when: a library call gives them back


def _on_tick(signum: int, frame: FrameType | None) -> None:
    """Stop the bot past its deadline where it is (again at each tick, should it swallow
    Overran), unless the tick landed in the seat's own code, which must run on."""
    if _Watch.deadline and time.monotonic() > _Watch.deadline and frame is not None and \
            frame.f_code not in OWN_CODE:
        raise Overran


def bounded(seconds: float, call: Callable[..., T], *args: Any) -> T:
    """``call(*args)``, stopped by :class:`Overran` about ``seconds`` on, where a timer can
    interrupt it (the main thread of a process: a pool worker, ``arena play``); elsewhere
    (a Dask worker's thread) unbounded."""
    if not _Watch.ticking:
        if threading.current_thread() is not threading.main_thread():
            return call(*args)
        _Watch.caller = (signal.getsignal(signal.SIGALRM),
                         signal.getitimer(signal.ITIMER_REAL), time.monotonic())
        signal.signal(signal.SIGALRM, _on_tick)
        signal.setitimer(signal.ITIMER_REAL, TICK_S, TICK_S)
        _Watch.ticking = True
    _Watch.deadline = time.monotonic() + seconds
    try:
        return call(*args)
    finally:
        _Watch.deadline = 0.0


def stop_watch() -> None:
    """Stop the ticks once a game's trusted bots are done (a forked child has none), and
    give the caller back its SIGALRM handler and timer: ``api.play`` left a script's alarm
    cancelled and its handler replaced. An alarm due meanwhile goes off at once."""
    if _Watch.ticking:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _Watch.ticking = False
        if _Watch.caller is not None:
            handler, (left, every), since = _Watch.caller
            _Watch.caller = None
            signal.signal(signal.SIGALRM, signal.SIG_DFL if handler is None else handler)
            if left:
                due = left - (time.monotonic() - since)
                signal.setitimer(signal.ITIMER_REAL, max(due, 1e-6), every)


def _forget_ticks() -> None:
    """A forked child has no timer of its parent's: the next call starts its own."""
    _Watch.ticking, _Watch.deadline, _Watch.caller = False, 0.0, None


os.register_at_fork(after_in_child=_forget_ticks)
OWN_CODE = {bounded.__code__}


class InProcessSeat:
    """A trusted bot called directly: fast, but it shares this process. What it raises is
    appended to its stderr log, as an isolated bot's traceback would be; one still busy
    ``grace_ms`` past its clock is stopped and started again, as an isolated one is."""

    def __init__(self, spec: BotSpec, *, stderr: Path | None = None,
                 limits: Limits | None = None) -> None:
        self.spec = spec
        self.limits = limits or Limits()
        self.bot: Bot | None = None
        self.info: GameInfo | None = None
        self.out = None if stderr is None else BotLog(stderr, self.limits.stderr_bytes)
        self.start_error = ""

    def start(self, info: GameInfo) -> str | None:
        """Make the game's bot instance; a fault kind if it cannot start."""
        self.info = info
        try:
            self.bot = self._run(self.limits.startup_ms / 1000, self._made, info)
        except Overran:
            self.bot = None
            self.start_error = self._note(f"stopped: still starting after "
                                          f"{self.limits.startup_ms} ms (limits.startup_ms)")
            return "crash"
        except BOT_FAILURES as exc:
            self.bot = None
            self.start_error = first_error_line(self._log(exc))
            return "crash"
        return None

    def _run(self, seconds: float, call: Callable[..., T], *args: Any) -> T:
        """``bounded``, with what the bot prints going to its log, as an isolated bot's
        does (it went to arena run's stdout, into a csv or json leaderboard)."""
        if self.out is None:
            return bounded(seconds, call, *args)
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = self.out
        try:
            return bounded(seconds, call, *args)
        finally:
            sys.stdout, sys.stderr = saved

    def _made(self, info: GameInfo) -> Bot:
        bot = self.spec.make()
        call_hook(bot, "start_game", info)
        return bot

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
        decide = self.bot.draw if view.decision == "draw" else self.bot.play
        start = time.perf_counter()
        try:
            answer = self._run((limit_ms + self.limits.grace_ms) / 1000, decide, view)
        except Overran:
            return self._stopped(start)
        except BOT_FAILURES as exc:
            return Answer(None, "crash", (time.perf_counter() - start) * 1000, self._log(exc))
        elapsed = (time.perf_counter() - start) * 1000
        return Answer(None, "timeout", elapsed) if elapsed > limit_ms else \
            Answer(answer, None, elapsed)

    def _stopped(self, start: float) -> Answer:
        """A timeout for a bot stopped in its decision, started again for the next (its
        state, cut midway, cannot be trusted), as an isolated bot is."""
        elapsed = (time.perf_counter() - start) * 1000
        why = (f"the bot was stopped: still busy {self.limits.grace_ms} ms past its clock "
               "(grace_ms), stuck in a decision; started again")
        self._note(why)
        if self.info is not None and self.start(self.info) is not None:
            return Answer(None, "timeout", elapsed, why, dead=True)
        return Answer(None, "timeout", elapsed, why)

    def notify(self, hook: str, arg: RoundSummary | tuple[int, ...]) -> str | None:
        """An end-of-round or end-of-game hook; a fault kind if it raised."""
        try:
            self._run(self.limits.grace_ms / 1000, call_hook, self.bot, hook, arg)
        except Overran:
            self._note(f"the bot was stopped: {hook} still busy after {self.limits.grace_ms} "
                       "ms (grace_ms); started again")
            if self.info is not None:
                self.start(self.info)
            return "timeout"
        except BOT_FAILURES as exc:
            self._log(exc)
            return "crash"
        return None

    def _log(self, exc: BaseException) -> str:
        """The traceback, appended to the bot's stderr log (if it has one) and returned."""
        return self._note(bots_story(exc))

    def _note(self, text: str) -> str:
        """Append to the bot's stderr log (if it has one); the text."""
        if self.out is not None:
            self.out.write(text if text.endswith("\n") else text + "\n")
        return text

    def launch(self) -> None:
        """Nothing to start: the bot lives in this process."""

    def ended(self, deadline: float) -> str | None:
        """Its game ended with the end_game hook: nothing to wait for."""
        return None

    def stop(self) -> None:
        """Nothing runs on after its game."""

    def close(self) -> None:
        """Stop the deadline's ticks, close the log."""
        stop_watch()
        if self.out is not None:
            self.out.close()


def within_cap(data: bytes, kept: int, cap: int) -> bytes:
    """What of ``data`` a bot's log takes when it holds ``kept`` bytes of at most ``cap``,
    with a last line when this crosses the cap (both kinds of seat keep their logs so)."""
    if kept >= cap:
        return b""
    if kept + len(data) < cap:
        return data
    return data[:cap - kept] + (f"\n[arena: this log reached limits.stderr_bytes ({cap} "
                                "bytes); what the bot wrote after that is dropped]\n").encode()


class BotLog:
    """A trusted bot's stderr log as its ``sys.stdout`` and ``sys.stderr``: opened at the
    first write (a bot that says nothing leaves no file), kept to ``cap`` bytes as an
    isolated bot's is, with a line that says when the rest was dropped."""

    def __init__(self, path: Path, cap: int) -> None:
        self.path, self.cap = path, cap
        self.file: Any = None
        self.kept = 0

    def write(self, text: str) -> int:
        if self.file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.file = self.path.open("ab", buffering=0)  # lines of two workers whole
            self.kept = self.file.seek(0, os.SEEK_END)
        data = text.encode("utf-8", "backslashreplace")
        if kept := within_cap(data, self.kept, self.cap):
            self.file.write(kept)
        self.kept += len(data)
        return len(text)

    def flush(self) -> None:
        if self.file is not None:
            self.file.flush()

    def isatty(self) -> bool:
        return False

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None
        self.bot = None
