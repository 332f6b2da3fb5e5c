"""The three exceptions of the arena; each message names the offending input."""

from __future__ import annotations


class ArenaError(Exception):
    """Base of every error the arena raises on purpose."""


class BadInput(ArenaError, ValueError):
    """Input that is not what was expected: cards, options, configs, arguments (exit code 2)."""


class IllegalAction(ArenaError):
    """A bot's answer that breaks a rule; ``rule`` is the RULES.md ID it breaks."""

    def __init__(self, message: str, *, rule: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.reason = message
