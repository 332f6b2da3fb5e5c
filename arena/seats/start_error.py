"""What a bot that did not start said of it, in one line: the first line of its own error
(a Python traceback's root cause, a JavaScript stack's error), else what it printed in place
of its ready, else that it was not ready in time. ``arena validate`` and the referee's log
(a seat that does not start during a tournament) say it alike."""

from __future__ import annotations

import re
from pathlib import Path

from arena.errors import printable

TRACEBACK = "Traceback (most recent call last):"
# our own exception names and the sandbox wrapper's name say nothing to a user
OWN_PREFIXES = ("arena.errors.BadInput: ", "arena.seats.sandbox: error: ")
# a warning printed before the failure (the arena's own, Python's, Node's) is not its reason
WARNING = re.compile(r"^(arena: warning: |\S.*:\d+: \w*Warning: "
                     r"|\(node:\d+\) (\[\w+\] )?\w*Warning: |\(Use `node --trace-)")

STDOUT_IS_THE_PROTOCOLS = "stdout carries the protocol's messages alone, write anything else " \
    "to stderr"  # said to a command bot that printed there


def why_not_started(text: str, timed_out: bool, wrote: str = "", *, command: bool = False,
                    kept: bool = True) -> str:
    """The first line of the bot's own error, from what it wrote to its stderr (``text``;
    ``kept`` False: its stderr went nowhere); else what it wrote to stdout in place of its
    ready (a print: stdout is the protocol's); else whether it ran out of
    ``limits.startup_ms``."""
    line = first_error_line(text)
    if line:
        return line
    if wrote:
        said = printable(wrote)
        return said if STDOUT_IS_THE_PROTOCOLS in said else f"{said}; {STDOUT_IS_THE_PROTOCOLS}"
    if timed_out:
        flush = " (a command bot must flush each line it writes, as print(..., flush=True) " \
            "does)" if command else ""
        return f"it did not say ready in time (limits.startup_ms){flush}"
    if not kept:
        return "it exited or answered without saying ready (its stderr is not kept: no logs)"
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
