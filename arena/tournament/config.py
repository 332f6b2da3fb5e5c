"""Tournament configs: YAML in, a validated frozen :class:`Config` out, or one precise error.

Every error names the file, the field (with its line when the YAML parser knows it) and what
was expected; nothing is written before a config validates.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shlex
import shutil
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from arena import safe_yaml
from arena.engine.game import Game
from arena.engine.options import resolve_options
from arena.errors import BadInput, shown
from arena.referee import Clock, FaultPolicy
from arena.seats import confine
from arena.seats.bot import BotSpec
from arena.seats.make import Isolation
from arena.seats.seat import Limits
from arena.tournament.schedule import table_count
from arena.variants import find_variant

FORMATS = ("round-robin", "gauntlet")
POLICIES = ("safe_action", "random_legal")
ISOLATION = ("process", "inprocess")
TOP_KEYS = ("name", "variant", "options", "bots", "format", "time", "faults", "isolation",
            "limits", "workers", "seed", "output", "rating")
BOT_KEYS = ("name", "module", "command", "params", "read", "write", "network", "env")
FORMAT_KEYS = ("type", "candidate", "games", "duplicate")
HOUR_MS = 3_600_000
MAX_BOTS = 500  # a large class; the balanced schedule of 500 bots is drawn in ~20 s
MAX_GAMES = 1_000_000  # in one tournament: its list of pairings still fits in memory
MAX_NAME = 100  # characters of a tournament's name, a folder name
MAX_PATH = 4096  # characters of a path (Linux's PATH_MAX)
MAX_TEXT = 32 << 10  # characters of a command-line argument or an env value
MAX_PARAMS = 64 << 10  # a bot's params as JSON: one argument of its host (Linux caps it at 128 KiB)


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


WORKERS = Bound(1, 256, "a number of worker processes")  # a pool beyond that is a fork storm
SEED = Bound(0, (1 << 63) - 1, "an integer seed", " (63 bits, as drawn by arena run)")
GAMES = Bound(1, 10_000, "a number of games per table")
FORFEIT = Bound(1, 100_000, "a number of faults")
ELO = Bound(-10_000, 10_000, "an Elo number", fraction=True)
CLOCK = Bound(1, HOUR_MS, "a whole number of milliseconds", " (an hour)")
LIMITS = {  # for isolated seats; the defaults are in arena.seats.seat.Limits
    "memory_mb": Bound(64, 65_536, "a whole number of megabytes", " (64 GiB)"),
    "cpu_s_per_game": Bound(0.1, 86_400, "a number of CPU seconds", " (a day)", fraction=True),
    "processes": Bound(1, 1024, "a whole number of processes"),
    "line_bytes": Bound(1024, 64 << 20, "a whole number of bytes", " (64 MiB)"),
    "startup_ms": CLOCK,
    "grace_ms": CLOCK,
    "stderr_bytes": Bound(1024, 1 << 30, "a whole number of bytes", " (1 GiB)"),
}
LIMIT_KEYS = tuple(LIMITS)


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


def load_config(path: str | Path, *, overrides: Mapping[str, Any] | None = None) -> Config:
    """Read and validate a tournament config file."""
    file = Path(path)
    try:
        raw, node = safe_yaml.load(safe_yaml.read_text(file))
    except OSError as exc:
        raise BadInput(f"{file}: cannot read the config ({exc.strerror or exc})") from exc
    except safe_yaml.BadYaml as exc:
        raise exc.at(file) from exc
    where = _Where(file, node)
    if not isinstance(raw, dict):
        raise where.error((), "expected a mapping of keys such as name, variant, bots")
    return _validate(raw, where, dict(overrides or {}), base=file.parent)


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


def _override(over: Mapping[str, Any], key: str, bound: Bound) -> Any:
    """A command-line value (``--workers``) that replaces the file's, checked the same way."""
    value = over.get(key)
    if value is not None and not bound.admits(value):
        raise BadInput(f"--{key} {shown(value)}: {bound.expected(value)}")
    return value


def _validate(raw: dict[str, Any], where: _Where, over: dict[str, Any], base: Path) -> Config:
    _check_keys(raw, TOP_KEYS, (), where)
    for key in ("name", "variant", "bots"):
        if key not in raw:
            raise where.error((key,), "missing; this key is required")
    name = _name(raw, where)
    try:
        game = find_variant(raw["variant"] if isinstance(raw["variant"], str)
                            else shown(raw["variant"]))
    except BadInput as exc:
        raise where.error(("variant",), str(exc)) from exc
    opts = _typed(raw, "options", dict, {}, (), where, "a mapping of variant options")
    try:
        options = resolve_options(game.name, game.OPTIONS, opts)
    except BadInput as exc:
        bad = next((k for k in opts if str(exc).find(shown(k)) >= 0), None)
        raise where.error(("options", bad) if bad else ("options",), str(exc)) from exc
    bots = _bots(raw["bots"], where, base)
    fmt = _format(raw.get("format", {}), where, bots, int(options["players"]))
    if (games := _override(over, "games", GAMES)) is not None:
        fmt = replace(fmt, games=games)
    isolation = raw.get("isolation", "process")
    if isolation not in ISOLATION:
        raise where.error(("isolation",), f"expected one of {', '.join(ISOLATION)}")
    config = Config(name=name, variant=game.name, options=options, bots=bots, format=fmt,
                    clock=_clock(raw.get("time", {}), where),
                    faults=_faults(raw.get("faults", {}), where), isolation=isolation,
                    limits=_limits(raw.get("limits", {}), where),
                    workers=_override(over, "workers", WORKERS) or _bounded(
                        raw, "workers", WORKERS, min(os.cpu_count() or 1, WORKERS.high), (),
                        where),
                    seed=_override(over, "seed", SEED) if over.get("seed") is not None
                    else _bounded(raw, "seed", SEED, None, (), where),
                    output=_output(raw, where, over.get("output")),
                    anchor=_rating(raw.get("rating", {}), where, bots))
    _check_games(config, where, over)
    _check_results_dir(config, where, from_command_line=over.get("output") is not None)
    return config


def _name(raw: Mapping[str, Any], where: _Where) -> str:
    """The tournament's name: a folder name inside ``output``."""
    name = _typed(raw, "name", str, None, (), where, "a name (letters, digits, - or _)")
    if not name or not all(ch.isalnum() or ch in "-_." for ch in name) or set(name) == {"."}:
        raise where.error(("name",), "expected letters, digits, '-', '_' or '.' (not only dots)")
    if len(name) > MAX_NAME:
        raise where.error(("name",), f"expected at most {MAX_NAME} characters, got {len(name)}")
    return str(name)


def _check_games(config: Config, where: _Where, over: Mapping[str, Any]) -> None:
    """Games per table keep seats balanced, and the whole schedule stays playable."""
    games = config.games_per_table
    if games % config.players:
        expected = (f"expected a multiple of the table size {config.players}, so every bot "
                    "sits in every seat equally often")
        if over.get("games"):
            raise BadInput(f"--games {over['games']}: {expected}")
        raise where.error(("format", "games"), expected)
    tables = table_count(len(config.bots), config.players, config.format.type)
    if tables * games > MAX_GAMES:
        at = ("format", "games") if config.format.games else ("bots",)
        raise where.error(at, f"{tables} tables of {games} games make {tables * games} "
                              f"games; expected at most {MAX_GAMES} in one tournament")


def _output(raw: Mapping[str, Any], where: _Where, override: Path | None) -> Path:
    """Where result folders go: a folder, or a path where one can be made."""
    if override is not None:
        return Path(override)
    text = _typed(raw, "output", str, "results", (), where, "a directory path")
    if not text or "\0" in text or len(text) > MAX_PATH:
        raise where.error(("output",), f"expected a folder path of at most {MAX_PATH} "
                                       f"characters, got {shown(text)}")
    return Path(text)


def _check_results_dir(config: Config, where: _Where, *, from_command_line: bool) -> None:
    """The results folder, or its nearest existing parent, is a folder (read, not written)."""
    folder = config.results_dir
    for path in (folder, *folder.parents):
        try:
            if not path.exists():
                continue
            if path.is_dir():
                return
            problem = f"{str(path)!r} is a file, not a folder"
        except OSError as exc:
            problem = f"{str(path)!r} cannot be checked ({exc.strerror or exc})"
        if from_command_line:
            raise BadInput(f"--out {config.output}: {problem}; expected a folder for results")
        raise where.error(("output",), f"{problem}; expected a folder for results")


def _bots(raw: Any, where: _Where, base: Path) -> tuple[BotSpec, ...]:
    if not isinstance(raw, list) or not raw:
        raise where.error(("bots",), "expected a list of bots, each with name and module")
    if len(raw) > MAX_BOTS:
        raise where.error(("bots",), f"expected at most {MAX_BOTS} bots, got {len(raw)}")
    specs: list[BotSpec] = []
    for i, entry in enumerate(raw):
        spec = _bot(entry, ("bots", i), where, base)
        if spec.name in {s.name for s in specs}:
            raise where.error(("bots", i, "name"), f"duplicate bot name {spec.name!r}")
        specs.append(spec)
    return tuple(specs)


def _bot(entry: Any, at: tuple[str | int, ...], where: _Where, base: Path) -> BotSpec:
    """One entry of ``bots:``: a Python class (``module``) or any program (``command``)."""
    if not isinstance(entry, dict):
        raise where.error(at, "expected a mapping with name and module")
    _check_keys(entry, BOT_KEYS, at, where)
    name = entry.get("name")
    if not isinstance(name, str) or not name or len(name) > MAX_NAME or name in (".", "..") \
            or "/" in name or not name.isprintable():
        raise where.error((*at, "name"), f"expected a bot name of at most {MAX_NAME} "
                                         "printable characters, without '/'")
    if ("command" in entry) == ("module" in entry):
        raise where.error(at, "expected exactly one of module (a Python class) or "
                              "command (a program speaking docs/protocol.md)")
    read = _paths(entry.get("read", []), (*at, "read"), where, base, writable=False)
    write = _paths(entry.get("write", []), (*at, "write"), where, base, writable=True)
    network = _typed(entry, "network", bool, False, at, where, "true or false")
    variables = _variables(entry.get("env", {}), (*at, "env"), where)
    if "command" in entry:
        spec = _command_bot(name, entry["command"], (*at, "command"), where, base)
    else:
        spec = _module_bot(name, entry, at, where, base)
    return replace(spec, read=read, write=write, network=network, variables=variables,
                   origin=where.place(at))


def _module_bot(name: str, entry: Mapping[str, Any], at: tuple[str | int, ...], where: _Where,
                base: Path) -> BotSpec:
    """A Python class, found (not imported) from its module or file."""
    module = entry.get("module")
    expected = "expected 'package.module:Class' or 'path/file.py:Class'"
    if not isinstance(module, str) or module.count(":") != 1 or \
            not all(module.partition(":")[::2]) or not _module_text(module):
        raise where.error((*at, "module"), f"{expected}, got {shown(module)}")
    spec = BotSpec(name, _resolve_path(module, base),
                   _params(entry.get("params", {}), (*at, "params"), where))
    try:
        spec.source_files()  # found, not imported: starting it is arena.seats.startup's job
    except BadInput as exc:
        raise where.error((*at, "module"), str(exc)) from exc
    except OSError as exc:
        raise where.error((*at, "module"), f"cannot be read ({exc.strerror or exc})") from exc
    return spec


def _module_text(module: str) -> bool:
    """``a.b:Class`` with dotted names, or ``some/file.py:Class`` (a path of sane length)."""
    where_, _, cls = module.partition(":")
    if not cls.isidentifier() or len(module) > MAX_PATH or "\0" in module:
        return False
    return where_.endswith(".py") or all(part.isidentifier() for part in where_.split("."))


def _params(raw: Any, at: tuple[str | int, ...], where: _Where) -> dict[str, Any]:
    """Keyword arguments for the bot's class: JSON data (they reach its host as JSON, in
    one command-line argument, which Linux caps at 128 KiB)."""
    expected = ("expected a mapping of keyword arguments (names to text, numbers, "
                "true/false, lists and mappings)")
    if not isinstance(raw, dict) or not all(isinstance(k, str) and k.isidentifier()
                                            for k in raw):
        raise where.error(at, expected)
    try:
        text = json.dumps(raw, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise where.error(at, f"{expected}; {' '.join(str(exc).split())[:80]}") from exc
    if len(text) > MAX_PARAMS:
        raise where.error(at, f"expected at most {MAX_PARAMS >> 10} KiB of parameters as "
                              f"JSON, got {len(text) >> 10} KiB")
    return raw


def _paths(raw: Any, at: tuple[str | int, ...], where: _Where, base: Path, *,
           writable: bool) -> tuple[str, ...]:
    """Existing paths a confined bot may also read or write, relative to the config."""
    if not isinstance(raw, list) or not all(isinstance(p, str) and _sane(p, MAX_PATH)
                                            for p in raw):
        raise where.error(at, f"expected a list of paths (each at most {MAX_PATH} "
                              "characters)")
    found = []
    for i, text in enumerate(raw):
        try:
            path = (base / text).resolve()
            missing = not path.exists()
        except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop
            raise where.error((*at, i), f"cannot be checked ({exc})") from exc
        if missing:
            raise where.error((*at, i), f"no such file or folder {shown(text)}")
        why = confine.unusable_by_bots(str(path), writable=writable)
        if why:
            raise where.error((*at, i), f"{shown(text)} {why}")
        found.append(str(path))
    return tuple(found)


def _sane(text: str, longest: int) -> bool:
    """Text that can be a path or a program argument: no NUL byte, not overly long."""
    return "\0" not in text and len(text) <= longest


def _command_bot(name: str, command: Any, at: tuple[str | int, ...], where: _Where,
                 base: Path) -> BotSpec:
    """A bot in any language: a command line, run from a temporary folder."""
    expected = "expected a command line, e.g. [node, bots/my_bot.js]"
    if isinstance(command, str):
        try:
            command = shlex.split(command)
        except ValueError as exc:  # an unclosed quote
            raise where.error(at, f"{expected}; {exc}") from exc
    if not isinstance(command, list) or not command or \
            not all(isinstance(a, str) and _sane(a, MAX_TEXT) for a in command):
        raise where.error(at, expected)
    if not command[0] or not _sane(command[0], MAX_PATH):
        raise where.error(at, f"{expected}; got program {shown(command[0])}")
    resolved = [command[0], *(str((base / a).resolve()) if _names_a_file(a, base) else a
                              for a in command[1:])]
    if _is_file(base / command[0]) and not Path(command[0]).is_absolute():
        resolved[0] = str((base / command[0]).resolve())
    if shutil.which(resolved[0]) is None and not _is_file(Path(resolved[0])):
        raise where.error(at, f"program {shown(command[0])} not found")
    return BotSpec(name, command=tuple(resolved))


def _is_file(path: Path) -> bool:
    """``Path.is_file``, False also for a path the system refuses (too long, a loop)."""
    try:
        return path.is_file()
    except OSError:
        return False


def _variables(raw: Any, at: tuple[str | int, ...], where: _Where) -> dict[str, str]:
    """``env: {NAME: value}``: variables for the bot's process, beyond the few every bot
    gets (it never sees the rest of the organiser's environment)."""
    if not isinstance(raw, dict):
        raise where.error(at, "expected a mapping of variable names to text")
    for name, value in raw.items():
        if not isinstance(name, str) or not name.isidentifier() or \
                not isinstance(value, str | int | float) or isinstance(value, bool) or \
                not _sane(str(value), MAX_TEXT):
            raise where.error((*at, name), "expected NAME: text (a number is written "
                                           f"as text; at most {MAX_TEXT >> 10} KiB)")
    return {name: str(value) for name, value in raw.items()}


def _names_a_file(arg: str, base: Path) -> bool:
    """A relative argument that is a file beside the config, or looks like a path to one
    (``bots/x.js``, ``bot.py``): made absolute, since the bot runs from a temporary folder
    (and a missing script is then named by the path the config meant)."""
    if not arg or Path(arg).is_absolute() or arg.startswith("-") or "=" in arg or \
            len(arg) > MAX_PATH:
        return False
    try:
        beside = (base / arg).exists()
    except OSError:
        beside = False
    return beside or "/" in arg or Path(arg).suffix[1:].isalpha()


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
        default = getattr(FaultPolicy(), key)
        counts[key] = None if key in raw and raw[key] is None else \
            _bounded(raw, key, FORFEIT, default, ("faults",), where)  # null: never
    return FaultPolicy(policy=policy, **counts)


def _limits(raw: Any, where: _Where) -> Limits:
    if not isinstance(raw, dict):
        raise where.error(("limits",), "expected a mapping such as {memory_mb: 1024}")
    _check_keys(raw, LIMIT_KEYS, ("limits",), where)
    for key, bound in LIMITS.items():
        _bounded(raw, key, bound, None, ("limits",), where)
    return Limits(**raw)


def _resolve_path(module: str, base: Path) -> str:
    """A ``file.py:Class`` path is read relative to the config file (else to the current
    folder) and made absolute, since bots run from a temporary folder."""
    where_, sep, cls = module.rpartition(":")
    if sep and where_.endswith(".py") and not Path(where_).is_absolute():
        candidate = base / where_ if _is_file(base / where_) else Path(where_)
        with contextlib.suppress(OSError, RuntimeError):  # a loop: source_files says so
            candidate = candidate.resolve()
        return f"{candidate}:{cls}"
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
    games = _bounded(raw, "games", GAMES, None, ("format",), where)
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
    if not ELO.admits(elo):
        raise where.error(("rating", "anchor", name), ELO.expected(elo))
    return str(name), float(elo)


def _clock(raw: Any, where: _Where) -> Clock:
    if not isinstance(raw, dict):
        raise where.error(("time",), "expected a mapping such as {draw_ms: 15000}")
    _check_keys(raw, ("draw_ms", "play_ms"), ("time",), where)
    values = {}
    for key in ("draw_ms", "play_ms"):
        value = _bounded(raw, key, CLOCK, None, ("time",), where)
        if value is not None:
            values[key] = value
    return Clock(**values)
