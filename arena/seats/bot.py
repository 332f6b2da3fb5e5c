"""The bot interface, the forms a bot is named in, and loading it.

A bot is named as a built-in (``random``, ``greedy``), ``package.module:Class``,
``path/file.py:Class`` or ``path/file.py`` (the one bot class the file defines); a command
line is the other form (``BotSpec.command``).

A bot is any object with ``draw(view)`` and ``play(view)``; each may answer with an action
object or its text (``"stock"``, ``"discard KS"``). Optional hooks: ``start_game(info)``,
``end_round(summary)``, ``end_game(totals)``. One bot instance plays one game.
"""

from __future__ import annotations

import ast
import contextlib
import difflib
import errno
import hashlib
import importlib
import importlib.util
import os
import stat
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib.machinery import ModuleSpec, PathFinder
from pathlib import Path
from typing import Any, Protocol, cast, runtime_checkable

from arena.actions import Draw, Play
from arena.engine.view import RoundSummary, View
from arena.errors import BadInput


@dataclass(frozen=True, slots=True)
class GameInfo:
    """Told to a bot before the first decision: its seat, the table, a seed of its own, and
    the clock of each decision (COM-8), so a bot that thinks can stop in time."""

    seat: int
    players: int
    variant: str
    options: Mapping[str, Any]
    seed: int
    draw_ms: int = 15_000
    play_ms: int = 22_000


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
    variables: Mapping[str, str] = field(default_factory=dict)  # env: for its process
    origin: str = field(default="", compare=False)  # where it was named: "file.yaml:9: bots[1]"

    def make(self) -> Bot:
        """A fresh instance for one game (Python bots only)."""
        if self.command is not None:
            raise BadInput(f"bot {self.name!r} is a command; it runs in its own process")
        return new_bot(load_class(self.target), self.params)

    def env(self) -> dict[str, str]:
        """Environment additions for the bot's process: the installed ``arena`` (and the
        built-in bots) on the import path first, and the variables its config names."""
        return {"PYTHONPATH": str(ARENA_ROOT), **self.variables}

    def source_files(self) -> list[Path]:
        """The files a change of the bot shows in: the module or file its target names, or
        the files its command line names. Found without importing anything of the bot."""
        if self.command is not None:
            return [Path(a) for a in self.command if Path(a).is_file()]
        where = self.target.rpartition(":")[0]
        if not where.endswith(".py"):
            return [module_file(where)]
        found = stat_or_none(Path(where))
        if found is None or not stat.S_ISREG(found.st_mode):
            raise BadInput(not_a_file(Path(where)))
        return [Path(where)]

    def source_hash(self) -> str:
        """A short hash of the bot's source, so a changed bot is noticed on resume; read from
        its files, never by importing it (that would run the bot's code here)."""
        named = " ".join(self.command) if self.command is not None else self.target
        digest = hashlib.sha256(named.encode())
        files = self.source_files()
        if self.command is None:  # and the modules of its own it imports, edited apart
            files += own_modules(files[0], self.target.rpartition(":")[0])
        for file in files:  # read in pieces: a command's binary may be large
            digest.update(b"\n")
            with file.open(encoding="utf-8", errors="replace") as text:  # any locale
                while piece := text.read(1 << 20):
                    digest.update(piece.encode())
        return digest.hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class ObjectSpec(BotSpec):
    """A bot object a script made itself, for one game in process (``api.play``): each
    start hands over this same object, whose ``start_game`` begins it afresh."""

    bot: Any = field(default=None, compare=False)

    def make(self) -> Bot:
        """The object itself (a bot stopped past its clock is started again as it is)."""
        return cast(Bot, self.bot)


ARENA_ROOT = Path(__file__).resolve().parents[2]  # holds arena/ and the built-in bots/
BUILTIN_BOTS = {"random": "bots.random_bot:RandomBot", "greedy": "bots.greedy:GreedyBot",
                "search": "bots.search:SearchBot"}
BOT_FORMS = ("a built-in bot (" + ", ".join(BUILTIN_BOTS) + "), 'package.module:Class', "
             "'path/file.py:Class' or 'path/file.py'")


def bot_target(text: str, base: Path) -> str:
    """The class a bot name means, as ``module:Class`` or ``/absolute/file.py:Class``; a
    relative file is read from ``base`` (a config's folder, or the current one). Found
    without running any of the bot's code: a file's bot class is read from its syntax."""
    text = text.strip()
    if text in BUILTIN_BOTS:
        return BUILTIN_BOTS[text]
    where, sep, cls = text.rpartition(":")
    if not sep:
        where, cls = text, ""
    if not where or (sep and not cls.isidentifier()):
        raise BadInput(f"expected {BOT_FORMS}")
    if not where.endswith(".py"):
        if not sep or not all(part.isidentifier() for part in where.split(".")):
            raise BadInput(f"expected {BOT_FORMS}{_did_you_mean(text)}")
        return text
    file = bot_file(where, base)
    return f"{file}:{cls or bot_class_in(file)}"


def _did_you_mean(text: str) -> str:
    """A built-in bot's name close to a mistyped one ("grredy", "Greedy"), as a hint."""
    close = difflib.get_close_matches(text.lower(), list(BUILTIN_BOTS), n=1, cutoff=0.7)
    return f" (did you mean {close[0]!r}?)" if close else ""


def named_bot(text: str, base: Path, *, origin: str = "") -> BotSpec:
    """A bot named in any of its forms: a built-in keeps its name, a class is named after
    itself; its files are found (not imported), or BadInput says why not."""
    target = bot_target(text, base)
    name = text.strip() if text.strip() in BUILTIN_BOTS else target.rpartition(":")[2]
    spec = BotSpec(name, target, origin=origin)
    spec.source_files()
    return spec


def bot_file(where: str, base: Path) -> Path:
    """A bot's file, a relative one read from ``base`` alone (the config's folder): which
    bot plays must not depend on the folder a command is typed in."""
    path = Path(where).expanduser()
    if not path.is_absolute():
        path = base / path
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a symlink loop: source_files() says so
        return path


ABSENT = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)  # "not there" to Path.exists


def stat_or_none(path: Path) -> os.stat_result | None:
    """The path's status, or None where nothing is there; an OSError where it cannot be
    checked (a name too long, a folder that may not be searched), as Python 3.11 to 3.13's
    ``Path.exists`` and ``is_file`` raise it. From 3.14 those return False instead, and an
    error would say "no file" where it should say why."""
    try:
        return path.stat()
    except OSError as exc:
        if exc.errno in ABSENT:
            return None
        raise


def not_a_file(path: Path) -> str:
    """Why ``path`` cannot be a bot's file: missing, or there but no regular file (a folder,
    a pipe that would block whoever reads it, a device)."""
    try:
        exists = path.exists()
    except OSError:  # too long a name, a symlink loop
        exists = False
    if exists:
        return f"{str(path)!r} is not a regular file; expected a Python file"
    return f"no file {str(path)!r}"


MAX_SCANNED = 16 << 20  # bytes of a bot's file read to find its class (the arena's memory)


def bot_class_in(file: Path) -> str:
    """The one top-level class of ``file`` that defines ``draw`` or ``play``, read from the
    file's syntax (nothing of it runs); an error names the classes when there are several
    bot classes or none."""
    if not file.is_file():  # reading a pipe would wait for a writer forever
        raise BadInput(not_a_file(file))
    try:
        with file.open("rb") as f:
            source = f.read(MAX_SCANNED + 1)
    except FileNotFoundError:  # gone since
        raise BadInput(not_a_file(file)) from None
    except OSError as exc:
        raise BadInput(f"cannot be read ({exc.strerror or exc})") from exc
    if len(source) > MAX_SCANNED:
        raise BadInput(f"{file}: larger than {MAX_SCANNED >> 20} MiB, too large to look for "
                       f"its bot class in; name the class, as {file.name}:Class")
    try:
        tree = ast.parse(source, filename=str(file))
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        # the parser gives up on deep nesting with a MemoryError, of no message or of one
        # that changes with the Python version: the arena's own words, the same on each
        deep = isinstance(exc, MemoryError | RecursionError)
        why = "nested too deeply for the parser" if deep else " ".join(str(exc).split())[:120]
        raise BadInput(f"{file}: cannot be read as Python ({type(exc).__name__}: "
                       f"{why})") from exc
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    bots = [c.name for c in classes if {"draw", "play"} & {
        f.name for f in c.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)}]
    kind, example = "bot classes", 0
    if not bots:  # class Mine(GreedyBot) inherits its moves: its start checks it has them
        bots = [c.name for c in classes if _derived(c)]
        kind, example = "classes derived from others", -1  # helpers usually come first
    if len(bots) > 1:
        raise BadInput(f"{file} defines several {kind} ({', '.join(bots)}): name one, "
                       f"as {file.name}:{bots[example]}")
    if not bots:
        names = ", ".join(c.name for c in classes) or "none"
        raise BadInput(f"{file}: no bot class (one with draw(view) and play(view)); classes "
                       f"defined: {names}")
    return bots[0]


def _derived(node: ast.ClassDef) -> bool:
    """Whether a class names a base other than ``object``, from which it may inherit draw
    and play."""
    return any(not (isinstance(base, ast.Name) and base.id == "object") for base in node.bases)


def own_folder(file: Path) -> Path | None:
    """The folder a bot's file lives in, which the bot may read and import from; None for a
    folder too wide to hand to a bot (the file system's root, the home folder, /tmp)."""
    folder = file.resolve().parent
    too_wide = {Path("/"), Path.home().resolve(), Path("/tmp").resolve(),
                Path(os.environ.get("TMPDIR", "/tmp")).resolve()}
    return None if folder in too_wide else folder
RESERVED = ("arena", "bots")  # always the installed packages, never a folder of that name


def bot_import_path() -> list[str]:
    """Where a bot's own modules are found: the folder bots are run from, then PYTHONPATH;
    the host puts them after the installed packages (``python -m arena.seats.host --path``)."""
    return [os.getcwd(), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]


def _search_path(top: str) -> list[str]:
    """The import path of a bot's host, for a top-level name: the installed packages first
    (and only them for ``arena`` and ``bots``), then the bot's own folders."""
    if top in RESERVED:
        return [str(ARENA_ROOT)]
    here = {"", os.getcwd()}
    return [str(ARENA_ROOT), *(p for p in sys.path if p not in here), *bot_import_path()]


def find_module(name: str) -> ModuleSpec | None:
    """Where module ``a.b.c`` is, found part by part without importing it or the packages
    above it (importing would run their code), as a bot's host would look for it."""
    specs = list(_part_specs(name, _search_path(name.partition(".")[0]), installed=True))
    return specs[-1] if len(specs) == name.count(".") + 1 else None


def _part_specs(name: str, locations: list[str], installed: bool) -> Iterator[ModuleSpec]:
    """The specs of ``a``, ``a.b``, ``a.b.c`` in turn, found in ``locations`` without
    importing anything, up to the first part missing (or under a module, not a package);
    ``installed``: a top part may also be an installed package's (an editable install)."""
    parts = name.split(".")
    where: list[str] | None = locations
    for depth in range(1, len(parts) + 1):
        if where is None:
            return  # a part above is a module, not a package
        part = ".".join(parts[:depth])
        spec = PathFinder.find_spec(part, where)
        if spec is None and depth == 1 and installed:
            with contextlib.suppress(ImportError, ValueError):
                spec = importlib.util.find_spec(part)  # a top-level name imports nothing
        if spec is None:
            return
        yield spec
        found = spec.submodule_search_locations
        where = None if found is None else list(found)


def module_file(name: str) -> Path:
    """The source file of module ``name`` (a package's ``__init__.py``), found without
    importing it."""
    spec = find_module(name)
    if spec is None or not spec.origin or not os.path.isfile(spec.origin):
        raise BadInput(f"no module {name!r} found in {os.getcwd()}, PYTHONPATH or the "
                       f"installed packages{_reserved_hint(name)}")
    return Path(spec.origin)


def _reserved_hint(name: str) -> str:
    """Why ``bots.mine`` is not the file bots/mine.py of the folder: ``bots`` and ``arena``
    are always the installed packages."""
    top, _, rest = name.partition(".")
    file = Path(top, *rest.split(".")).with_suffix(".py") if rest else None
    if top not in RESERVED or file is None or not file.is_file():
        return ""
    return (f" ({top!r} is always the installed {'built-in bots' if top == 'bots' else 'arena'}"
            f" package; name the file instead: {file}:Class)")


_loaded: dict[str, Callable[..., Bot]] = {}
# what a bot run in process may raise that is its own failure, not the run's: sys.exit()
# and GeneratorExit too (Ctrl-C, KeyboardInterrupt, stays the user's, and stops the run)
BOT_FAILURES = (Exception, SystemExit, GeneratorExit)


def load_class(target: str) -> Callable[..., Bot]:
    """Import ``package.module:Class`` or ``path/to/file.py:Class`` (cached per process)."""
    if target in _loaded:
        return _loaded[target]
    where, sep, attr = target.rpartition(":")
    if not sep or not where or not attr:
        raise BadInput(f"bad bot {target!r}: expected 'package.module:Class' or 'file.py:Class'")
    try:
        module = _import_file(where) if where.endswith(".py") else _import_module(where)
    except BOT_FAILURES as exc:  # a bot's import may raise anything: report it in one line
        raise BadInput(f"bad bot {target!r}: cannot import {where!r} "
                       f"({type(exc).__name__}: {exc})") from exc
    cls = getattr(module, attr, None)
    if cls is None or not callable(cls):
        found = [n for n, v in vars(module).items() if isinstance(v, type)
                 and v.__module__ == module.__name__ and callable(getattr(v, "draw", None))]
        also = f"; its bot classes: {', '.join(found)}" if found else ""
        raise BadInput(f"bad bot {target!r}: {where!r} has no class {attr!r}{also}")
    for method in ("draw", "play"):
        if not callable(getattr(cls, method, None)):
            raise BadInput(f"bad bot {target!r}: class {attr!r} has no {method}(view) method")
    _loaded[target] = cls
    return cls  # type: ignore[no-any-return]


def _import_module(name: str) -> Any:
    """Import ``package.module`` as a bot's host would: from the installed packages, then
    the folder bots are run from and PYTHONPATH (a console script has neither on its path)."""
    for folder in bot_import_path():
        if folder not in sys.path:
            sys.path.append(folder)
    return importlib.import_module(name)


def _import_file(path: str) -> Any:
    """Import a bot from a file path, under a module name derived from the path."""
    file = Path(path).resolve()
    if not file.is_file():
        raise ImportError(f"no file {path}")
    name = "arena_bot_" + hashlib.sha256(str(file).encode()).hexdigest()[:12]
    if name in sys.modules:
        return sys.modules[name]
    folder = own_folder(file)  # its helper modules beside it import, after the installed ones
    clash = None if folder is None else _taken_module(file, folder)
    if clash is not None:
        raise ImportError(f"{clash}: bots run in one process share their modules' names; "
                          "use isolation: process, or rename one")
    if folder is not None and str(folder) not in sys.path:
        sys.path.append(str(folder))
    if folder is not None:
        _BOT_FOLDERS.add(os.path.realpath(folder))
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_BOT_FOLDERS: set[str] = set()  # the bot folders put on this process's import path


def _taken_module(file: Path, folder: Path) -> str | None:
    """A module of the bot's own folder whose name another bot's folder already gave this
    process: importing it would give this bot the other's module, silently. Read only where
    another bot's folder is on the path (in process): a game's child has one bot."""
    if not _BOT_FOLDERS - {os.path.realpath(folder)}:
        return None
    try:
        tree = ast.parse(file.read_bytes())
    except (OSError, SyntaxError, ValueError, MemoryError, RecursionError):
        return None  # its import says what is wrong
    for top in sorted({name.partition(".")[0] for name in imported_names(tree)}):
        there = getattr(sys.modules.get(top), "__file__", None)
        if there is None or not any(os.path.realpath(there).startswith(f + os.sep)
                                    for f in _BOT_FOLDERS):
            continue  # not from a bot's folder (an installed module wins in every mode)
        with contextlib.suppress(ImportError, ValueError):
            spec = PathFinder.find_spec(top, [str(folder)])
            if spec is not None and spec.origin and \
                    os.path.realpath(spec.origin) != os.path.realpath(there):
                return f"its module {top!r} ({_tail(spec.origin)}) is another bot's " \
                    f"({_tail(there)}) by name"
    return None


MAX_OWN_MODULES = 64  # files of a bot's own hashed with it; a bot with more: the first


def own_modules(source: Path, where: str) -> list[Path]:
    """The bot's own modules that its source imports, and those they import in turn, read
    from their syntax (nothing is run): for a bot file, modules in its folder; for a module
    (``where``: ``pkg.bot``), the modules of its top package. Never the arena's or the
    built-in bots' (they are the installed packages, not the bot's)."""
    top = "" if where.endswith(".py") else where.partition(".")[0]
    if top in RESERVED:
        return []
    source = source.resolve()
    folder = source.parent
    found: dict[Path, None] = {}
    todo = [source]
    while todo and len(found) < MAX_OWN_MODULES:
        try:
            tree = ast.parse(todo.pop().read_bytes())
        except (OSError, SyntaxError, ValueError, MemoryError, RecursionError):
            continue  # the bot meets the error itself when it imports the file
        for name in _imported_modules(tree):
            for file in _own_files(name, folder, top):
                if file not in found and file != source:
                    found[file] = None
                    todo.append(file)
    return list(found)[:MAX_OWN_MODULES]


def _imported_modules(tree: ast.AST) -> list[str]:
    """``imported_names``, and for ``from a import b`` also ``a.b`` (b may be a module)."""
    names = imported_names(tree)
    names += [f"{n.module}.{a.name}" for n in ast.walk(tree)
              if isinstance(n, ast.ImportFrom) and n.level == 0 and n.module for a in n.names]
    return names


def _own_files(name: str, folder: Path, top: str) -> list[Path]:
    """The source files of module ``name`` and the packages above it, when they are the
    bot's own: in ``folder`` (a bot file's), or under package ``top`` (a bot module's)."""
    if name.partition(".")[0] in RESERVED or (top and name.partition(".")[0] != top):
        return []
    locations = [str(folder)] if not top else _search_path(top)
    files: list[Path] = []
    with contextlib.suppress(ImportError, ValueError, OSError):
        for spec in _part_specs(name, locations, installed=bool(top)):
            if spec.origin and spec.origin.endswith(".py") and os.path.isfile(spec.origin):
                files.append(Path(spec.origin).resolve())
    return files


def imported_names(tree: ast.AST) -> list[str]:
    """The absolute modules a source imports (``import a.b``, ``from c import d``), in
    order, once each: read from its syntax, nothing run."""
    names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    names += [n.module for n in ast.walk(tree)
              if isinstance(n, ast.ImportFrom) and n.level == 0 and n.module]
    return list(dict.fromkeys(names))


def _tail(path: str) -> str:
    """A file by its folder and name: enough to tell two bots' apart in one short line."""
    return str(Path(*Path(path).parts[-2:]))


def new_bot(cls: Callable[..., Bot], params: Mapping[str, Any]) -> Bot:
    """An instance of a bot's class, made with its config's ``params``; a constructor that
    wants other arguments is told where they come from."""
    try:
        return cls(**params)
    except TypeError as exc:
        if "__init__()" not in str(exc):
            raise
        raise TypeError(f"{exc} (a bot's arguments are its config entry's params:, "
                        f"here {dict(params)})") from None  # one error, not two


def bots_story(exc: BaseException) -> str:
    """The traceback from the first frame outside the seats' code and the import machinery:
    the arena's frames above the bot's (a decision, a hook, the import) are not its story."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None and \
            tb.tb_frame.f_code.co_filename.startswith(_SEATS_CODE):
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb))


_SEATS_CODE = (str(Path(__file__).parent) + os.sep, "<frozen importlib")


def call_hook(bot: object, hook: str, arg: GameInfo | RoundSummary | tuple[int, ...]) -> None:
    """Call an optional hook if the bot defines it."""
    method = getattr(bot, hook, None)
    if callable(method):
        method(arg)
