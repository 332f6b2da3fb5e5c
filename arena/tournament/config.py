"""Tournament configs: YAML in, a validated frozen :class:`Config` out, or one precise error.

Every error names the file, the field (with its line when the YAML parser knows it) and what
was expected; nothing is written before a config validates.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path, PurePath
from typing import Any

from arena import safe_yaml
from arena.engine.game import SEEDS, Game
from arena.engine.options import resolve_options
from arena.errors import BadInput, shown
from arena.records import BOT_NAME, MAX_NAME, MAX_NAME_BYTES, is_bot_name, utf8_bytes
from arena.referee import Clock, FaultPolicy
from arena.seats.bot import BotSpec
from arena.seats.make import Isolation
from arena.seats.seat import Limits
from arena.tournament.config_bots import MAX_PATH, _bots
from arena.tournament.config_file import (
    Bound,
    _bounded,
    _check_keys,
    _typed,
    _Where,
    not_text,
)
from arena.tournament.schedule import table_count
from arena.variants import find_variant

FORMATS = ("round-robin", "gauntlet")
POLICIES = ("safe_action", "random_legal")
ISOLATION = ("process", "inprocess")
TOP_KEYS = ("name", "variant", "options", "bots", "format", "time", "faults", "isolation",
            "limits", "workers", "affinity", "seed", "output", "rating", "cluster")
FORMAT_KEYS = ("type", "candidate", "games", "duplicate")
HOUR_MS = 3_600_000
MAX_GAMES = 1_000_000  # in one tournament: its list of pairings still fits in memory
CLUSTER_ADDRESS = re.compile(  # a host name, an IPv4 or a bracketed IPv6 address, a port
    r"(?:tcp|tls|ws|wss|ucx)://(?:[A-Za-z0-9._-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\]):([0-9]{1,5})")
LOCAL = "local"  # the cluster "address" of the local pool: overrides a config's cluster
SPRT_SUFFIX = "-sprt"  # arena sprt of tournament X plays into <output>/X-sprt



WORKERS = Bound(1, 256, "a number of worker processes")  # a pool beyond that is a fork storm
SEED = Bound(0, SEEDS - 1, "an integer seed", " (63 bits, as drawn by arena run)")
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



def usable_cpus() -> int:
    """The CPUs this process may run on (``taskset``, a container's or a batch job's
    cpuset), as Python 3.13's ``os.process_cpu_count`` counts them: a worker more than
    there are would only wait its turn. All of the machine's where the system cannot say."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1

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
    workers: int = field(default_factory=lambda: usable_cpus())
    affinity: bool = True  # each pool worker and its bots keep to one CPU
    seed: int | None = None  # None: drawn at random when the tournament starts (settle_seed)
    output: Path = Path("results")
    anchor: tuple[str, float] | None = None  # rating: {anchor: {bot: elo}}; None: mean 1500
    cluster: str | None = None  # a Dask scheduler's address; None: the local pool

    def __post_init__(self) -> None:
        """Refuse what no config file could give: a config changed in code
        (``dataclasses.replace``) ran with workers=0 as a ZeroDivisionError, and with a name
        of ``../x`` wrote outside its output folder."""
        if isinstance(self.output, str) and _folder_text(self.output):  # as config_from
            object.__setattr__(self, "output", Path(self.output))  # takes it ("" is not ".")
        if problem := _field_problem(self):
            raise BadInput(f"Config.{problem}")
        try:  # the variant's defaults filled in, as the loader does
            options = resolve_options(self.variant, self.game.OPTIONS, self.options)
        except BadInput as exc:
            raise BadInput(f"Config.options: {exc}") from None
        object.__setattr__(self, "options", options)
        if problem := _bots_problem(self):
            raise BadInput(f"Config.{problem}")
        if self.games_per_table % self.players:
            raise BadInput(f"Config.format: {self.games_per_table} games per table; expected "
                           f"a multiple of the table size {self.players}")

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
        """What decides the games: a resumed run must match it (workers, output and cluster
        don't: a tournament moves between the local pool and a cluster and resumes)."""
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


def _field_problem(config: Config) -> str | None:
    """The first field of ``config`` out of what its loader admits, and what was expected."""
    name, seed = config.name, config.seed
    if problem := name_problem(name):
        return f"name {shown(name)}: {problem}"
    try:
        find_variant(config.variant)
    except BadInput as exc:
        return f"variant: {exc}"
    if config.isolation not in ISOLATION:
        return f"isolation: expected one of {', '.join(ISOLATION)}, got {shown(config.isolation)}"
    if not WORKERS.admits(config.workers):
        return f"workers: {WORKERS.expected(config.workers)}"
    if seed is not None and not SEED.admits(seed):
        return f"seed: {SEED.expected(seed)}"
    if not isinstance(config.output, PurePath) or not _folder_text(str(config.output)):
        return f"output: expected a folder path (a pathlib.Path), got {shown(config.output)}"
    if config.cluster is not None and not CLUSTER_ADDRESS.fullmatch(str(config.cluster)):
        return f"cluster: expected a Dask scheduler address or None, got {shown(config.cluster)}"
    return None


def _bots_problem(config: Config) -> str | None:
    """What is wrong with the bots or the anchor of a config changed in code: a bot named
    '../x' wrote its log outside the results, and an anchor past 10,000 left a folder no
    leaderboard read."""
    bots = config.bots
    if not isinstance(bots, tuple) or not all(isinstance(b, BotSpec) for b in bots):
        return f"bots: expected a tuple of BotSpec, got {shown(bots)}"
    names = [b.name for b in bots]
    if problem := next((n for n in names if not isinstance(n, str) or not is_bot_name(n)),
                       None):
        return f"bots: {BOT_NAME}, got {shown(problem)}"
    if len(set(names)) < len(names):
        return f"bots: expected names of their own, got {', '.join(names)}"
    anchor = config.anchor  # its bot may be out of these (an SPRT keeps two bots of many)
    if anchor is not None and not (isinstance(anchor, tuple) and len(anchor) == 2 and
                                   isinstance(anchor[0], str) and ELO.admits(anchor[1])):
        return (f"anchor: expected (bot name, Elo), the Elo a number from {ELO.low:,} to "
                f"{ELO.high:,}, got {shown(anchor)}")
    return None


def name_problem(name: Any) -> str | None:
    """What is wrong with a tournament's name, which names a folder inside ``output``."""
    if not isinstance(name, str):
        return f"expected text (letters, digits, '-', '_' or '.'), {not_text(name)}"
    if not name or not all(ch.isalnum() or ch in "-_." for ch in name) or set(name) == {"."}:
        return (f"expected letters, digits, '-', '_' or '.' (one folder's name, not only "
                f"dots), got {shown(name)}")
    if len(name) > MAX_NAME:
        return f"expected at most {MAX_NAME} characters, got {len(name)}"
    if utf8_bytes(name) > MAX_NAME_BYTES:
        return f"expected at most {MAX_NAME_BYTES} bytes in UTF-8, got {utf8_bytes(name)}"
    if name.endswith(SPRT_SUFFIX):  # the folder of tournament X's SPRT: its --fresh deleted it
        return (f"expected a name that does not end in {SPRT_SUFFIX!r} (`arena sprt` of "
                f"tournament {name.removesuffix(SPRT_SUFFIX)!r} keeps its games in that "
                f"folder), got {shown(name)}")
    return None


def _env_identity(bot: BotSpec) -> dict[str, Any]:
    """A bot's env: in the identity by names and a hash of the values (which may be keys
    the organiser gives a bot, not to be written into results/)."""
    if not bot.variables:
        return {}
    values = json.dumps(dict(bot.variables), sort_keys=True)
    return {"env": sorted(bot.variables),
            "env_hash": hashlib.sha256(values.encode()).hexdigest()[:16]}








NOT_CONFIGS = {".py": "a Python file: a bot is named in a config's bots", ".js": "a "
               "JavaScript file: a bot is named in a config's bots", ".jsonl": "a file of game "
               "records: arena leaderboard and arena replay read those"}


def load_config(path: str | Path, *, overrides: Mapping[str, Any] | None = None,
                schedule: bool = True) -> Config:
    """Read and validate a tournament config file; ``schedule=False`` (``arena sprt``, which
    makes its own games) leaves its ``format`` unchecked and unused."""
    file = Path(path)
    try:
        raw, node = safe_yaml.load(safe_yaml.read_text(file))
    except OSError as exc:
        raise BadInput(f"{file}: cannot read the config ({exc.strerror or exc})") from exc
    except safe_yaml.BadYaml as exc:
        if file.suffix in NOT_CONFIGS:  # a bot or a results file given by mistake
            raise BadInput(f"{file}: not a config file ({NOT_CONFIGS[file.suffix]}); expected "
                           "a tournament's YAML file, such as configs/quickstart.yaml") from exc
        raise exc.at(file) from exc
    where = _Where(file, node)
    if not isinstance(raw, dict):
        raise where.error((), "expected a mapping of keys such as name, variant, bots")
    return _validate(raw, where, dict(overrides or {}), base=file.parent, schedule=schedule)


def config_from(raw: Mapping[str, Any], *, base: str | Path = ".",
                overrides: Mapping[str, Any] | None = None) -> Config:
    """Validate a config built in code, the same mapping a YAML file holds; relative bot
    files and folders are read from ``base``. Errors name the field, as for a file."""
    if not isinstance(raw, Mapping):
        raise BadInput("config: expected a mapping of keys such as name, variant, bots")
    where = _Where(Path(base) / "<config>", None)
    return _validate(_paths_as_text(dict(raw)), where, dict(overrides or {}), base=Path(base))


def _paths_as_text(value: Any) -> Any:
    """The mapping with every ``Path`` in it as text, the form a YAML file gives: code
    that builds a config passes ``output`` and bot files as either."""
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, dict):
        return {k: _paths_as_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_paths_as_text(v) for v in value]
    return value


def cluster_address(text: Any) -> str | None:
    """A Dask scheduler's address as given, None for ``local``; BadInput says what was
    expected (its caller names where the text came from)."""
    if text == LOCAL:
        return None
    found = CLUSTER_ADDRESS.fullmatch(text) if isinstance(text, str) else None
    if found is None or not 0 < int(found[1]) < 65536:  # '[::1' had passed, to fail in Dask
        raise BadInput(f"expected a Dask scheduler address such as tcp://10.0.0.5:8786, or "
                       f"{LOCAL}, got {shown(text)}")
    return found[0]


def _cluster(raw: Mapping[str, Any], where: _Where, over: Mapping[str, Any]) -> str | None:
    """The cluster to play on: the command line's (or environment's) choice, checked by its
    caller, else the file's ``cluster:`` (checked either way: validate refuses a bad one)."""
    try:
        mine = cluster_address(raw["cluster"]) if "cluster" in raw else None
    except BadInput as exc:
        raise where.error(("cluster",), str(exc)) from exc
    return over.get("cluster", mine)  # type: ignore[no-any-return]


def _override(over: Mapping[str, Any], key: str, bound: Bound) -> Any:
    """A command-line value (``--workers``) that replaces the file's, checked the same way."""
    value = over.get(key)
    if value is not None and not bound.admits(value):
        raise BadInput(f"--{key} {shown(value)}: {bound.expected(value)}")
    return value


def _validate(raw: dict[str, Any], where: _Where, over: dict[str, Any], base: Path, *,
              schedule: bool = True) -> Config:
    _check_keys(raw, TOP_KEYS, (), where)
    for key in ("name", "variant", "bots"):
        if key not in raw:
            raise where.error((key,), "missing; this key is required")
    name = _name(raw, where)
    game = _variant(raw["variant"], where)
    opts = _typed(raw, "options", dict, {}, (), where, "a mapping of variant options")
    try:
        options = resolve_options(game.name, game.OPTIONS, opts)
    except BadInput as exc:
        bad = next((k for k in opts if str(exc).find(shown(k)) >= 0), None)
        raise where.error(("options", bad) if bad else ("options",), str(exc)) from exc
    bots = _bots(raw["bots"], where, base)
    fmt = _format(raw.get("format", {}), where, bots, int(options["players"])) if schedule \
        else Format()
    if (games := _override(over, "games", GAMES)) is not None:
        fmt = replace(fmt, games=games)
    isolation = raw.get("isolation", "process")
    if isolation not in ISOLATION:
        raise where.error(("isolation",), f"expected one of {', '.join(ISOLATION)}")
    _check_table_size(fmt.games or int(options["players"]), int(options["players"]), where,
                      over)
    config = Config(name=name, variant=game.name, options=options, bots=bots, format=fmt,
                    clock=_clock(raw.get("time", {}), where),
                    faults=_faults(raw.get("faults", {}), where), isolation=isolation,
                    limits=_limits(raw.get("limits", {}), where),
                    workers=_override(over, "workers", WORKERS) or _bounded(
                        raw, "workers", WORKERS, min(usable_cpus(), WORKERS.high), (),
                        where),
                    affinity=_typed(raw, "affinity", bool, True, (), where, "true or false"),
                    seed=_override(over, "seed", SEED) if over.get("seed") is not None
                    else _bounded(raw, "seed", SEED, None, (), where),
                    output=_output(raw, where, over.get("output")),
                    anchor=_rating(raw.get("rating", {}), where, bots),
                    cluster=_cluster(raw, where, over))
    if schedule:
        _check_games(config, where, over)
    _check_results_dir(config, where, from_command_line=over.get("output") is not None)
    return config


def _variant(text: Any, where: _Where) -> type[Game]:
    """The variant a config names: text, one of the variants' names or aliases."""
    if not isinstance(text, str):
        raise where.error(("variant",), f"expected a variant name such as indian13, "
                                        f"{not_text(text)}")
    try:
        return find_variant(text)
    except BadInput as exc:
        raise where.error(("variant",), str(exc)) from exc


def _name(raw: Mapping[str, Any], where: _Where) -> str:
    """The tournament's name: a folder name inside ``output``."""
    name = raw["name"]
    if problem := name_problem(name):
        raise where.error(("name",), problem)
    return str(name)


def _check_table_size(games: int, players: int, where: _Where,
                      over: Mapping[str, Any]) -> None:
    """Games per table keep seats balanced: every bot sits in every seat equally often."""
    if games % players:
        expected = (f"expected a multiple of the table size {players}, so every bot sits in "
                    "every seat equally often")
        if over.get("games"):
            raise BadInput(f"--games {over['games']}: {expected}")
        raise where.error(("format", "games"), expected)


def _check_games(config: Config, where: _Where, over: Mapping[str, Any]) -> None:
    """The whole schedule stays playable."""
    games = config.games_per_table
    tables = table_count(len(config.bots), config.players, config.format.type)
    if tables * games > MAX_GAMES:
        at = ("format", "games") if config.format.games else ("bots",)
        raise where.error(at, f"{tables} tables of {games} games make {tables * games} "
                              f"games; expected at most {MAX_GAMES} in one tournament")


def _output(raw: Mapping[str, Any], where: _Where, override: str | Path | None) -> Path:
    """Where result folders go: a folder, or a path where one can be made; ``--out`` (its
    text as typed: ``Path("")`` would be the current folder) is held to the same rule."""
    expected = f"expected a folder path (not empty: 'results', '.') of at most {MAX_PATH} " \
        "characters, no NUL"
    if override is not None:
        if not _folder_text(str(override)):
            raise BadInput(f"--out {shown(str(override))}: {expected}")
        return Path(override)
    text = _typed(raw, "output", str, "results", (), where, "a directory path")
    if not _folder_text(text):
        raise where.error(("output",), f"{expected}, got {shown(text)}")
    return Path(text)


def _folder_text(text: str) -> bool:
    """Text that can name a folder: not empty, no NUL byte, not longer than Linux allows."""
    return bool(text) and "\0" not in text and len(text) <= MAX_PATH


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
        missing = "a gauntlet needs it, the bot that meets all the others: " \
            if candidate is None else ""
        raise where.error(("format", "candidate"),
                          f"{missing}expected one of the bots: {', '.join(names)}")
    if kind != "gauntlet" and candidate is not None:  # a round robin ignored it unsaid
        raise where.error(("format", "candidate"), f"expected no candidate in a {kind} (every "
                                                   "bot meets every other): type: gauntlet "
                                                   "plays one candidate against the field")
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
        raise where.error(("rating", "anchor", name),
                          f"expected one of the bots: {', '.join(names)}")
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
