"""Reading a config file's values: each error names the file, the line and the field, and
says what was expected; bounded integers say their bounds."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from arena.errors import BadInput, shown


@dataclass(frozen=True, slots=True)
class Bound:
    """The range a number of the config must lie in, and how an error message names it."""

    low: int | float
    high: int | float
    kind: str  # "a number of worker processes": what the value counts
    high_note: str = ""  # " (an hour)": the upper bound in words
    fraction: bool = False  # True: a float is fine (CPU seconds), else an integer

    def admits(self, value: Any) -> bool:
        """An int (or, with ``fraction``, a float) in the range; never a bool or NaN."""
        kinds = (int, float) if self.fraction else int
        return isinstance(value, kinds) and not isinstance(value, bool) and \
            self.low <= value <= self.high

    def expected(self, value: Any) -> str:
        """What a message says of a value outside: the range it must be in."""
        return (f"expected {self.kind} from {self.low} to {self.high}{self.high_note}, "
                f"got {shown(value)}")


class _Where:
    """Line numbers of a YAML document's keys, for error messages."""

    def __init__(self, path: Path, node: yaml.Node | None) -> None:
        self.path = path
        self.lines: dict[tuple[str | int, ...], int] = {}
        if node is not None:
            self._walk(node)

    def _walk(self, root: yaml.Node) -> None:
        """Each node once (an aliased one under the first path that reaches it): an alias
        bomb of a few hundred bytes names billions of paths."""
        seen: set[int] = set()
        stack: list[tuple[yaml.Node, tuple[str | int, ...]]] = [(root, ())]
        while stack:
            node, at = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            self.lines.setdefault(at, node.start_mark.line + 1)
            if isinstance(node, yaml.MappingNode):
                for key, value in node.value:
                    if isinstance(key, yaml.ScalarNode):
                        self.lines[(*at, _key_of(key))] = key.start_mark.line + 1
                        stack.append((value, (*at, _key_of(key))))
            elif isinstance(node, yaml.SequenceNode):
                stack.extend((item, (*at, i)) for i, item in enumerate(node.value))

    def place(self, at: tuple[Any, ...]) -> str:
        """``file.yaml:9: bots[1]``: the file, the line and the field, for messages."""
        name = ".".join(f"[{p}]" if isinstance(p, int) and not isinstance(p, bool)
                        else _key_text(p) for p in at).replace(".[", "[")
        probe = at
        while probe and probe not in self.lines:
            probe = probe[:-1]
        line = f":{self.lines[probe]}" if probe in self.lines else ""
        return f"{self.path}{line}: {name or 'config'}"

    def error(self, at: tuple[Any, ...], expected: str) -> BadInput:
        return BadInput(f"{self.place(at)}: {expected}")


def _key_of(node: yaml.ScalarNode) -> Any:
    """A key as the config holds it (``~`` is None, ``3`` is 3), to find its line by."""
    try:
        key = yaml.constructor.SafeConstructor().construct_object(node)
        hash(key)
    except (yaml.YAMLError, ValueError, TypeError):
        return node.value
    return key


def _key_text(key: Any) -> str:
    """A key as a field name: text as it is (cut short), anything else as its repr."""
    plain = isinstance(key, str) and key and key.isprintable() and key.strip() == key
    text = key if plain else shown(key)
    return text if len(text) <= 60 else text[:57] + "..."


def not_text(value: Any) -> str:
    """What a message says of a value that should be text: YAML reads a bare ``123``,
    ``yes`` or ``2024-01-01`` as no string, and an empty value as nothing."""
    if value is None:
        return "got nothing"
    kinds = ((bool, "true or false"), (int | float, "a number"), (dt.date, "a date"))
    kind = next((k for t, k in kinds if isinstance(value, t)), None)
    if kind is None:
        return f"got {shown(value)}"
    return f"got {shown(value)}, which YAML reads as {kind}: quote it to make it text"


def _check_keys(raw: Mapping[Any, Any], allowed: tuple[str, ...], at: tuple[str | int, ...],
                where: _Where) -> None:
    for key in raw:
        if key not in allowed:
            raise where.error((*at, key), f"unknown key; expected one of {', '.join(allowed)}")


def _typed(raw: Mapping[str, Any], key: str, kind: type | tuple[type, ...], default: Any,
           at: tuple[str | int, ...], where: _Where, expected: str) -> Any:
    value = raw.get(key, default)
    bad_bool = isinstance(value, bool) and kind is int
    if value is not default and (not isinstance(value, kind) or bad_bool):
        raise where.error((*at, key), f"expected {expected}, got {shown(value)}")
    return value


def _bounded(raw: Mapping[str, Any], key: str, bound: Bound, default: Any,
             at: tuple[str | int, ...], where: _Where) -> Any:
    """A number of the config, in its :class:`Bound` (``default`` when it is not given)."""
    if key not in raw:
        return default
    if not bound.admits(raw[key]):
        raise where.error((*at, key), bound.expected(raw[key]))
    return raw[key]
