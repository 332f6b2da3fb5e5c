"""What a tournament was, for the report's first section: its name, variant, options, bots,
games and dates. Records carry no timestamps, so the dates are the results files' times."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from arena import safe_yaml
from arena.errors import BadInput
from arena.records import GameRecord

GAMES_FILE = "games.jsonl"
CONFIG_FILE = "config.yaml"


@dataclass(frozen=True, slots=True)
class BotEntry:
    """One bot of the tournament: its name, what it runs and the games it played."""

    name: str
    runs: str  # module:Class or the command line, from config.yaml; "" when unknown
    games: int


@dataclass(frozen=True, slots=True)
class Moment:
    """A date shown in the report, and the file whose modification time it is."""

    label: str
    when: str
    source: str  # config.yaml (written as a run starts) or games.jsonl (as each game ends)


@dataclass(frozen=True, slots=True)
class Tournament:
    """The facts the report opens with."""

    name: str
    variant: str
    options: tuple[tuple[str, str], ...]  # (option, value as text), in the records' order
    format: str  # "round-robin, 20 games a table, duplicate", "" when config.yaml is gone
    seed: str
    bots: tuple[BotEntry, ...]
    games: int
    dates: tuple[Moment, ...]


def tournament(folder: Path, records: Sequence[GameRecord]) -> Tournament:
    """The tournament of a results folder: config.yaml where it is there, else the records."""
    identity = _identity(folder)
    counts = Counter(bot for r in records for bot in {s.bot for s in r.seats})  # games, not
    # seats: an SPRT's baseline holds several seats of each game
    runs = {str(b.get("name")): _runs(b) for b in identity.get("bots") or []
            if isinstance(b, Mapping)}
    names = list(dict.fromkeys([*runs, *counts]))
    variants = sorted({r.variant for r in records}) or [str(identity.get("variant", ""))]
    return Tournament(
        name=str(identity.get("name") or folder.resolve().name),
        variant=", ".join(variants),
        options=_options(records, identity),
        format=_format(identity.get("format")),
        seed=str(identity.get("seed", "")),
        bots=tuple(BotEntry(n, runs.get(n, ""), counts[n]) for n in names),
        games=len(records),
        dates=_dates(folder))


def _identity(folder: Path) -> Mapping[str, Any]:
    """The identity config.yaml holds (what decided the games), or nothing without one."""
    path = folder / CONFIG_FILE
    if not path.is_file():
        return {}
    try:
        stored = safe_yaml.load_stored(path)
    except OSError as exc:
        raise BadInput(f"{path}: not a readable config.yaml ({exc.strerror or exc})") from exc
    except safe_yaml.BadYaml as exc:
        raise BadInput(f"{path}: not a readable config.yaml ({exc.problem[:120]})") from exc
    identity = stored.get("identity") if isinstance(stored, dict) else None
    if not isinstance(identity, dict):
        return {}
    if isinstance(stored.get("sprt"), dict):  # an SPRT's folder: its test, not a schedule
        identity = {**identity, "format": {**stored["sprt"], "type": "SPRT"}}
    commands = stored.get("commands")
    if isinstance(commands, dict) and isinstance(identity.get("bots"), list):
        identity = {**identity, "bots": [
            {**b, "command": commands[b.get("name")]}
            if isinstance(b, dict) and not b.get("target") and b.get("name") in commands else b
            for b in identity["bots"]]}
    return identity


def _runs(bot: Mapping[str, Any]) -> str:
    """What a bot of config.yaml runs: its module:Class target or its command line (a
    folder from before commands were kept: a command, not which)."""
    for key in ("target", "command"):
        value = bot.get(key)
        if isinstance(value, list):
            return " ".join(map(str, value))
        if value:
            return str(value)
    return "a command (config.yaml does not keep it)"


def _options(records: Sequence[GameRecord],
             identity: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """The variant's options as played (the records', defaults filled in), one line each."""
    played = {json.dumps(r.options, sort_keys=True): r.options for r in records}
    options = next(iter(played.values())) if len(played) == 1 else identity.get("options")
    if not isinstance(options, Mapping):
        return (("options", "differ between games"),) if played else ()
    return tuple((str(k), _value(v)) for k, v in options.items())


def _value(value: Any) -> str:
    """An option's value as YAML would write it: plain scalars, nested ones in braces."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return "null" if value is None else str(value)


def _format(fmt: Any) -> str:
    """The schedule in words: its type, games a table and whether deals are duplicated."""
    if not isinstance(fmt, Mapping):
        return ""
    if fmt.get("type") == "SPRT":
        bounds = ", ".join(f"{k} {_number(fmt.get(k))}" for k in ("elo0", "elo1", "alpha",
                                                                   "beta"))
        return f"SPRT of {fmt.get('candidate')} against {fmt.get('baseline')}: {bounds}"
    parts = [str(fmt.get("type", ""))]
    if fmt.get("games"):
        parts.append(f"{fmt['games']} games a table")
    if fmt.get("duplicate"):
        parts.append("duplicate deals")
    return ", ".join(p for p in parts if p)


def _number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, int | float) else str(value)


def _dates(folder: Path) -> tuple[Moment, ...]:
    """When the latest run started and the last game was written, from the files' times."""
    found = []
    for label, name in (("latest run started", CONFIG_FILE), ("last game", GAMES_FILE)):
        path = folder / name
        if path.is_file():
            stamp = datetime.fromtimestamp(path.stat().st_mtime).astimezone()
            found.append(Moment(label, stamp.strftime("%Y-%m-%d %H:%M %Z"), name))
    return tuple(found)
