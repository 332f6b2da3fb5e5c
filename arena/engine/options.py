"""Variant options (COM-14): declared as data, checked before play, defaults filled in."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from arena import safe_yaml
from arena.errors import BadInput, shown

# Upper bounds of the numbers a variant's options take: far beyond the defaults, yet a game
# stays finite (at most 100 deals of 10,000 draws) and its record fits in memory.
MAX_DRAW_CAP = 10_000  # draws in one round (COM-9); the defaults are 100 and 200
MAX_DEALS = 100  # deals (IND match) or rounds (R51 match) of one game
MAX_TARGET = 10_000  # points a R51 match plays to (match: {target: T})
MAX_PENALTY = 1_000  # points of one card left in hand (MAR joker_in_hand, default 20)


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


def draw_cap(default: int, rule: str) -> OptionSpec:
    """The COM-9 draw cap, with the same bounds in every variant."""
    return OptionSpec(name="draw_cap", default=default,
                      expected=f"an integer from 1 to {MAX_DRAW_CAP}",
                      check=int_in(1, MAX_DRAW_CAP), rule=rule)


def one_of(*allowed: Any) -> Callable[[Any], bool]:
    """A check for one of a few values (booleans are not integers here)."""
    return lambda v: any(v == a and type(v) is type(a) for a in allowed)


def match_of(key: str, check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    """A check for a one-key mapping such as ``{deals: 3}``."""
    return lambda v: isinstance(v, dict) and list(v) == [key] and check(v[key])


_YAML_BOOL = " (YAML reads yes, no, on and off as true and false)"  # 'players: yes' read
# as True, which the message echoed with no word of where it came from


def _bool_for_other(spec: OptionSpec, value: Any) -> bool:
    """A true or false where the option takes something else: YAML's doing, as a rule."""
    return isinstance(value, bool) and not spec.check(value)


def resolve_options(variant: str, specs: tuple[OptionSpec, ...],
                    given: Mapping[str, Any]) -> dict[str, Any]:
    """Fill defaults and reject unknown names or bad values, one line naming the option."""
    known = {s.name: s for s in specs}
    if not isinstance(given, Mapping):  # a list of pairs read as names: "unknown option"
        raise BadInput(f"{variant}: options {shown(given)}: expected a mapping of option "
                       "names to values, such as {'players': 2}")
    for name in given:
        if name not in known:
            raise BadInput(f"{variant}: unknown option {shown(name)} "
                           f"(known: {', '.join(known)})")
    resolved: dict[str, Any] = {}
    for spec in specs:
        value = given[spec.name] if spec.name in given else spec.default_for(resolved)
        if not spec.check(value) or (spec.fits is not None and not spec.fits(value, resolved)):
            raise BadInput(f"{variant}: option {spec.name!r} = {shown(value)}"
                           f"{_YAML_BOOL if _bool_for_other(spec, value) else ''}: expected "
                           f"{spec.expected} ({spec.rule})")
        resolved[spec.name] = value
    return resolved


def check_seat_count(variant: str, specs: tuple[OptionSpec, ...], bots: int,
                     options: Mapping[str, Any]) -> None:
    """BadInput naming the bots when one bot a seat (``options`` name no ``players``) gives
    a count the variant does not seat: said as "option 'players' = 7", an option the caller
    never gave."""
    spec = next((s for s in specs if s.name == "players"), None)
    if "players" not in options and spec is not None and not spec.check(bots):
        raise BadInput(f"{bots} bots, one a seat: {variant} takes {spec.expected} players "
                       f"({spec.rule})")


def parse_option_args(pairs: list[str] | None) -> dict[str, Any]:
    """Read ``-o key=value`` pairs; values are YAML so ``match={deals: 3}`` works."""
    out: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise BadInput(f"bad option {shown(pair)}: expected key=value")
        if key.strip() in out:  # the last one won without a word, as a config refuses it
            raise BadInput(f"bad option {shown(pair)}: {key.strip()!r} is given twice; "
                           "expected each option once")
        try:
            out[key.strip()] = safe_yaml.load(raw)[0] if raw.strip() else raw
        except safe_yaml.BadYaml as exc:
            raise BadInput(f"bad option {shown(pair)}: value is not readable YAML "
                           f"({exc.problem})") from exc
    return out
