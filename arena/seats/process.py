"""A bot in its own OS process, spoken to in JSON lines, under resource limits: started
through the sandbox wrapper, its stderr drained into its log, restarted when it dies or
stays silent, stopped with everything it started."""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import orjson

from arena.engine.view import RoundSummary, View
from arena.seats.bot import BotSpec, GameInfo, bot_import_path
from arena.seats.protocol import HOST_ENDED, encode_line, encode_summary, encode_view, hello
from arena.seats.sandbox import (
    cgroup_cpu_seconds,
    cgroup_processes,
    kill_cgroups,
    new_seat_cgroups,
    new_workdir,
)
from arena.seats.seat import Answer, Confinement, Limits, within_cap
from arena.seats.start_error import STDOUT_IS_THE_PROTOCOLS, why_not_started

MAX_TREE = 256  # processes read to add up a bot's CPU without a cgroup (its cap is 64)
STALE_LINES = 1000  # late replies skipped while waiting for one answer, at most
ENDED_S = 0.2  # for the exit status of a bot whose output ended mid-decision
WORD_S = 0.2  # for a host's word after end_game once the seats before it took the wait
HOST_POLL_S = 0.01  # while the host's word is read but its game child not yet gone
HOST_MODULE = "arena.seats.host"  # run as python -m HOST_MODULE (host_command)
HOST_DEPTH = 3  # processes above the host: the sandbox, confinement's two waiting parents
DRAIN_WAIT_S = 5.0  # for the rest of a killed bot's stderr to reach its log
KILL_WAIT_S = 5.0  # for a killed seat's processes to be dead


class ProcessSeat:
    """A bot in its own OS process, spoken to in JSON lines, under resource limits."""

    def __init__(self, command: Sequence[str], *, limits: Limits, stderr: Path | None = None,
                 env: Mapping[str, str] | None = None,
                 confinement: Confinement | None = None,
                 new_process_each_game: bool = False) -> None:
        self.command = list(command)
        self.confinement = confinement
        self.ready_by = 0.0
        self.new_process_each_game = new_process_each_game  # (the Python host forks instead)
        self.played = False
        self.limits = limits
        self.stderr_path = stderr
        self.env = dict(env or {})
        self.proc: subprocess.Popen[bytes] | None = None
        self.workdir: str | None = None
        self.cgroups: list[Path] = []
        self.buffer = b""
        self.overlong = False  # the line being read was refused as too long
        self.unread = ""  # what the last unreadable line said, for the log
        self.start_error = ""  # why the last start failed, for the log
        self.log_mark = 0  # the size of its stderr log when its last start began
        self.next_id = 0
        self.misread: set[int] = set()  # requests a stray line answered: their replies late
        self.owed: set[int] = set()  # requests given up on (timeouts): their late replies
        self.answered: set[int] = set()  # requests answered this game: a second reply to
        # one is a stray line, and the reply it stands before is then late
        self.game_first_id = 1
        self.stale: float | None = None  # when an unanswered request passed its grace
        self.restarted = False  # started again after a crash; its ready not yet read
        self.drainer: threading.Thread | None = None  # copies its stderr into the log
        self.info: GameInfo | None = None
        self.sent_history = 0
        self.sent_round = 0
        self.cpu_start = 0.0
        self.cpu_checked = 0.0

    # ---------------------------------------------------------------- process life

    def _spawn(self) -> None:
        self.workdir = new_workdir()
        self.cgroups = new_seat_cgroups(self.limits.processes, self.limits.memory_mb << 20)
        wrapper = [sys.executable, "-m", "arena.seats.sandbox",
                   "--memory", str(self.limits.memory_mb << 20),
                   "--files", str(self.limits.stderr_bytes),
                   "--processes", str(self.limits.processes)]
        for group in self.cgroups:
            wrapper += ["--cgroup", str(group)]
        if self.confinement is not None:
            wrapper += self.confinement.arguments()
        err = subprocess.DEVNULL
        if self.stderr_path is not None:  # a pipe: the bot cannot reopen (or erase) the log
            self.stderr_path.parent.mkdir(parents=True, exist_ok=True)
            drain, err = os.pipe()
        env = {**bot_environment(os.environ, home=self.workdir), **self.env}
        self.proc = subprocess.Popen([*wrapper, "--", *self.command], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=err, cwd=self.workdir,
                                     env=env, start_new_session=True)
        if self.stderr_path is not None:
            os.close(err)
            self.drainer = threading.Thread(
                target=drain_into, args=(drain, self.stderr_path, self.limits.stderr_bytes),
                name=f"stderr of {self.stderr_path.name}", daemon=True)
            self.drainer.start()
        os.set_blocking(self.proc.stdout.fileno(), False)  # type: ignore[union-attr]
        os.set_blocking(self.proc.stdin.fileno(), False)  # type: ignore[union-attr]
        self.buffer = b""
        self.overlong = False
        self.owed = set()
        self.misread = set()
        self.answered = set()
        self.stale = None

    def _kill(self) -> None:
        if self.proc is not None:
            alive = self.proc.returncode is None  # not reaped: its pid is still its own
            doomed = _handles(_tree(self.proc.pid)) if alive else []
            try:
                with contextlib.suppress(OSError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                _kill_all(doomed)  # those that left the process group too
                self.proc.wait()
                kill_cgroups(self.cgroups)
                left = _await_deaths(doomed, time.monotonic() + KILL_WAIT_S)
            finally:
                for fd in doomed:
                    os.close(fd)
            if left:
                self._note(f"killed, yet {left} of its processes still alive "
                           f"{KILL_WAIT_S:g} s later")
            for pipe in (self.proc.stdin, self.proc.stdout):
                if pipe is not None:
                    pipe.close()
        if self.drainer is not None:  # all it wrote is in its log once the seat is closed
            self.drainer.join(timeout=DRAIN_WAIT_S)
            self.drainer = None
        self.proc = None
        self.cgroups = []
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None

    def _relaunch(self) -> None:
        """After a crash, start again at once and read the ready at its next decision, so a
        bot that keeps crashing does not make the table wait for each of its starts."""
        self._kill()
        if self.info is not None and self.begin(self.info) is None:
            self.restarted = True

    def _restart(self) -> str | None:
        """Kill and start again with this game's start message (the bot's memory is lost)."""
        self._kill()
        return self.start(self.info) if self.info is not None else None

    def stop(self) -> None:
        """Stop the process now, unasked (a forfeited bot's game is not waited for); the
        next game starts it again."""
        self._kill()

    def close(self) -> None:
        """Ask the bot to quit, then make sure it and its children are gone."""
        if self.proc is not None and self.proc.poll() is None:
            self._send({"type": "quit"})
        self._kill()

    # ---------------------------------------------------------------- messages

    def _send(self, message: Mapping[str, Any], timeout_s: float = 2.0) -> bool:
        """Write one message; False if the bot is gone or has not read its input in time
        (a bot that never reads must not block the referee on a full pipe)."""
        assert self.proc is not None and self.proc.stdin is not None
        data = encode_line(message)
        fd = self.proc.stdin.fileno()
        deadline = time.monotonic() + timeout_s
        try:
            while data:
                try:
                    data = data[os.write(fd, data):]
                except BlockingIOError:
                    left = deadline - time.monotonic()
                    if left <= 0 or not select.select([], [fd], [], left)[1]:
                        return False
            return True
        except OSError:
            return False

    def _read_line(self, deadline: float) -> bytes | str:
        """The next reply line, or a fault kind: timeout, crash (EOF) or unreadable."""
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        looked = False  # past the deadline: one look at what is already in the pipe
        while self._skip_overlong() or b"\n" not in self.buffer:
            if len(self.buffer) > self.limits.line_bytes:
                self.buffer, self.overlong = b"", True  # the rest of that line is dropped
                return self._unreadable(f"a line past {self.limits.line_bytes} bytes")
            left = max(0.0, deadline - time.monotonic())
            if looked or not select.select([fd], [], [], left)[0]:  # never there at once
                return "timeout"  # output without end holds no one past its deadline
            looked = left == 0
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                continue
            if not chunk:
                return "crash"
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        if len(line) > self.limits.line_bytes:
            return self._unreadable(f"a line past {self.limits.line_bytes} bytes")
        return line

    def _skip_overlong(self) -> bool:
        """Drop what is left of a line already refused as too long; True while its end has
        not arrived (the bot's next replies are then read as they come)."""
        if self.overlong:
            end = self.buffer.find(b"\n")
            self.buffer = b"" if end < 0 else self.buffer[end + 1:]
            self.overlong = end < 0
        return self.overlong

    def _reply(self, request_id: int | None, deadline: float) -> dict[str, Any] | str:
        """The next message that is not a late reply (``request_id`` None: the ready
        message); only the replies of requests given up on are late, so a reply with any
        other id is returned for ``ask`` to refuse at once, not waited past."""
        for _ in range(STALE_LINES + 1):
            line = self._read_line(deadline)
            if isinstance(line, str):
                return line
            try:
                msg = orjson.loads(line)
            except (ValueError, RecursionError) as exc:  # any bytes, any nesting: a fault
                return self._unreadable(_unread(_not_json(exc), line))
            if not isinstance(msg, dict):
                return self._unreadable(_unread(NOT_JSON, line))
            if msg.get("type") == HOST_ENDED:  # the game child exited
                if request_id is not None:
                    return "crash"  # mid-game, whatever status it gave: its game is gone
                continue  # before a ready: the word on a game already over
            if self._late(msg.get("id")):  # the answer to a request already given up on
                if time.monotonic() > deadline:
                    return "timeout"
                continue
            if request_id is None:
                return msg if msg.get("type") == "ready" else \
                    self._unreadable(f"a line that is not the ready message: {_said(line)}")
            return msg
        return self._unreadable(f"more than {STALE_LINES} late replies in a row")

    def _unreadable(self, why: str) -> str:
        """The fault kind of a line that is no reply, noting why for the log."""
        self.unread = why
        return "unreadable"

    def _late(self, reply_id: object) -> bool:
        """Whether ``reply_id`` is that of a request given up on (then no longer owed)."""
        number = _id_number(reply_id)
        if number in self.misread:
            self.misread.discard(number)
            return True
        if number is None or number not in self.owed:
            return False
        self.owed.discard(number)
        if not self.owed:
            self.stale = None  # every request given up on is answered: no longer silent
        return True

    # ---------------------------------------------------------------- the seat interface

    def launch(self) -> None:
        """Start the process if it is not running, or if it has played a game and must not
        remember it; without waiting for it (seats start in parallel)."""
        if self.proc is None or self.proc.poll() is not None or \
                (self.played and self.new_process_each_game):
            self._kill()
            self._spawn()
            self.played = False

    def start(self, info: GameInfo | None) -> str | None:
        """Start (or reuse) the process for a new game; a fault kind if it does not answer."""
        fault = self.begin(info)
        return fault if fault is not None else self.ready()

    def begin(self, info: GameInfo | None) -> str | None:
        """Send the start of a game without waiting for ``ready`` (the referee starts every
        seat, then waits for them all: a game child's fork overlaps the others')."""
        self.info = info
        self.log_mark = _size(self.stderr_path)
        self.misread = {i for i in self.misread if i >= self.game_first_id}
        self.owed = {i for i in self.owed if i >= self.game_first_id}  # the last game's
        self.answered = set()
        self.game_first_id = self.next_id + 1
        self.sent_history = 0
        self.restarted = False
        self.launch()
        self.played = True
        assert info is not None and self.proc is not None
        self.cpu_start = self.cpu_seconds()
        self.ready_by = time.monotonic() + self.limits.startup_ms / 1000
        if not self._send(hello(info)):
            self._kill()
            self.start_error = "it did not read the start of its game"
            return "crash"
        return None

    def ready(self) -> str | None:
        """Wait for the ``ready`` of the game begun; a fault kind if it does not come."""
        reply = self._reply(None, self.ready_by)
        if isinstance(reply, str) or reply.get("type") != "ready":
            self._kill()  # its stderr is then all in its log
            self.start_error = why_not_started(
                _read_from(self.stderr_path, self.log_mark), reply == "timeout",
                self.unread if reply == "unreadable" else "",
                command=self.new_process_each_game, kept=self.stderr_path is not None)
            return "crash" if reply in ("crash", "timeout") else "unreadable"
        return None

    def ask(self, view: View, limit_ms: int) -> Answer:
        """Send the decision request and wait for its reply, at most ``limit_ms``."""
        if self.restarted:  # started again when it crashed: its start overlapped the others'
            self.restarted = False
            began = time.monotonic()
            fault = self.ready()
            if fault is not None or self.proc is None:
                return Answer(None, fault or "crash", (time.monotonic() - began) * 1000,
                              self._not_again(), dead=True)
        elif self._wait_out_stall() or self.proc is None or self.proc.poll() is not None \
                or self._overdue():
            lost = self._lost()  # died, or stopped silent past its grace: a crash
            began = time.monotonic()
            if lost:  # its stderr all in its log, then why: a stopped bot leaves no trace
                self._kill()
                self._note(f"{lost}; started again")
            fault = self._restart()
            waited = (time.monotonic() - began) * 1000
            if fault is not None or self.proc is None:
                return Answer(None, fault or "crash", waited, self._not_again(), dead=True)
            if lost:
                return Answer(None, "crash", waited, f"{lost}; started again")
        self.next_id += 1
        rid = self.next_id
        since = self.sent_history if view.round == self.sent_round else 0
        message = {"id": rid, "type": view.decision, "view": encode_view(view, since)}
        self.sent_round = view.round
        start = time.monotonic()
        if not self._send(message):
            self._kill()
            return Answer(None, "crash", 0.0)
        self.sent_history = len(view.history)
        reply = self._reply(rid, start + limit_ms / 1000)
        elapsed = (time.monotonic() - start) * 1000
        if isinstance(reply, str):
            if reply == "timeout":
                self.owed.add(rid)
                if self.stale is None:  # grace runs from the oldest miss still unanswered
                    self.stale = time.monotonic() + self.limits.grace_ms / 1000
            elif reply == "crash":
                why = self._ended()
                self._relaunch()
                return Answer(None, reply, elapsed, why)
            elif reply == "unreadable":  # a stray line (a print to stdout) took the place of
                self.misread.add(rid)  # the reply: its answer is late, and the later
                # replies are not read one request behind
                return Answer(None, reply, elapsed, self.unread)
            return Answer(None, reply, elapsed)
        self.stale = None
        number = _id_number(reply.get("id"))
        if number != rid:
            if number in self.answered:  # a reply sent twice: this request's reply comes
                self.misread.add(rid)  # next and is late, not read one request behind
                return Answer(None, "unreadable", elapsed,
                              f"its reply carries id {number}, a request answered already "
                              f"(a reply sent twice?); expected {rid}")
            if number is None:  # a stray object (a debugging print of JSON): the reply it
                self.misread.add(rid)  # stands before is late, as after a stray text line
            return Answer(None, "unreadable", elapsed,
                          f"its reply carries id {_shown(reply.get('id'))}; expected {rid}, "
                          f"the id of the request it answers")
        self.answered.add(rid)
        if "error" in reply:
            error = reply["error"]
            return Answer(None, "crash", elapsed, error if isinstance(error, str) else
                          _json_text(error))
        action = reply.get("action")
        if not isinstance(action, str):
            told = reply.get("why")  # a Python bot's host says why, not its wire's JSON
            said = told if action is None and isinstance(told, str) else _json_text(reply)
            return Answer(None, "unreadable", elapsed,
                          f"its reply has no action text: {_said(said.encode())}")
        return Answer(action, None, elapsed)

    def _note(self, text: str) -> None:
        """A line of the arena's in the bot's log, where its author looks first (within the
        log's cap, as the bot's own lines)."""
        line = f"arena: {text}\n".encode()
        if self.stderr_path is None or _size(self.stderr_path) + len(line) > \
                self.limits.stderr_bytes:
            return
        with contextlib.suppress(OSError), self.stderr_path.open("ab") as log:
            log.write(line)

    def _not_again(self) -> str:
        """Why a bot started again mid-game is lost to it, for the log."""
        return f"the bot did not start again: {self.start_error}" if self.start_error else \
            "the bot did not start again"

    def _ended(self) -> str:
        """Why a reply cannot come (its output ended): the bot died, with its exit status,
        or it closed its output and lives on."""
        assert self.proc is not None
        try:
            status = self.proc.wait(timeout=ENDED_S)
        except subprocess.TimeoutExpired:
            return "the bot closed its output"
        return f"the bot died (exit status {status})"

    def _lost(self) -> str:
        """Why the bot's process is being started again: it died, or it was stopped (its
        log then holds no traceback to look for); empty when it had not started."""
        if self.proc is None:
            return ""
        status = self.proc.poll()
        if status is not None:
            return f"the bot had died (exit status {status})"
        if self.stale is not None:
            return (f"the bot was stopped: still silent {self.limits.grace_ms} ms past its "
                    "clock (grace_ms), stuck in a decision")
        return f"the bot was stopped: past its CPU time (cpu_s_per_game, " \
            f"{self.limits.cpu_s_per_game} s)"

    def _wait_out_stall(self) -> bool:
        """Wait, up to its grace, for a bot still on a request it timed out on before it is
        asked again, as a trusted bot is waited for: asked meanwhile it could not answer,
        and one stall of a few clocks cost a timeout a decision, five in a row a forfeit,
        where in process it cost one. Its late reply is dropped. Always False: a bot still
        stalled past its grace, or dead, is for the checks after it (_overdue restarts it)."""
        while self.stale is not None and self.proc is not None:
            line = self._read_line(self.stale)
            if isinstance(line, str):  # its grace spent (_overdue restarts it), or it died
                break
            with contextlib.suppress(ValueError, RecursionError):
                msg = orjson.loads(line)
                if isinstance(msg, dict):
                    self._late(msg.get("id"))  # the last one owed: no longer stale
        return False

    def _overdue(self) -> bool:
        """A request still unanswered past its grace period, or the game's CPU spent."""
        assert self.proc is not None
        if self.stale is not None and time.monotonic() > self.stale:
            if self._drain():
                self.stale = None
            else:
                return True
        now = time.monotonic()
        if now < self.cpu_checked + 0.5:  # /proc is read at most twice a second
            return False
        self.cpu_checked = now
        return self.cpu_seconds() - self.cpu_start > self.limits.cpu_s_per_game

    def cpu_seconds(self) -> float:
        """CPU seconds of the bot and every process it started: its cgroup, else
        the processes below the one the referee started (0 while none runs)."""
        if self.proc is None:
            return 0.0
        group = cgroup_cpu_seconds(self.cgroups)
        return _cpu_seconds(self.proc.pid) if group is None else group

    def _drain(self) -> bool:
        """Drop late replies already waiting; True if the bot has answered since."""
        answered = False
        for _ in range(STALE_LINES):
            line = self._read_line(time.monotonic())
            if isinstance(line, str):
                return answered and line == "timeout"
            answered = True
        return False  # still writing: a flood, not a late answer

    def ended(self, deadline: float) -> str | None:
        """After end_game, the Python host's word that the game's child exited; without it
        by ``deadline``, a timeout fault, and the process is stopped (the child still
        reads this seat's input: the next game's start must not reach it). A bot still on
        a decision it timed out on (counted already) is stopped at once; a command bot's
        process simply ends with its game."""
        if self.new_process_each_game or self.proc is None:
            return None
        if self.stale is not None:  # still deciding past its deadline: nothing to wait for
            self._kill()
            return None
        if self.proc.poll() is not None:  # the host ended with the game, before its word
            self._kill()  # could be read: its child failed end_game, or the game left
            return "crash"  # something it could not clear (the host's own end, EOF alike)
        deadline = max(deadline, time.monotonic() + WORD_S)  # a word already sent is read
        word = False  # the host's word came (perhaps forged by the game's child)
        for _ in range(STALE_LINES + 1):
            line = self._read_line(deadline)
            if line == "crash" and not word:  # the host gave up the game, no word said:
                self._kill()  # end_game raised in the child
                return "crash"
            if isinstance(line, str):
                break
            with contextlib.suppress(ValueError, RecursionError):
                msg = orjson.loads(line)
                if isinstance(msg, dict) and msg.get("type") == HOST_ENDED:
                    word = True
                    if self._host_alone(deadline):
                        return None
        self._kill()
        return "timeout"

    def _host_alone(self, deadline: float) -> bool:
        """Whether the host is all that is left of the seat, by ``deadline``: the game's
        child writes on the same pipe and could send the host's word itself, then read the
        next game's start with the last one still in its memory."""
        assert self.proc is not None
        while not host_alone(self.proc.pid, cgroup_processes(self.cgroups)):
            if time.monotonic() > deadline:
                return False
            time.sleep(HOST_POLL_S)
        return True

    def notify(self, hook: str, arg: RoundSummary | tuple[int, ...]) -> str | None:
        """End of round or game: sent without waiting for an answer."""
        if self.proc is None or self.proc.poll() is not None:
            return None
        msg = encode_summary(arg) if isinstance(arg, RoundSummary) else \
            {"type": "end_game", "totals": list(arg)}
        return None if self._send(msg) else "crash"


def _id_number(reply_id: object) -> int | None:
    """A reply's id as a request number: a JSON number of whole value (1.0 is 1); None for
    anything else, a boolean too, which Python would count as 1."""
    if isinstance(reply_id, bool):
        return None
    if isinstance(reply_id, float):
        return int(reply_id) if reply_id.is_integer() else None
    return reply_id if isinstance(reply_id, int) else None


def _said(line: bytes) -> str:
    """A line a bot wrote, quoted by its first 200 bytes (the referee escapes it); it comes
    last in a log line, where the cut to LOGGED_CHARS takes the bot's words, not ours."""
    text = line[:200].decode("utf-8", "replace")
    return repr(text) + ("..." if len(line) > 200 else "")


def _not_json(exc: Exception) -> str:
    """Why a line is no reply: valid JSON nested past the reader's depth limit is not
    the same mistake as text that is no JSON at all."""
    if "depth limit" in str(exc) or isinstance(exc, RecursionError):
        return "JSON nested deeper than the referee reads (1024 levels)"
    return NOT_JSON


NOT_JSON = "a line that is not a JSON object"


def _unread(why: str, line: bytes) -> str:
    """Why a line is no reply, and the line; for text that is no JSON object (a debugging
    print), what to do instead."""
    hint = f"; {STDOUT_IS_THE_PROTOCOLS}" if why == NOT_JSON else ""
    return f"{why}: {_said(line)}{hint}"


def _shown(value: object) -> str:
    """A bot's id as JSON would spell it, cut short: the log quotes what it sent."""
    text = _json_text(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _json_text(value: object) -> str:
    """A value a bot sent, as JSON text, whatever it holds: orjson reads arrays nested
    1024 deep but writes only 255 levels, and Python's repr stops sooner; either raising
    here crashed the referee, where the bot deserves a fault."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # nested too deep to write
        return f"<a JSON {type(value).__name__} nested too deep to quote>"


def _size(log: Path | None) -> int:
    """The size of a log file (0 when there is none yet)."""
    try:
        return 0 if log is None else log.stat().st_size
    except OSError:
        return 0


def _read_from(log: Path | None, offset: int, most: int = 1 << 16) -> str:
    """What a log gained past ``offset`` (its first ``most`` bytes): this start's words."""
    if log is None:
        return ""
    try:
        with log.open("rb") as text:
            text.seek(offset)
            return text.read(most).decode("utf-8", "replace")
    except OSError:
        return ""


def drain_into(pipe: int, log: Path, cap: int) -> None:
    """Append what a bot process writes to its stderr to its log, the log kept to ``cap``
    bytes whatever the processes that wrote it (a bot crashing at every decision grew it by
    the cap at each restart); the rest is read and dropped, so the bot never blocks on a
    full pipe, and a line at the end says so."""
    out: IO[bytes] | None
    try:
        out = log.open("ab", buffering=0)
    except OSError:
        out = None  # no log: still drained
    kept = os.fstat(out.fileno()).st_size if out is not None else 0
    try:
        while chunk := os.read(pipe, 1 << 16):
            if out is not None and (taken := within_cap(chunk, kept, cap)):
                out.write(taken)
            kept += len(chunk)
    except OSError:
        pass
    finally:
        os.close(pipe)
        if out is not None:
            out.close()


PASSED_ON = ("PATH", "LANG", "LANGUAGE", "TZ", "TERM",
             "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")  # numerical libraries need these on
# some processors; nothing here is a secret of the organiser's


def bot_environment(organiser: Mapping[str, str], *, home: str | None) -> dict[str, str]:
    """What a bot process inherits of the organiser's environment: the few variables a
    program needs to run, never the rest (tokens, keys, paths of the organiser's files).

    >>> bot_environment({"PATH": "/usr/bin", "LC_ALL": "C", "API_TOKEN": "s3cret"}, home="/w")
    {'PATH': '/usr/bin', 'LC_ALL': 'C', 'HOME': '/w'}
    """
    kept = {k: v for k, v in organiser.items() if k in PASSED_ON or k.startswith("LC_")}
    return {**kept, **({"HOME": home} if home else {})}


def _cpu_seconds(root: int) -> float:
    """User plus system CPU time of a process and of every process below it, living or
    reaped, from /proc (0 where unavailable). Without a cgroup, the bot is not the
    process the referee started: confined, it is the sandbox's child, and a Python bot's
    game is a child of its host; a bot's orphans stay below it in its PID namespace."""
    ticks = 0
    for pid in _tree(root):
        with contextlib.suppress(ValueError):
            ticks += sum(int(n) for n in _stat(pid)[11:15])  # utime stime cutime cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[bytes]:
    """The fields of /proc/PID/stat after the command's name (state first, then the
    parent's pid); none for a process that is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return []


def _tree(root: int) -> dict[int, int | None]:
    """``root`` and the processes below it (at most MAX_TREE), each with its parent (the
    root's: None), from /proc."""
    todo: list[tuple[int, int | None]] = [(root, None)]
    seen: dict[int, int | None] = {}
    while todo and len(seen) < MAX_TREE:
        pid, parent = todo.pop()
        if pid not in seen:
            seen[pid] = parent
            todo += [(child, pid) for child in _children(pid)]
    return seen


def _handles(tree: Mapping[int, int | None]) -> list[int]:
    """A pidfd for each process of ``tree`` still there: it names that process even once
    its pid is free again, and tells when it has died. A pidfd is kept only if its process
    is still the child of the one it was found below (its pid may have been reused since)."""
    fds = []
    for pid, parent in tree.items():
        try:
            fd = os.pidfd_open(pid)
        except (OSError, AttributeError):  # gone, or no pidfd (Linux before 5.3)
            continue
        if parent is None or _parent(pid) == parent:
            fds.append(fd)
        else:
            os.close(fd)
    return fds


def _parent(pid: int) -> int | None:
    """The parent's pid of a process, from /proc."""
    fields = _stat(pid)
    return int(fields[1]) if len(fields) > 1 else None


def _kill_all(pidfds: Sequence[int]) -> None:
    """SIGKILL to each process, wherever its process group."""
    for fd in pidfds:
        with contextlib.suppress(OSError):
            signal.pidfd_send_signal(fd, signal.SIGKILL)


def _await_deaths(pidfds: Sequence[int], deadline: float) -> int:
    """Wait until every process is dead (a killed process starved of CPU is slow to die,
    and no cgroup may be there to wait on), at most until ``deadline``; how many are not."""
    poller = select.poll()
    for fd in pidfds:
        poller.register(fd, select.POLLIN)
    left = len(pidfds)
    while left and (wait_ms := (deadline - time.monotonic()) * 1000) > 0:
        for fd, _ in poller.poll(wait_ms):
            poller.unregister(fd)
            left -= 1
    return left


def host_alone(root: int, grouped: set[int] | None) -> bool:
    """Whether the Python host below ``root`` (the process the referee started) has no
    process below it: the chain from ``root`` down to it (the sandbox, confinement's
    waiting parents) has one child at each step, and the seat's cgroup, where there is
    one, holds that chain and nothing else."""
    chain, pid = [root], root
    while not _is_host(pid):
        below = _children(pid)
        if len(below) != 1 or len(chain) > HOST_DEPTH:
            return False
        pid = below[0]
        chain.append(pid)
    return not _children(pid) and (grouped is None or grouped <= set(chain))


def _is_host(pid: int) -> bool:
    """Whether the process runs ``python -m arena.seats.host`` (its child, a game, too)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().split(b"\0")[1:3] == [b"-m", HOST_MODULE.encode()]
    except OSError:
        return False


def _children(pid: int) -> list[int]:
    """The pids of a process's children, from each of its threads' list."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found = []
    for tid in threads:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                found += [int(n) for n in f.read().split()]
        except (OSError, ValueError):
            continue
    return found


def host_command(spec: BotSpec) -> list[str]:
    """The command that runs a Python bot under :mod:`arena.seats.host` (from a temporary folder,
    so a bot file's path is made absolute)."""
    where, _, cls = spec.target.rpartition(":")
    target = f"{Path(where).resolve()}:{cls}" if where.endswith(".py") else spec.target
    cmd = [sys.executable, "-m", HOST_MODULE, target, json.dumps(dict(spec.params))]
    return [*cmd, "--path", os.pathsep.join(bot_import_path())]
