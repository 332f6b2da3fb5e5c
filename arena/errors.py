"""The three exceptions of the arena; each message names the offending input."""

from __future__ import annotations

import reprlib
from typing import Any

_SHORT = reprlib.Repr()  # for messages: long strings, big or deep containers cut short
_SHORT.maxlevel, _SHORT.maxdict, _SHORT.maxlist, _SHORT.maxtuple, _SHORT.maxset = 2, 4, 6, 6, 6
_SHORT.maxstring, _SHORT.maxlong, _SHORT.maxother = 60, 40, 60


def printable(text: str) -> str:
    """Text a bot chose, safe on a terminal and in a log line: each character that is not
    printable (controls such as ESC and CR, line breaks, format characters such as a
    right-to-left override) is written as its escape, as ``repr`` writes it, so that it
    can neither act on the terminal nor forge a line, and is still seen."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def logged_lines(text: str) -> str:
    """Lines (a traceback) safe in a log: each one :func:`printable`, the breaks kept."""
    return "\n".join(printable(line) for line in text.rstrip("\n").split("\n"))


def shown(value: Any) -> str:
    """The offending input's repr, cut short enough for a one-line message."""
    return _SHORT.repr(value)


class ArenaError(Exception):
    """Base of every error the arena raises on purpose."""


class BadInput(ArenaError, ValueError):
    """Input that is not what was expected: cards, options, configs, arguments (exit code 2)."""


class IllegalAction(ArenaError):
    """A bot's answer that breaks a rule; ``rule`` is the rule ID (docs/rules.md) it breaks."""

    def __init__(self, message: str, *, rule: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.reason = message


def counted(n: int, noun: str) -> str:
    """``1 game``, ``2 games``: "1 workers" read as a slip of the arena."""
    return f"{n} {noun}{'' if n == 1 else 's'}"
