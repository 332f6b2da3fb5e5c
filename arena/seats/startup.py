"""Start every bot once, the way its games will start it, before any game is played.

A bot that cannot start would fault at every decision of every game; starting it first gives
one line that names it and quotes its own error instead. With process isolation the bot is
launched confined, through the same host as in a tournament, so nothing of its code runs in
this process, not even to check it.
"""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.engine.game import Game
from arena.errors import BadInput, printable
from arena.seats import confine, sandbox
from arena.seats.bot import BotSpec, GameInfo, own_folder
from arena.seats.make import Isolation, make_seat
from arena.seats.seat import Limits

TRACEBACK = "Traceback (most recent call last):"
MISSING_MODULE = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")
# our own exception names and the sandbox wrapper's name say nothing to a user
OWN_PREFIXES = ("arena.errors.BadInput: ", "arena.seats.sandbox: error: ")
# a warning printed before the failure (the arena's own, Python's, Node's) is not its reason
WARNING = re.compile(r"^(arena: warning: |\S.*:\d+: \w*Warning: "
                     r"|\(node:\d+\) (\[\w+\] )?\w*Warning: |\(Use `node --trace-)")


def start_problems(specs: Sequence[BotSpec], *, variant: type[Game],
                   options: Mapping[str, Any], isolation: Isolation,
                   limits: Limits | None = None, hide: Sequence[Path] = ()) -> list[str]:
    """One line for each bot that does not start (they are started side by side)."""
    limits = limits or Limits()
    unique = list({(s.name, s.target, s.command): s for s in specs}.values())
    info = GameInfo(0, int(options["players"]), variant.version, dict(options), 0)
    with tempfile.TemporaryDirectory(prefix="arena-start-") as logs:
        seats = [make_seat(s, isolation=isolation, limits=limits, stderr_dir=Path(logs),
                           hide=hide) for s in unique]
        try:
            began = time.monotonic()
            faults = [seat.begin(info) for seat in seats]
            faults = [fault or seat.ready() for fault, seat in zip(faults, seats, strict=True)]
            waited_ms = (time.monotonic() - began) * 1000
        finally:
            for seat in seats:
                seat.close()
        return [_problem(spec, _error_line(Path(logs) / f"{spec.name}.stderr.log",
                                           waited_ms >= limits.startup_ms,
                                           getattr(seat, "unread", "") if
                                           fault == "unreadable" else "",
                                           command=spec.command is not None))
                for spec, seat, fault in zip(unique, seats, faults, strict=True)
                if fault is not None]


def check_bots_start(specs: Sequence[BotSpec], **how: Any) -> None:
    """Raise BadInput, one line a bot, if any bot does not start (see start_problems)."""
    problems = start_problems(specs, **how)
    if problems:
        raise BadInput("\n".join(problems))


def _problem(spec: BotSpec, error: str) -> str:
    where = f"{spec.origin}: " if spec.origin else ""
    return f"{where}bot {spec.name!r} cannot start: {error}{_too_wide_hint(spec, error)}"


def _too_wide_hint(spec: BotSpec, error: str) -> str:
    """Why a module beside the bot's file is not found: a file directly in the home folder,
    / or /tmp gets only itself, never the folder (README)."""
    missing = MISSING_MODULE.search(error)
    where = spec.target.rpartition(":")[0] if spec.command is None else ""
    if missing is None or not where.endswith(".py"):
        return ""
    file = Path(where).resolve()
    top = missing.group(1).partition(".")[0]
    if own_folder(file) is not None or not any(
            p.exists() for p in (file.parent / f"{top}.py", file.parent / top)):
        return ""
    return (f" ({top!r} sits beside it in {file.parent}, a folder no bot is given: put the "
            f"bot and its modules in a folder of their own)")


def _error_line(log: Path, timed_out: bool, wrote: str = "", *, command: bool = False) -> str:
    """The first line of the bot's own error, from what it wrote to its stderr; else what
    it wrote to stdout in place of its ready (a print: stdout is the protocol's)."""
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    line = first_error_line(text)
    if line:
        return line
    if wrote:
        return (f"{printable(wrote)}; stdout carries the protocol's messages alone, write "
                "anything else to stderr")
    if timed_out:
        flush = " (a command bot must flush each line it writes, as print(..., flush=True) " \
            "does)" if command else ""
        return f"it did not say ready in time (limits.startup_ms){flush}"
    return "it exited or answered without saying ready, and wrote nothing to stderr"


def first_error_line(text: str) -> str:
    """A Python traceback's exception line (of its root cause); else the first line that
    mentions an error; else the first line (warnings and their source lines passed over,
    control characters dropped, at most 300).

    >>> first_error_line('Traceback (most recent call last):\\n  File "b.py"\\n'
    ...                  '    import numpyy\\nModuleNotFoundError: No module named numpyy\\n')
    'ModuleNotFoundError: No module named numpyy'
    >>> first_error_line("node:internal/loader:1\\n  throw err;\\n\\nError: Cannot find module")
    'Error: Cannot find module'
    >>> first_error_line("b.py:1: DeprecationWarning: old\\n  import imp\\nno seed given\\n")
    'no seed given'
    >>> first_error_line('Traceback (most recent call last):\\n  File "/s/bob.py", line 4\\n'
    ...                  '    def draw(self)\\n                  ^\\nSyntaxError: expected ":"')
    'SyntaxError: expected ":" (bob.py, line 4)'
    """
    lines = _without_warnings([_printable(line) for line in text.splitlines()])
    if TRACEBACK in lines:  # the first block: the root cause, where exceptions are chained
        after = lines[lines.index(TRACEBACK) + 1:]
        line = next((x for x in after if not x.startswith(" ")), "")
        line += _where_syntax_fails(line, after)
    else:
        line = next((x for x in lines if "error" in x.lower()), lines[0] if lines else "")
    for prefix in OWN_PREFIXES:
        line = line.removeprefix(prefix)
    return line.strip()[:300]


SYNTAX_ERRORS = ("SyntaxError", "IndentationError", "TabError")
FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)')


def _where_syntax_fails(line: str, block: list[str]) -> str:
    """The file and line of a syntax error (its last frame: the bot's file, never the
    arena's), which its message does not say."""
    if not line.startswith(SYNTAX_ERRORS):
        return ""
    frames = [m for x in block[:block.index(line)] if (m := FRAME.match(x))]
    return f" ({Path(frames[-1]['file']).name}, line {frames[-1]['line']})" if frames else ""


def _without_warnings(lines: list[str]) -> list[str]:
    """The non-blank lines but warnings and the indented lines under them, unless that is
    all there is (then the warning is the best clue left)."""
    lines = [line for line in lines if line.strip()]
    kept: list[str] = []
    in_warning = False
    for line in lines:
        in_warning = bool(WARNING.match(line)) or (in_warning and line.startswith(" "))
        if not in_warning:
            kept.append(line)
    return kept or lines


def _printable(line: str) -> str:
    return "".join(ch for ch in line if ch.isprintable() or ch == "\t")


def guard_line() -> str:
    """What holds an isolated bot on this machine, in one line for ``arena validate``: an
    organiser should learn before a contest, not from a bot, that a guard is missing."""
    why = confine.problem()
    where = "confined (namespaces of their own)" if why is None else f"unconfined ({why})"
    caps = sandbox.seat_caps()
    if not caps:
        limits = ("no cgroup here, so memory_mb caps each process of a bot alone "
                  "(docs/security.md, Known gaps)")
    else:
        shared = [name for name in ("processes", "memory", "CPU") if name.lower() in caps]
        listed = ", ".join(shared[:-1]) + " and " + shared[-1] if len(shared) > 1 else shared[0]
        limits = f"a cgroup each caps a bot's {listed} together"
        if len(shared) < len(sandbox.CAP_FILES):
            limits += "; the rest holds each process alone"
    return f"bots: {where}; {limits}"
