"""The one place a seat is made: in this process (trusted) or in its own, confined where
the machine allows it, running a command bot or the Python host."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal, Protocol

from arena.engine.view import RoundSummary, View
from arena.errors import BadInput, printable
from arena.seats import confine
from arena.seats.bot import BotSpec, GameInfo, ObjectSpec
from arena.seats.process import ProcessSeat, host_command
from arena.seats.sandbox import harden_self
from arena.seats.seat import Answer, Confinement, InProcessSeat, Limits

log = logging.getLogger("arena.referee")
Isolation = Literal["process", "inprocess"]


class Seat(Protocol):
    """What the referee needs from a seat (in-process or isolated)."""

    start_error: str  # why its last start failed, in one line, for the referee's log

    def launch(self) -> None: ...

    def begin(self, info: GameInfo) -> str | None: ...

    def ready(self) -> str | None: ...

    def ask(self, view: View, limit_ms: int) -> Answer: ...

    def notify(self, hook: str, arg: RoundSummary | tuple[int, ...]) -> str | None: ...

    def ended(self, deadline: float) -> str | None: ...

    def stop(self) -> None: ...

    def close(self) -> None: ...


def make_seat(spec: BotSpec, *, isolation: Isolation, limits: Limits | None = None,
              stderr_dir: Path | None = None, hide: Sequence[Path] = ()) -> Seat:
    """An in-process seat, or an isolated one running the bot's command or Python host;
    ``hide``: folders its confined bot sees empty even where it may read (the results)."""
    stderr = None if stderr_dir is None else Path(stderr_dir) / f"{spec.name}.stderr.log"
    if isolation == "inprocess" and spec.command is None:
        return InProcessSeat(spec, stderr=stderr, limits=limits)
    harden_self()  # the bot may not read this process's memory (it holds every hand)
    command = list(spec.command) if spec.command is not None else host_command(spec)
    hidden = (*hide, Path(stderr_dir)) if stderr_dir is not None else hide  # the logs: a
    # bot read another seat's live log (its hand, where that bot printed it) in arena play
    return ProcessSeat(command, limits=limits or Limits(), stderr=stderr, env=spec.env(),
                       confinement=confinement(spec, hidden),
                       new_process_each_game=spec.command is not None)  # no host to fork it


def confinement(spec: BotSpec, hide: Sequence[Path] = ()) -> Confinement | None:
    """What the bot's confined process may read and write; None where this machine cannot
    confine a process (a warning says so once)."""
    why = confine.problem()
    if why is not None:
        _warn_unconfined(why)
        return None
    for file in _own_files(spec):  # which a root referee's bot reads as nobody: said once
        why = confine.unusable_by_bots(str(file), writable=False)
        if why:
            raise BadInput(f"bot {spec.name!r}: {file} {why}")
    own = confine.command_paths(list(spec.command)) if spec.command is not None else \
        [*confine.python_paths(), *confine.module_paths(spec.target)]
    return Confinement(read=(*own, *spec.read), write=spec.write, network=spec.network,
                       hide=tuple(str(Path(h).resolve()) for h in hide))


def _own_files(spec: BotSpec) -> list[Path]:
    """The bot's own files that exist (one that is missing, its start names)."""
    try:
        return [file for file in spec.source_files() if file.exists()]
    except BadInput:
        return []


@functools.cache
def _warn_unconfined(why: str) -> None:
    log.warning("bots run unconfined (%s): a bot can read your files and signal your "
                "processes; run only bots you trust (docs/protocol.md)", why)


def logs_folder(logs: Path | None, named: str) -> Path | None:
    """Make the bots' logs folder first: a path that cannot be one (a file, a device, a
    place no folder can be made) is refused in one line naming it (``named``: the option or
    argument that gave it), not when the first bot starts."""
    if logs is None:
        return None
    folder = Path(logs)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        problem = "exists and is not a folder"
    except OSError as exc:
        problem = f"cannot be made ({exc.strerror or exc})"
    else:
        writable = os.access(folder, os.W_OK | os.X_OK)
        problem = "" if writable else "is a folder this user cannot write"
    if problem:
        raise BadInput(f"{named}: {problem}; expected a folder for the bots' stderr logs")
    return folder


def told_apart(specs: Mapping[int, BotSpec]) -> dict[int, BotSpec]:
    """Different bots of one name told apart, so that a result table and a leaderboard do
    too: two students' ``Bot`` by their files (``olivia-bot``), two bot objects of one class
    by number (``GreedyBot``, ``GreedyBot-2``); one bot in two seats keeps its name."""
    runs: dict[str, list[object]] = {}
    for spec in specs.values():
        kinds = runs.setdefault(spec.name, [])
        if _run_of(spec) not in kinds:
            kinds.append(_run_of(spec))
    return {seat: spec if len(runs[spec.name]) == 1 else
            dataclasses.replace(spec, name=_apart(spec, runs[spec.name].index(_run_of(spec))))
            for seat, spec in specs.items()}


def _run_of(spec: BotSpec) -> object:
    """What makes two bots of one name different bots: the object, the command, the file."""
    return id(spec.bot) if isinstance(spec, ObjectSpec) else spec.command or spec.target


def _apart(spec: BotSpec, nth: int) -> str:
    """A bot object by its number among those of its name; a bot by its file."""
    if isinstance(spec, ObjectSpec):
        return spec.name if nth == 0 else f"{spec.name}-{nth + 1}"
    return _by_file(spec)


def _by_file(spec: BotSpec) -> str:
    """``olivia/bot.py:Bot`` as ``olivia-bot``: a bot's name is also its log's file name (so
    no ``/`` in it) and a terminal shows it (so its folders' controls are escaped)."""
    where = spec.command[-1] if spec.command else spec.target.rpartition(":")[0]
    path = Path(where)
    with contextlib.suppress(ValueError):
        path = path.resolve().relative_to(Path.cwd())
    if where.endswith((".py", ".js", ".sh")):
        path = path.with_suffix("")
    return printable("-".join(w for w in path.parts if w not in ("/", ".."))) or spec.name
