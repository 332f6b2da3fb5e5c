"""The ``bots:`` entries of a config: a Python class found (never imported) from its module
or file, or a command line; its params, ``read:``/``write:`` paths and ``env:``."""

from __future__ import annotations

import json
import shlex
import shutil
import stat
from collections.abc import Mapping
from dataclasses import replace
from itertools import pairwise
from pathlib import Path
from typing import Any

from arena.errors import BadInput, printable, shown
from arena.records import BOT_NAME, is_bot_name
from arena.seats import confine
from arena.seats.bot import (
    BOT_FORMS,
    BotSpec,
    bot_file,
    bot_target,
    not_a_file,
    stat_or_none,
)
from arena.tournament.config_file import (
    _check_keys,
    _typed,
    _Where,
    not_text,
)

BOT_KEYS = ("name", "module", "command", "params", "read", "write", "network", "env")


MAX_BOTS = 500  # a large class; the balanced schedule of 500 bots is drawn in ~20 s




MAX_PATH = 4096  # characters of a path (Linux's PATH_MAX)


MAX_TEXT = 32 << 10  # characters of a command-line argument or an env value


MAX_PARAMS = 64 << 10  # a bot's params as JSON: one argument of its host (Linux caps it at 128 KiB)


def _bots(raw: Any, where: _Where, base: Path) -> tuple[BotSpec, ...]:
    if not isinstance(raw, list) or not raw:
        raise where.error(("bots",), "expected a list of bots, each with name and module")
    if len(raw) > MAX_BOTS:
        raise where.error(("bots",), f"expected at most {MAX_BOTS} bots, got {len(raw)}")
    specs: list[BotSpec] = []
    for i, entry in enumerate(raw):
        spec = _bot(entry, ("bots", i), where, base)
        first = next((j for j, s in enumerate(specs) if s.name == spec.name), None)
        if first is not None:
            line = where.lines.get(("bots", first, "name"), where.lines.get(("bots", first)))
            raise where.error(("bots", i, "name"), f"duplicate bot name {spec.name!r} (bots"
                              f"[{first}] has it{f', line {line}' if line else ''})")
        specs.append(spec)
    return tuple(specs)


def _bot(entry: Any, at: tuple[str | int, ...], where: _Where, base: Path) -> BotSpec:
    """One entry of ``bots:``: a Python class (``module``) or any program (``command``)."""
    if not isinstance(entry, dict):
        raise where.error(at, "expected a mapping with name and module")
    _check_keys(entry, BOT_KEYS, at, where)
    name = _bot_name(entry.get("name"), (*at, "name"), where)
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


def _bot_name(name: Any, at: tuple[str | int, ...], where: _Where) -> str:
    """A bot's name, the leaderboard's row and its log's file name: printable text, not
    only spaces (a blank row) nor spaces at an end (``greedy `` showed as a second
    ``greedy``), without '/', short enough in bytes for a file name (a longer one lost the
    bot's log without a word)."""
    if not isinstance(name, str):
        raise where.error(at, f"{BOT_NAME}, {not_text(name)}")
    if not is_bot_name(name):
        raise where.error(at, f"{BOT_NAME}, got {shown(name)}")
    return name


def _module_bot(name: str, entry: Mapping[str, Any], at: tuple[str | int, ...], where: _Where,
                base: Path) -> BotSpec:
    """A Python class, found (not imported) from its module or file, or a built-in bot."""
    module = entry.get("module")
    if not isinstance(module, str) or not _sane(module, MAX_PATH):
        raise where.error((*at, "module"), f"expected {BOT_FORMS}, got {shown(module)}")
    try:
        check_bot_file(module, base)
        target = bot_target(module, base)
    except BadInput as exc:
        got = f", got {shown(module)}" if str(exc).startswith("expected") else ""
        raise where.error((*at, "module"), f"{exc}{got}") from exc
    spec = BotSpec(name, target, _params(entry.get("params", {}), (*at, "params"), where))
    try:
        spec.source_files()  # found, not imported: starting it is arena.seats.startup's job
    except BadInput as exc:
        raise where.error((*at, "module"), str(exc)) from exc
    except OSError as exc:
        raise where.error((*at, "module"), f"cannot be read ({exc.strerror or exc})") from exc
    return spec


def check_bot_file(text: str, base: Path) -> None:
    """Refuse a bot file named with its class (``z.py:Bot``) that is there but no regular
    file, as one named without it is: behind a symlink its name may not end in ``.py``
    (``/dev/zero``), and it would be looked for as a module of that name."""
    where, sep, _ = text.strip().rpartition(":")
    if not sep or not where.endswith(".py"):
        return  # a built-in, a module, or a file whose class is read from it (it checks)
    try:
        path = bot_file(where, base)
        found = stat_or_none(path)
    except OSError:
        return  # cannot be checked: finding its class says why
    if found is not None and not stat.S_ISREG(found.st_mode):
        raise BadInput(not_a_file(path))


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
            missing = stat_or_none(path) is None  # the same answer on every Python
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
    try:
        return BotSpec(name, command=command_line(command, base))
    except BadInput as exc:
        raise where.error(at, str(exc)) from exc


def command_bot(origin: str, text: str, base: Path) -> BotSpec:
    """A command bot named outside a config (``arena play --command``), named after its
    program's file (``node bots/x.js`` is ``x``)."""
    try:
        command = command_line(text, base)
    except BadInput as exc:
        raise BadInput(f"{origin} --command {shown(text)}: {exc}") from exc
    files = [Path(a) for a in command[1:] if Path(a).is_absolute() and _is_file(Path(a))]
    name = printable((files[0] if files else Path(command[0])).stem) or "command"
    return BotSpec(name, command=command, origin=origin)


def command_line(command: Any, base: Path) -> tuple[str, ...]:
    """A command line as a list or one string; its files are read relative to ``base``
    and made absolute, since the bot runs from a temporary folder."""
    expected = "expected a command line, e.g. [node, bots/my_bot.js]"
    if isinstance(command, str):
        try:
            command = shlex.split(command)
        except ValueError as exc:  # an unclosed quote
            raise BadInput(f"{expected}; {exc}") from exc
    if isinstance(command, list) and any(isinstance(a, bool) for a in command):
        raise BadInput(f"{expected}; YAML reads a bare yes, no, on or off as true or false: "
                       "quote it ('yes')")
    if not isinstance(command, list) or not command or \
            not all(isinstance(a, str) and _sane(a, MAX_TEXT) for a in command):
        raise BadInput(expected)
    if not command[0] or not _sane(command[0], MAX_PATH):
        raise BadInput(f"{expected}; got program {shown(command[0])}")
    resolved = [command[0], *(str((base / a).resolve())
                              if _names_a_file(a, base) and before != "-m" else a
                              for before, a in pairwise(command))]
    # after -m comes a module (python -m pkg.bot), not a file whatever its dots say
    if _is_file(base / command[0]) and not Path(command[0]).is_absolute():
        resolved[0] = str((base / command[0]).resolve())
    if shutil.which(resolved[0]) is None:
        if not _is_file(Path(resolved[0])):
            raise BadInput(f"program {shown(command[0])} not found")
        runner = INTERPRETERS.get(Path(command[0]).suffix, "its interpreter")
        raise BadInput(f"program {shown(command[0])} is not executable: mark it so (chmod +x) "
                       f"or name its interpreter first, e.g. [{runner}, {command[0]}]")
    return tuple(resolved)


INTERPRETERS = {".py": "python3", ".js": "node", ".sh": "sh", ".rb": "ruby"}  # for a hint


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


