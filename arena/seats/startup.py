"""Start every bot once, the way its games will start it, before any game is played.

A bot that cannot start would fault at every decision of every game; starting it first gives
one line that names it and quotes its own error instead. With process isolation the bot is
launched confined, through the same host as in a tournament, so nothing of its code runs in
this process, not even to check it.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.engine.game import Game
from arena.errors import BadInput
from arena.seats import confine, sandbox
from arena.seats.bot import BotSpec, GameInfo, own_folder
from arena.seats.make import Isolation, make_seat
from arena.seats.seat import Limits

MISSING_MODULE = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")


def start_problems(specs: Sequence[BotSpec], *, variant: type[Game],
                   options: Mapping[str, Any], isolation: Isolation,
                   limits: Limits | None = None, hide: Sequence[Path] = ()) -> list[str]:
    """One line for each bot that does not start (they are started side by side)."""
    limits = limits or Limits()
    unique = list({(s.name, s.target, s.command): s for s in specs}.values())
    info = GameInfo(0, int(options["players"]), variant.version, dict(options), 0)
    with tempfile.TemporaryDirectory(prefix="arena-start-") as logs:
        seats = [make_seat(s, isolation=isolation, limits=limits, stderr_dir=Path(logs),
                           hide=hide) for s in unique]
        try:
            faults = [seat.begin(info) for seat in seats]
            faults = [fault or seat.ready() for fault, seat in zip(faults, seats, strict=True)]
        finally:
            for seat in seats:
                seat.close()
        return [_problem(spec, seat.start_error)
                for spec, seat, fault in zip(unique, seats, faults, strict=True)
                if fault is not None]


def check_bots_start(specs: Sequence[BotSpec], **how: Any) -> None:
    """Raise BadInput, one line a bot, if any bot does not start (see start_problems)."""
    problems = start_problems(specs, **how)
    if problems:
        raise BadInput("\n".join(problems))


def _problem(spec: BotSpec, error: str) -> str:
    where = f"{spec.origin}: " if spec.origin else ""
    return f"{where}bot {spec.name!r} cannot start: {error}{_too_wide_hint(spec, error)}"


def _too_wide_hint(spec: BotSpec, error: str) -> str:
    """Why a module beside the bot's file is not found: a file directly in the home folder,
    / or /tmp gets only itself, never the folder (README)."""
    missing = MISSING_MODULE.search(error)
    where = spec.target.rpartition(":")[0] if spec.command is None else ""
    if missing is None or not where.endswith(".py"):
        return ""
    file = Path(where).resolve()
    top = missing.group(1).partition(".")[0]
    if own_folder(file) is not None or not any(
            p.exists() for p in (file.parent / f"{top}.py", file.parent / top)):
        return ""
    return (f" ({top!r} sits beside it in {file.parent}, a folder no bot is given: put the "
            f"bot and its modules in a folder of their own)")


def guard_line() -> str:
    """What holds an isolated bot on this machine, in one line for ``arena validate``: an
    organiser should learn before a contest, not from a bot, that a guard is missing."""
    why = confine.problem()
    where = "confined (namespaces of their own)" if why is None else f"unconfined ({why})"
    caps = sandbox.seat_caps()
    if not caps:
        limits = ("no cgroup here, so memory_mb caps each process of a bot alone "
                  "(docs/security.md, Known gaps)")
    else:
        shared = [name for name in ("processes", "memory", "CPU") if name.lower() in caps]
        listed = ", ".join(shared[:-1]) + " and " + shared[-1] if len(shared) > 1 else shared[0]
        limits = f"a cgroup each caps a bot's {listed} together"
        if len(shared) < len(sandbox.CAP_FILES):
            limits += "; the rest holds each process alone"
    return f"bots: {where}; {limits}"
