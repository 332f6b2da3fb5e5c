"""Variant options (COM-14): declared as data, checked before play, defaults filled in."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from arena.errors import BadInput


@dataclass(frozen=True, slots=True, kw_only=True)
class OptionSpec:
    """One option: its name, default, what it accepts (in words and as a check), its rule."""

    name: str
    default: Any
    expected: str
    check: Callable[[Any], bool]
    rule: str
    fits: Callable[[Any, Mapping[str, Any]], bool] | None = None
    """A further check against the options resolved before it (R51 ``teams`` needs 4 players)."""

    def default_for(self, resolved: Mapping[str, Any]) -> Any:
        """Defaults may depend on options resolved before (R51 ``match`` on ``players``)."""
        return self.default(resolved) if callable(self.default) else self.default


def int_in(low: int, high: int | None = None) -> Callable[[Any], bool]:
    """A check for an integer in ``[low, high]`` (``high`` None: no upper bound)."""
    return lambda v: (isinstance(v, int) and not isinstance(v, bool) and v >= low
                      and (high is None or v <= high))


def one_of(*allowed: Any) -> Callable[[Any], bool]:
    """A check for one of a few values (booleans are not integers here)."""
    return lambda v: any(v == a and type(v) is type(a) for a in allowed)


def match_of(key: str, check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    """A check for a one-key mapping such as ``{deals: 3}``."""
    return lambda v: isinstance(v, dict) and list(v) == [key] and check(v[key])


def resolve_options(variant: str, specs: tuple[OptionSpec, ...],
                    given: Mapping[str, Any]) -> dict[str, Any]:
    """Fill defaults and reject unknown names or bad values, one line naming the option."""
    known = {s.name: s for s in specs}
    for name in given:
        if name not in known:
            raise BadInput(f"{variant}: unknown option {name!r} "
                           f"(known: {', '.join(known)})")
    resolved: dict[str, Any] = {}
    for spec in specs:
        value = given[spec.name] if spec.name in given else spec.default_for(resolved)
        if not spec.check(value) or (spec.fits is not None and not spec.fits(value, resolved)):
            raise BadInput(f"{variant}: option {spec.name!r} = {value!r}: expected "
                           f"{spec.expected} ({spec.rule})")
        resolved[spec.name] = value
    return resolved


def parse_option_args(pairs: list[str] | None) -> dict[str, Any]:
    """Read ``-o key=value`` pairs; values are YAML so ``match={deals: 3}`` works."""
    out: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise BadInput(f"bad option {pair!r}: expected key=value")
        try:
            out[key.strip()] = yaml.safe_load(raw) if raw.strip() else raw
        except yaml.YAMLError as exc:
            raise BadInput(f"bad option {pair!r}: value is not readable YAML") from exc
    return out
