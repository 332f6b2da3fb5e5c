"""Runs a Python bot behind the JSON-lines protocol: ``python -m arena.host module:Class``.

Python bots in their own process use this host, so one mechanism serves bots of every
language. The process may serve many games, each played by a fresh child forked from it, so
a bot's memory lasts one game.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import json
import os
import signal
import sys
import traceback
from typing import Any, BinaryIO

from arena.actions import Draw, Play
from arena.bot import Bot, call_hook, load_class
from arena.protocol import ViewDecoder, decode_summary, encode_line, info_of
from arena.sandbox import harden_self


class LineReader:
    """Lines from a file descriptor, with the unread rest at hand (a game's child process
    hands it back to the host when the game ends)."""

    def __init__(self, fd: int, buffer: bytes = b"") -> None:
        self.fd = fd
        self.buffer = buffer

    def next(self) -> bytes | None:
        """The next line, or None at end of input."""
        while b"\n" not in self.buffer:
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                return None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line


GAME_OVER, QUIT = 0, 3  # a game child's exit codes: next game, or stop serving
OVER = b"over\n"  # what a game child that really finished writes first on its handback
ERROR_CHARS = 8000  # at most this much of a traceback travels in an error reply


def serve(target: str, params: dict[str, Any], stdin: int, stdout: BinaryIO) -> None:
    """Answer requests until the referee closes the pipe or says quit. Each game is played
    by a child forked at its ``start_game``: the bot's memory (and anything it left running
    or on its scratch disk) ends with its game, so a duplicate deal cannot be recognised."""
    cls = load_class(target)
    reader = LineReader(stdin)
    while (raw := reader.next()) is not None:
        msg = json.loads(raw)
        kind = msg.get("type")
        if kind == "quit":
            return
        if kind != "start_game":
            continue  # news of a game already over (its child is gone): nothing to do
        handback_r, handback_w = os.pipe()
        gc.freeze()  # the child's collections then skip (and do not copy) the host's objects
        child = os.fork()
        if child == 0:
            os.close(handback_r)
            os._exit(_child_game(cls, params, msg, reader, stdout, handback_w))
        os.close(handback_w)
        _, status = os.waitpid(child, 0)
        rest = _read_waiting(handback_r)  # written before the child exited
        if os.waitstatus_to_exitcode(status) != GAME_OVER or not rest.startswith(OVER):
            return  # quit, end of input, or the child died (even with status 0, as a bot
            # calling os._exit(0) would): the referee sees end of file, a crash
        reader.buffer = rest[len(OVER):] + reader.buffer
        _forget_game()


def _child_game(cls: Any, params: dict[str, Any], hello: dict[str, Any], reader: LineReader,
                stdout: BinaryIO, handback: int) -> int:
    """The game child's whole life: play, hand the unread input back, say how it ended."""
    try:
        code = play(cls, params, hello, reader, stdout)
        os.write(handback, OVER + reader.buffer)  # at most the next start_game: fits
    except BaseException:  # the bot failed to start: the referee counts a crash
        traceback.print_exc()
        code = 1
    sys.stderr.flush()
    return code


def play(cls: Any, params: dict[str, Any], hello: dict[str, Any], reader: LineReader,
         stdout: BinaryIO) -> int:
    """One game, in the child: from ``start_game`` to ``end_game`` (or quit)."""
    bot: Bot = cls(**params)
    views = ViewDecoder()
    call_hook(bot, "start_game", info_of(hello))
    _send(stdout, {"type": "ready"})
    while (raw := reader.next()) is not None:
        msg = json.loads(raw)
        kind = msg.get("type")
        if kind in ("draw", "play"):
            _send(stdout, {"id": msg["id"], **_decide(bot, kind, views, msg["view"])})
        elif kind == "end_round":
            call_hook(bot, "end_round", decode_summary(msg))
        elif kind == "end_game":
            call_hook(bot, "end_game", tuple(msg["totals"]))
            return GAME_OVER
        elif kind == "quit":
            return QUIT
        else:
            _send(stdout, {"error": f"unexpected message type {kind!r}"})
    return QUIT


def _send(stdout: BinaryIO, reply: dict[str, Any]) -> None:
    stdout.write(encode_line(reply))
    stdout.flush()


def _read_waiting(fd: int) -> bytes:
    """What is in the pipe now (not up to end of file: the game's own children, if any are
    left, still hold its other end)."""
    os.set_blocking(fd, False)
    data = b""
    with contextlib.suppress(BlockingIOError):
        while chunk := os.read(fd, 1 << 16):
            data += chunk
    os.close(fd)
    return data


def _forget_game() -> None:
    """Confined (pid 1 of its own namespaces, working in its own /tmp): kill whatever the
    game left running and empty the scratch folders, so the next game starts clean."""
    if os.getpid() != 1 or os.getcwd() != "/tmp":
        return  # not confined: the folder and the processes are not ours to clear
    with contextlib.suppress(OSError):
        os.kill(-1, signal.SIGKILL)  # every other process of this namespace
    with contextlib.suppress(ChildProcessError):
        while True:
            os.waitpid(-1, 0)  # reap them all (orphans are this process's children)
    for folder in ("/tmp", "/dev/shm"):
        _empty(folder)


def _empty(folder: str) -> None:
    """Delete what the game left in a scratch folder, but nothing mounted into it: the
    organiser's ``read:`` and ``write:`` paths under /tmp are bound there and keep their
    files (and a read-only tree, such as a venv under /tmp, is not walked in vain)."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if not entry.is_dir(follow_symlinks=False):
                with contextlib.suppress(OSError):  # EBUSY: a file bound in
                    os.unlink(entry.path)
            elif not os.path.ismount(entry.path):
                _empty(entry.path)
                with contextlib.suppress(OSError):  # not empty: a mount lies below
                    os.rmdir(entry.path)


def _decide(bot: Bot, kind: str, views: ViewDecoder, data: dict[str, Any]) -> dict[str, Any]:
    """The bot's answer as text, or the error it raised (the referee counts a crash)."""
    view = views.decode(data)
    try:
        answer: Draw | Play | str = bot.draw(view) if kind == "draw" else bot.play(view)
    except Exception:
        trace = traceback.format_exc()
        sys.stderr.write(trace)  # the bot's log, as for any bot that raises
        sys.stderr.flush()
        return {"error": trace[-ERROR_CHARS:]}
    return {"action": str(answer)}


USAGE = "usage: python -m arena.host package.module:Class ['{json params}'] [--path DIRS]"


def main(argv: list[str] | None = None) -> None:
    """Entry point: ``python -m arena.host module:Class ['{"param": 1}'] [--path DIRS]``;
    the bot's own folders (``--path``) come after the installed packages on the import path,
    so a folder of the organiser's never stands in for ``arena`` or the built-in ``bots``."""
    args = sys.argv[1:] if argv is None else list(argv)
    paths: list[str] = []
    if "--path" in args[:-1]:
        at = args.index("--path")
        paths = [p for p in args[at + 1].split(os.pathsep) if p]
        del args[at:at + 2]
    if not args:
        sys.exit(USAGE)
    harden_self()
    replies = os.fdopen(os.dup(1), "wb")  # the protocol's own copy of stdout
    os.dup2(2, 1)  # whatever the bot prints goes to its stderr log, not into the protocol
    sys.stdout = sys.stderr
    params = json.loads(args[1]) if len(args) > 1 else {}
    importlib.import_module("bots")  # the built-in bots, found where arena is installed
    sys.path.extend(paths)
    serve(args[0], params, sys.stdin.fileno(), replies)


if __name__ == "__main__":
    main()
