"""The three exceptions of the arena; each message names the offending input."""

from __future__ import annotations

import reprlib
from typing import Any

_SHORT = reprlib.Repr()  # for messages: long strings, big or deep containers cut short
_SHORT.maxlevel, _SHORT.maxdict, _SHORT.maxlist, _SHORT.maxtuple, _SHORT.maxset = 2, 4, 6, 6, 6
_SHORT.maxstring, _SHORT.maxlong, _SHORT.maxother = 60, 40, 60


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
