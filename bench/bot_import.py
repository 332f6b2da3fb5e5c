"""What a game's child pays to import a bot's own file: ``python bench/bot_import.py``.

A confined bot's folder is read-only, so no ``__pycache__`` is written beside it, and each
game's child (forked from the bot's host) imports the bot's file afresh. This copies a bot
file (default: the built-in ``bots/search.py``, 374 lines, which imports only installed
modules) to a folder of its own, then forks children that each import it and exit, as a
game's child does: once compiling the source in every child, once from the code the host
compiled before forking (``arena.seats.host.precompile``). Prints wall time and CPU of
child and parent per fork.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import _harness  # first: puts the repository on sys.path
from tabulate import tabulate

from arena.seats import host
from arena.seats.bot import load_class


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def fork_imports(target: str, forks: int, *, precompiled: bool) -> list[str]:
    """Fork ``forks`` children that import the bot and exit; one table row."""
    cpu, child, start = time.process_time(), children_cpu(), time.perf_counter()
    for _ in range(forks):
        gc.freeze()  # as the host does before each game's fork
        pid = os.fork()
        if pid == 0:
            if precompiled:
                host.use_precompiled()
            load_class(target)
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"the child could not import {target}")
    wall_us = (time.perf_counter() - start) / forks * 1e6
    parent_us = (time.process_time() - cpu) / forks * 1e6
    child_us = (children_cpu() - child) / forks * 1e6
    how = "compiled once by the host" if precompiled else "compiled in each child"
    return [how, str(forks), f"{wall_us:.0f}", f"{child_us:.0f}", f"{parent_us:.0f}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--forks", type=int, default=200)
    parser.add_argument("--bot", default=str(_harness.ROOT / "bots" / "search.py"),
                        help="a bot file; its class is found by name with --cls")
    parser.add_argument("--cls", default="SearchBot")
    args = parser.parse_args()
    sys.dont_write_bytecode = True  # as in a read-only folder
    with tempfile.TemporaryDirectory() as folder:
        bot = Path(folder) / "contest_bot.py"
        shutil.copy(args.bot, bot)
        target = f"{bot}:{args.cls}"
        lines = len(bot.read_text("utf-8").splitlines())
        host.preload(target)  # imports the installed modules it names, compiles its file
        rows = [fork_imports(target, args.forks, precompiled=False),
                fork_imports(target, args.forks, precompiled=True)]
    print(f"{Path(args.bot).name}, {lines} lines")
    print(tabulate(rows, ["the bot's file", "forks", "wall us", "child CPU us",
                          "host CPU us"], tablefmt="github"))


if __name__ == "__main__":
    main()
