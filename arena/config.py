"""Tournament configs: YAML in, a validated frozen :class:`Config` out, or one precise error.

Every error names the file, the field (with its line when the YAML parser knows it) and what
was expected; nothing is written before a config validates.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shlex
import shutil
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from arena.bot import BotSpec
from arena.errors import BadInput
from arena.game import Game
from arena.options import resolve_options
from arena.referee import Clock, FaultPolicy, Isolation
from arena.seat import Limits
from arena.variants import find_variant

FORMATS = ("round-robin", "gauntlet")
POLICIES = ("safe_action", "random_legal")
ISOLATION = ("process", "inprocess")
TOP_KEYS = ("name", "variant", "options", "bots", "format", "time", "faults", "isolation",
            "limits", "workers", "seed", "output", "rating")
BOT_KEYS = ("name", "module", "command", "params", "read", "write", "network", "env")
LIMIT_KEYS = ("memory_mb", "cpu_s_per_game", "processes", "line_bytes", "startup_ms",
              "grace_ms", "stderr_bytes")
FORMAT_KEYS = ("type", "candidate", "games", "duplicate")


@dataclass(frozen=True, slots=True, kw_only=True)
class Format:
    """How tables are drawn: every table of a round robin, or a candidate against the field."""

    type: str = "round-robin"
    candidate: str | None = None
    games: int | None = None  # per table; None: one game per seat rotation
    duplicate: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    """A validated tournament."""

    name: str
    variant: str
    options: Mapping[str, Any]
    bots: tuple[BotSpec, ...]
    format: Format
    clock: Clock
    faults: FaultPolicy = field(default_factory=FaultPolicy)
    isolation: Isolation = "process"
    limits: Limits = field(default_factory=Limits)
    workers: int = field(default_factory=lambda: os.cpu_count() or 1)
    seed: int | None = None  # None: drawn at random when the tournament starts (settle_seed)
    output: Path = Path("results")
    anchor: tuple[str, float] | None = None  # rating: {anchor: {bot: elo}}; None: mean 1500

    @property
    def game(self) -> type[Game]:
        """The variant class."""
        return find_variant(self.variant)

    @property
    def players(self) -> int:
        """Seats per table."""
        return int(self.options["players"])

    @property
    def games_per_table(self) -> int:
        """Games at each table: a multiple of the table size, so seats stay balanced."""
        return self.format.games or self.players

    @property
    def results_dir(self) -> Path:
        """Where this tournament's files live."""
        return self.output / self.name

    def identity(self) -> dict[str, Any]:
        """What decides the games: a resumed run must match it (workers and output don't)."""
        return {"name": self.name, "variant": self.game.version, "options": dict(self.options),
                "bots": [{"name": b.name, "target": b.target, "params": dict(b.params),
                          "source": b.source_hash(), **_env_identity(b)} for b in self.bots],
                "format": asdict(self.format), "time": asdict(self.clock),
                "faults": asdict(self.faults), "isolation": self.isolation,
                "limits": asdict(self.limits), "seed": self.seed}

    def identity_hash(self) -> str:
        """A short fingerprint of :meth:`identity`."""
        text = json.dumps(self.identity(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def _env_identity(bot: BotSpec) -> dict[str, Any]:
    """A bot's env: in the identity by names and a hash of the values (which may be keys
    the organiser gives a bot, not to be written into results/)."""
    if not bot.variables:
        return {}
    values = json.dumps(dict(bot.variables), sort_keys=True)
    return {"env": sorted(bot.variables),
            "env_hash": hashlib.sha256(values.encode()).hexdigest()[:16]}


class _Where:
    """Line numbers of a YAML document's keys, for error messages."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines: dict[tuple[str | int, ...], int] = {}
        try:
            node = yaml.compose(text)
        except yaml.YAMLError:
            return
        if node is not None:
            self._walk(node, ())

    def _walk(self, node: yaml.Node, at: tuple[str | int, ...]) -> None:
        self.lines[at] = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                self.lines[(*at, key.value)] = key.start_mark.line + 1
                self._walk(value, (*at, key.value))
                self.lines[(*at, key.value)] = key.start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                self._walk(item, (*at, i))

    def place(self, at: tuple[str | int, ...]) -> str:
        """``file.yaml:9: bots[1]``: the file, the line and the field, for messages."""
        name = ".".join(f"[{p}]" if isinstance(p, int) else p for p in at).replace(".[", "[")
        probe = at
        while probe and probe not in self.lines:
            probe = probe[:-1]
        line = f":{self.lines[probe]}" if probe in self.lines else ""
        return f"{self.path}{line}: {name or 'config'}"

    def error(self, at: tuple[str | int, ...], expected: str) -> BadInput:
        return BadInput(f"{self.place(at)}: {expected}")


def load_config(path: str | Path, *, overrides: Mapping[str, Any] | None = None) -> Config:
    """Read and validate a tournament config file."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise BadInput(f"{file}: cannot read the config ({exc.strerror})") from exc
    where = _Where(file, text)
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or "not valid YAML"
        raise BadInput(f"{file}{line}: {problem}") from exc
    if not isinstance(raw, dict):
        raise where.error((), "expected a mapping of keys such as name, variant, bots")
    return _validate(raw, where, dict(overrides or {}), base=file.parent)


def _check_keys(raw: Mapping[str, Any], allowed: tuple[str, ...], at: tuple[str | int, ...],
                where: _Where) -> None:
    for key in raw:
        if key not in allowed:
            raise where.error((*at, key), f"unknown key; expected one of {', '.join(allowed)}")


def _typed(raw: Mapping[str, Any], key: str, kind: type | tuple[type, ...], default: Any,
           at: tuple[str | int, ...], where: _Where, expected: str) -> Any:
    value = raw.get(key, default)
    bad_bool = isinstance(value, bool) and kind is int
    if value is not default and (not isinstance(value, kind) or bad_bool):
        raise where.error((*at, key), f"expected {expected}, got {value!r}")
    return value


def _validate(raw: dict[str, Any], where: _Where, over: dict[str, Any], base: Path) -> Config:
    _check_keys(raw, TOP_KEYS, (), where)
    for key in ("name", "variant", "bots"):
        if key not in raw:
            raise where.error((key,), "missing; this key is required")
    name = _typed(raw, "name", str, None, (), where, "a name (letters, digits, - or _)")
    if not name or not all(ch.isalnum() or ch in "-_." for ch in name) or set(name) == {"."}:
        raise where.error(("name",), "expected letters, digits, '-', '_' or '.' (not only dots)")
    try:
        game = find_variant(str(raw["variant"]))
    except BadInput as exc:
        raise where.error(("variant",), str(exc)) from exc
    opts = _typed(raw, "options", dict, {}, (), where, "a mapping of variant options")
    try:
        options = resolve_options(game.name, game.OPTIONS, opts)
    except BadInput as exc:
        bad = next((k for k in opts if str(exc).find(repr(k)) >= 0), None)
        raise where.error(("options", bad) if bad else ("options",), str(exc)) from exc
    bots = _bots(raw["bots"], where, base)
    fmt = _format(raw.get("format", {}), where, bots, int(options["players"]))
    clock = _clock(raw.get("time", {}), where)
    faults = _faults(raw.get("faults", {}), where)
    isolation = raw.get("isolation", "process")
    if isolation not in ISOLATION:
        raise where.error(("isolation",), f"expected one of {', '.join(ISOLATION)}")
    limits = _limits(raw.get("limits", {}), where)
    workers = over.get("workers") or _typed(raw, "workers", int, os.cpu_count() or 1, (),
                                            where, "a number of worker processes")
    seed = over.get("seed")
    if seed is None:
        seed = _typed(raw, "seed", int, None, (), where, "an integer seed")
    if workers < 1:
        raise where.error(("workers",), "expected at least 1")
    output = over.get("output") or Path(_typed(raw, "output", str, "results", (), where,
                                               "a directory path"))
    if over.get("games"):
        fmt = Format(type=fmt.type, candidate=fmt.candidate, games=over["games"],
                     duplicate=fmt.duplicate)
    config = Config(name=name, variant=game.name, options=options, bots=bots, format=fmt,
                    clock=clock, faults=faults, isolation=isolation, limits=limits,
                    workers=workers, seed=seed,
                    output=Path(output), anchor=_rating(raw.get("rating", {}), where, bots))
    if config.games_per_table % config.players:
        expected = (f"expected a multiple of the table size {config.players}, so every bot "
                    "sits in every seat equally often")
        if over.get("games"):
            raise BadInput(f"--games {over['games']}: {expected}")
        raise where.error(("format", "games"), expected)
    return config


def _bots(raw: Any, where: _Where, base: Path) -> tuple[BotSpec, ...]:
    if not isinstance(raw, list) or not raw:
        raise where.error(("bots",), "expected a list of bots, each with name and module")
    specs: list[BotSpec] = []
    for i, entry in enumerate(raw):
        at: tuple[str | int, ...] = ("bots", i)
        if not isinstance(entry, dict):
            raise where.error(at, "expected a mapping with name and module")
        _check_keys(entry, BOT_KEYS, at, where)
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise where.error((*at, "name"), "expected a bot name")
        if name in {s.name for s in specs}:
            raise where.error((*at, "name"), f"duplicate bot name {name!r}")
        if ("command" in entry) == ("module" in entry):
            raise where.error(at, "expected exactly one of module (a Python class) or "
                                  "command (a program speaking docs/protocol.md)")
        read = _paths(entry.get("read", []), (*at, "read"), where, base)
        write = _paths(entry.get("write", []), (*at, "write"), where, base)
        network = _typed(entry, "network", bool, False, at, where, "true or false")
        variables = _variables(entry.get("env", {}), (*at, "env"), where)
        if "command" in entry:
            spec = _command_bot(name, entry["command"], (*at, "command"), where, base)
            specs.append(replace(spec, read=read, write=write, network=network,
                                 variables=variables, origin=where.place(at)))
            continue
        module = entry.get("module")
        expected = "expected 'package.module:Class' or 'path/file.py:Class'"
        if not isinstance(module, str) or module.count(":") != 1 or \
                not all(module.partition(":")[::2]):
            raise where.error((*at, "module"), f"{expected}, got {module!r}")
        target = _resolve_path(module, base)
        params = entry.get("params", {})
        if not isinstance(params, dict):
            raise where.error((*at, "params"), "expected a mapping of keyword arguments")
        spec = BotSpec(name, target, params, read=read, write=write, network=network,
                       variables=variables, origin=where.place(at))
        try:
            spec.source_files()  # found, not imported: starting it is arena.startup's job
        except BadInput as exc:
            raise where.error((*at, "module"), str(exc)) from exc
        specs.append(spec)
    return tuple(specs)


def _paths(raw: Any, at: tuple[str | int, ...], where: _Where, base: Path) -> tuple[str, ...]:
    """Existing paths a confined bot may also read or write, relative to the config."""
    if not isinstance(raw, list) or not all(isinstance(p, str) for p in raw):
        raise where.error(at, "expected a list of paths")
    found = []
    for i, text in enumerate(raw):
        path = (base / text).resolve()
        if not path.exists():
            raise where.error((*at, i), f"no such file or folder {text!r}")
        found.append(str(path))
    return tuple(found)


def _command_bot(name: str, command: Any, at: tuple[str | int, ...], where: _Where,
                 base: Path) -> BotSpec:
    """A bot in any language: a command line, run from a temporary folder."""
    if isinstance(command, str):
        command = shlex.split(command)
    if not isinstance(command, list) or not command or \
            not all(isinstance(a, str) for a in command):
        raise where.error(at, "expected a command line, e.g. [node, bots/my_bot.js]")
    resolved = [command[0], *(str((base / a).resolve()) if _names_a_file(a, base) else a
                              for a in command[1:])]
    if (base / command[0]).is_file() and not Path(command[0]).is_absolute():
        resolved[0] = str((base / command[0]).resolve())
    if shutil.which(resolved[0]) is None and not Path(resolved[0]).is_file():
        raise where.error(at, f"program {command[0]!r} not found")
    return BotSpec(name, command=tuple(resolved))


def _variables(raw: Any, at: tuple[str | int, ...], where: _Where) -> dict[str, str]:
    """``env: {NAME: value}``: variables for the bot's process, beyond the few every bot
    gets (it never sees the rest of the organiser's environment)."""
    if not isinstance(raw, dict):
        raise where.error(at, "expected a mapping of variable names to text")
    for name, value in raw.items():
        if not isinstance(name, str) or not name.isidentifier() or \
                not isinstance(value, str | int | float) or isinstance(value, bool):
            raise where.error((*at, str(name)), "expected NAME: text (a number is written "
                                                "as text)")
    return {name: str(value) for name, value in raw.items()}


def _names_a_file(arg: str, base: Path) -> bool:
    """A relative argument that is a file beside the config, or looks like a path to one
    (``bots/x.js``, ``bot.py``): made absolute, since the bot runs from a temporary folder
    (and a missing script is then named by the path the config meant)."""
    if Path(arg).is_absolute() or arg.startswith("-") or "=" in arg:
        return False
    return (base / arg).exists() or "/" in arg or Path(arg).suffix[1:].isalpha()


def _faults(raw: Any, where: _Where) -> FaultPolicy:
    if not isinstance(raw, dict):
        raise where.error(("faults",), "expected a mapping such as {policy: safe_action}")
    _check_keys(raw, ("policy", "forfeit_after", "forfeit_after_consecutive"), ("faults",),
                where)
    policy = raw.get("policy", "safe_action")
    if policy not in POLICIES:
        raise where.error(("faults", "policy"), f"expected one of {', '.join(POLICIES)}")
    counts = {}
    for key in ("forfeit_after", "forfeit_after_consecutive"):
        count = raw.get(key, getattr(FaultPolicy(), key))
        if count is not None and (not isinstance(count, int) or isinstance(count, bool)
                                  or count < 1):
            raise where.error(("faults", key), "expected a number of faults >= 1, or null "
                                               "for never")
        counts[key] = count
    return FaultPolicy(policy=policy, **counts)


def _limits(raw: Any, where: _Where) -> Limits:
    if not isinstance(raw, dict):
        raise where.error(("limits",), "expected a mapping such as {memory_mb: 1024}")
    _check_keys(raw, LIMIT_KEYS, ("limits",), where)
    for key, value in raw.items():
        if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
            raise where.error(("limits", key), "expected a positive number")
    return Limits(**raw)


def _resolve_path(module: str, base: Path) -> str:
    """A ``file.py:Class`` path is read relative to the config file (else to the current
    folder) and made absolute, since bots run from a temporary folder."""
    where_, sep, cls = module.rpartition(":")
    if sep and where_.endswith(".py") and not Path(where_).is_absolute():
        candidate = base / where_ if (base / where_).is_file() else Path(where_)
        return f"{candidate.resolve()}:{cls}"
    return module


def _format(raw: Any, where: _Where, bots: tuple[BotSpec, ...], players: int) -> Format:
    if not isinstance(raw, dict):
        raise where.error(("format",), "expected a mapping such as {type: round-robin}")
    _check_keys(raw, FORMAT_KEYS, ("format",), where)
    kind = raw.get("type", "round-robin")
    if kind not in FORMATS:
        raise where.error(("format", "type"), f"expected one of {', '.join(FORMATS)}")
    candidate = raw.get("candidate")
    names = [b.name for b in bots]
    if kind == "gauntlet" and candidate not in names:
        raise where.error(("format", "candidate"), f"expected one of the bots: {names}")
    games = _typed(raw, "games", int, None, ("format",), where, "games per table")
    if games is not None and games < 1:
        raise where.error(("format", "games"), "expected at least 1")
    duplicate = _typed(raw, "duplicate", bool, True, ("format",), where, "true or false")
    if len(bots) < players:
        raise where.error(("bots",), f"expected at least {players} bots for "
                                     f"{players}-seat tables, got {len(bots)}")
    return Format(type=kind, candidate=candidate, games=games, duplicate=duplicate)


def _rating(raw: Any, where: _Where, bots: tuple[BotSpec, ...]) -> tuple[str, float] | None:
    """``rating: {anchor: {random: 1000}}``: fix one bot's Elo instead of the mean's."""
    if not isinstance(raw, dict):
        raise where.error(("rating",), "expected a mapping such as {anchor: {random: 1000}}")
    _check_keys(raw, ("anchor",), ("rating",), where)
    anchor = raw.get("anchor")
    if anchor is None:
        return None
    names = [b.name for b in bots]
    if not isinstance(anchor, dict) or len(anchor) != 1:
        raise where.error(("rating", "anchor"), "expected one bot and its Elo, "
                                                "e.g. {random: 1000}")
    (name, elo), = anchor.items()
    if name not in names:
        raise where.error(("rating", "anchor", name), f"expected one of the bots: {names}")
    if not isinstance(elo, int | float) or isinstance(elo, bool) or not math.isfinite(elo):
        raise where.error(("rating", "anchor", name), f"expected an Elo number, got {elo!r}")
    return str(name), float(elo)


def _clock(raw: Any, where: _Where) -> Clock:
    if not isinstance(raw, dict):
        raise where.error(("time",), "expected a mapping such as {draw_ms: 15000}")
    _check_keys(raw, ("draw_ms", "play_ms"), ("time",), where)
    values = {}
    for key in ("draw_ms", "play_ms"):
        value = _typed(raw, key, int, None, ("time",), where, "milliseconds")
        if value is not None:
            if value < 1:
                raise where.error(("time", key), "expected at least 1 ms")
            values[key] = value
    return Clock(**values)
