"""The bot interface and loading bots from ``package.module:Class`` or ``path/file.py:Class``.

A bot is any object with ``draw(view)`` and ``play(view)``; each may answer with an action
object or its text (``"stock"``, ``"discard KS"``). Optional hooks: ``start_game(info)``,
``end_round(summary)``, ``end_game(totals)``. One bot instance plays one game.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from arena.actions import Draw, Play
from arena.errors import BadInput
from arena.view import RoundSummary, View


@dataclass(frozen=True, slots=True)
class GameInfo:
    """Told to a bot before the first decision: its seat, the table, and a seed of its own."""

    seat: int
    players: int
    variant: str
    options: Mapping[str, Any]
    seed: int


@runtime_checkable
class Bot(Protocol):
    """What the referee needs from a bot; the hooks are optional."""

    def draw(self, view: View) -> Draw | str: ...

    def play(self, view: View) -> Play | str: ...


@dataclass(frozen=True, slots=True)
class BotSpec:
    """How to make a bot: a name for tables, and a Python class (``target``, with keyword
    ``params``) or a ``command`` that speaks the JSON-lines protocol (docs/protocol.md)."""

    name: str
    target: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)
    command: tuple[str, ...] | None = None
    read: tuple[str, ...] = ()  # more paths the confined bot may read (docs/protocol.md)
    write: tuple[str, ...] = ()  # paths it may write (e.g. a bot that learns across games)
    network: bool = False  # confined bots have no network unless given it

    def make(self) -> Bot:
        """A fresh instance for one game (Python bots only)."""
        if self.command is not None:
            raise BadInput(f"bot {self.name!r} is a command; it runs in its own process")
        instance: Bot = load_class(self.target)(**self.params)
        return instance

    def env(self) -> dict[str, str]:
        """Environment additions for the bot's process: this folder on the import path."""
        paths = [os.getcwd(), *filter(None, os.environ.get("PYTHONPATH", "").split(":"))]
        return {"PYTHONPATH": ":".join(paths)}

    def source_hash(self) -> str:
        """A short hash of the bot's source, so a changed bot is noticed on resume."""
        if self.command is not None:
            files = [Path(a) for a in self.command if Path(a).is_file()]
            source = "\n".join([" ".join(self.command), *(f.read_text(errors="replace")
                                                          for f in files)])
        else:
            cls = load_class(self.target)
            where = self.target.rpartition(":")[0]
            named = sys.modules.get(where) if not where.endswith(".py") else None
            parts = []
            for module in (sys.modules.get(cls.__module__), named):
                try:
                    parts.append(inspect.getsource(module) if module else "")
                except (OSError, TypeError):
                    parts.append(self.target)
            if where.endswith(".py") and Path(where).is_file():
                parts.append(Path(where).read_text(errors="replace"))  # the file the config names
            source = "\n".join(parts)
        return hashlib.sha256(source.encode()).hexdigest()[:16]


_loaded: dict[str, Callable[..., Bot]] = {}


def load_class(target: str) -> Callable[..., Bot]:
    """Import ``package.module:Class`` or ``path/to/file.py:Class`` (cached per process)."""
    if target in _loaded:
        return _loaded[target]
    where, sep, attr = target.rpartition(":")
    if not sep or not where or not attr:
        raise BadInput(f"bad bot {target!r}: expected 'package.module:Class' or 'file.py:Class'")
    try:
        module = _import_file(where) if where.endswith(".py") else importlib.import_module(where)
    except Exception as exc:  # a bot's import may raise anything: report it in one line
        raise BadInput(f"bad bot {target!r}: cannot import {where!r} "
                       f"({type(exc).__name__}: {exc})") from exc
    cls = getattr(module, attr, None)
    if cls is None or not callable(cls):
        raise BadInput(f"bad bot {target!r}: {where!r} has no class {attr!r}")
    for method in ("draw", "play"):
        if not callable(getattr(cls, method, None)):
            raise BadInput(f"bad bot {target!r}: class {attr!r} has no {method}(view) method")
    _loaded[target] = cls
    return cls  # type: ignore[no-any-return]


def _import_file(path: str) -> Any:
    """Import a bot from a file path, under a module name derived from the path."""
    file = Path(path).resolve()
    if not file.is_file():
        raise ImportError(f"no file {path}")
    name = "arena_bot_" + hashlib.sha256(str(file).encode()).hexdigest()[:12]
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def call_hook(bot: object, hook: str, arg: GameInfo | RoundSummary | tuple[int, ...]) -> None:
    """Call an optional hook if the bot defines it."""
    method = getattr(bot, hook, None)
    if callable(method):
        method(arg)
