"""Runs a Python bot behind the JSON-lines protocol: ``python -m arena.seats.host module:Class``.

Python bots in their own process use this host, so one mechanism serves bots of every
language. The process may serve many games, each played by a fresh child forked from it,
which alone imports and runs the bot's code, so a bot's memory lasts one game.
"""

from __future__ import annotations

import ast
import contextlib
import errno
import gc
import importlib
import os
import signal
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.machinery import PathFinder, SourceFileLoader
from pathlib import Path
from types import CodeType
from typing import Any, BinaryIO

import orjson

from arena.actions import Draw, Play, not_an_answer, plain_answer
from arena.errors import BadInput
from arena.seats.bot import (
    RESERVED,
    Bot,
    bots_story,
    call_hook,
    find_module,
    imported_names,
    load_class,
    module_file,
    new_bot,
)
from arena.seats.protocol import (
    HOST_ENDED,
    ViewDecoder,
    decode_summary,
    encode_line,
    info_of,
)
from arena.seats.sandbox import die_with_parent, harden_self


class LineReader:
    """Lines from a file descriptor, with what was read past the last line kept."""

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
ERROR_CHARS = 8000  # at most this much of a traceback travels in an error reply
BOT_PATHS: list[str] = []  # the bot's own folders (--path): its code, never preloaded


def serve(target: str, params: dict[str, Any], stdin: int, stdout: BinaryIO) -> int:
    """Answer requests until the referee closes the pipe or says quit.

    This process never runs the bot's own code: each game is played by a child forked at
    its ``start_game``, which imports the bot and reads the game's messages. When the game
    ends the child must exit, so the bot's memory, and anything it left running or on its
    scratch disk, ends with its game: a duplicate deal cannot be recognised. Returns the exit
    status for this process: a game child's that died mid-game, so the referee's log says
    how the bot ended (``sys.exit(3)`` read "exit status 0")."""
    trusted = preload(target)
    reader = LineReader(stdin)
    while (raw := reader.next()) is not None:
        msg = orjson.loads(raw)
        kind = msg.get("type")
        if kind == "quit":
            return 0
        if kind != "start_game":
            continue  # news of a game already over (its child is gone): nothing to do
        ended = _game(trusted or target, params, msg, reader, stdout)
        if ended is not None:
            return ended  # quit, end of input, or the game child died: the referee sees EOF
    return 0


def _game(bot: Any, params: dict[str, Any], hello: dict[str, Any], reader: LineReader,
          stdout: BinaryIO) -> int | None:
    """Fork the game's child, which reads the referee's lines itself, and wait for it to
    exit: None once it ended its game on ``end_game``, and this process may serve the next;
    else the exit status this process ends with (the child's, 128 + N for signal N).
    The referee sends the next game's start only after this process's word that the child
    (and everything it left running) is gone; a child that does not end is the referee's to
    kill, with this whole process."""
    gc.freeze()  # the child's collections then skip (and do not copy) the host's objects
    child = os.fork()
    if child == 0:
        os._exit(_child_game(bot, params, hello, reader, stdout))
    reader.buffer = b""  # anything read past the start message was the child's to read
    _, status = os.waitpid(child, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != GAME_OVER:
        return code if code >= 0 else 128 - code  # quit, end of input, or died mid-game
    if not _forget_game():  # before the word: nothing of this game may read the next
        return 1  # one's start; what could not be deleted ends this sandbox instead
    _send(stdout, {"type": HOST_ENDED})
    return None


def preload(target: str) -> Any:
    """Import before any game what can be trusted: the class of a built-in bot, and the
    installed modules a bot's own source imports (numpy, the arena), never the bot's own
    code. Returns the built-in bot's class, else None (the game child imports the bot)."""
    where = target.rpartition(":")[0]
    if where.partition(".")[0] in RESERVED and not where.endswith(".py"):
        return load_class(target)
    source, names, own = _bot_imports(where)
    theirs = []  # the modules of the bot's own folders: compiled below, never imported here
    for name in names:
        if not _installed(name, own):
            theirs.append(name)
            continue
        with contextlib.suppress(Exception):  # the child will meet the error, and say it
            importlib.import_module(name)
    if source is not None:
        precompile([source, *_own_modules(theirs, own)])
    return None


def _bot_imports(where: str) -> tuple[Path | None, list[str], list[str]]:
    """The bot's source file, the top-level modules it imports, and its own folders."""
    try:
        source = Path(where) if where.endswith(".py") else module_file(where)
        tree = ast.parse(source.read_bytes())
    except (BadInput, OSError, SyntaxError, ValueError, MemoryError, RecursionError):
        return None, [], []  # the game's child meets the error when it imports the bot
    own = [str(source.resolve().parent), *BOT_PATHS]
    return source, imported_names(tree), own


def _own_modules(names: list[str], own: list[str]) -> list[Path]:
    """The source files of the top-level modules a bot imports from its own folders (found,
    not imported)."""
    files = []
    for top in dict.fromkeys(name.partition(".")[0] for name in names):
        with contextlib.suppress(ImportError, ValueError):
            spec = PathFinder.find_spec(top, own)
            if spec is not None and spec.origin and spec.origin.endswith(".py"):
                files.append(Path(spec.origin))
    return files


COMPILED: dict[str, tuple[bytes, CodeType]] = {}  # real path: (source, its code)
MAX_PRECOMPILED = 64  # files; a bot with more compiles the rest in each game, as before


def precompile(files: list[Path]) -> None:
    """Compile the bot's own source once, in the host, never running it: a confined bot's
    folder is read-only, so no ``__pycache__`` is written there and each game's child would
    otherwise compile the bot again (3 ms for a 400-line module)."""
    for file in files[:MAX_PRECOMPILED]:
        try:
            path = os.path.realpath(file)
            data = Path(path).read_bytes()
            COMPILED[path] = (data, compile(data, path, "exec", dont_inherit=True))
        except (OSError, SyntaxError, ValueError, MemoryError, RecursionError):
            continue  # the child compiles it, and meets the error itself


def use_precompiled() -> None:
    """In a game's child: import the bot's files from the code the host compiled, when the
    source read is the very source compiled (a file changed since is compiled afresh)."""
    if not COMPILED:
        return
    compile_source = SourceFileLoader.source_to_code

    def source_to_code(self: SourceFileLoader, data: Any, path: str, *rest: Any,
                       _optimize: int = -1) -> CodeType:  # rest: 3.15 adds the module's name
        known = COMPILED.get(os.path.realpath(path))
        if known is not None and known[0] == data and _optimize == -1:
            return known[1]
        return compile_source(self, data, path, *rest, _optimize=_optimize)

    SourceFileLoader.source_to_code = source_to_code  # type: ignore[method-assign,assignment]


def _installed(name: str, own: list[str]) -> bool:
    top = name.partition(".")[0]
    if top in sys.stdlib_module_names or top in RESERVED:
        return True
    spec = find_module(top)
    origin = spec.origin if spec is not None and spec.origin else ""
    return bool(origin) and not any(origin.startswith(folder.rstrip("/") + "/")
                                    for folder in own)


def _child_game(bot: Any, params: dict[str, Any], hello: dict[str, Any], reader: LineReader,
                stdout: BinaryIO) -> int:
    """The game child's whole life: import the bot (unless it is built in), play, say how
    it ended."""
    die_with_parent()  # a game child busy in a decision when its host is killed (its
    # worker stopped) would play on, unconfined, where no namespace ends with the host
    try:
        use_precompiled()
        cls = load_class(bot) if isinstance(bot, str) else bot
        code = play(cls, params, hello, reader, stdout)
    except SystemExit as exc:  # the bot ended its process: its status is the host's to say
        sys.stderr.write(bots_story(exc))
        code = exc.code if isinstance(exc.code, int) and exc.code != GAME_OVER else 1
    except BaseException as exc:  # the bot failed to start, or raised past a decision: a crash
        sys.stderr.write(bots_story(exc))
        code = 1
    sys.stderr.flush()
    return code


def play(cls: Any, params: dict[str, Any], hello: dict[str, Any], reader: LineReader,
         stdout: BinaryIO) -> int:
    """One game, in the child: from ``start_game`` to ``end_game`` (or quit)."""
    bot = new_bot(cls, params)
    views = ViewDecoder()
    call_hook(bot, "start_game", info_of(hello))
    _send(stdout, {"type": "ready"})
    while (raw := reader.next()) is not None:
        msg = orjson.loads(raw)
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
    try:
        data = encode_line(reply)
    except TypeError:  # a lone surrogate in the bot's text, which UTF-8 cannot carry
        data = encode_line({key: _escaped(value) for key, value in reply.items()})
    stdout.write(data)
    stdout.flush()


def _escaped(value: Any) -> Any:
    """Text with each lone surrogate written as its escape (``\\ud800``), as the referee's
    log shows a bot's other odd characters; the error it was part of is kept."""
    return value.encode("utf-8", "backslashreplace").decode() if isinstance(value, str) \
        else value


def _forget_game() -> bool:
    """Confined (pid 1 of its own namespaces, working in its own /tmp): kill whatever the
    game left running and empty the scratch folders, so the next game starts clean; False
    if something is left there all the same (the host then ends, and its sandbox with it:
    the referee counts a crash and starts a new one for the next game)."""
    if os.getpid() != 1 or os.getcwd() != "/tmp":
        return True  # not confined: the folder and the processes are not ours to clear
    with contextlib.suppress(OSError):
        os.kill(-1, signal.SIGKILL)  # every other process of this namespace
    with contextlib.suppress(ChildProcessError):
        while True:
            os.waitpid(-1, 0)  # reap them all (orphans are this process's children)
    return not any([_empty(folder) for folder in ("/tmp", "/dev/shm")])  # both emptied


_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


@dataclass(slots=True)
class _Folder:
    """A folder being emptied: its descriptor, its listing, where it sits, and whether
    something mounted lies below it (then it stays, and that is no leftover)."""

    fd: int
    listing: Iterator[os.DirEntry[str]]  # read whole when opened: nothing left open
    parent: int | None = None
    name: str = ""
    holds_mount: bool = False


def _empty(folder: str) -> bool:
    """Delete what the game left in a scratch folder, but nothing mounted into it (the
    organiser's ``read:`` and ``write:`` paths under /tmp are bound there and keep their
    files; a read-only tree, such as a venv under /tmp, is not walked in vain); whether
    something else is left. A folder the bot made read-only is given back to its owner
    first (it runs as this process's user: chmod 500 kept its notes for the next game's
    duplicate deal). Walked by descriptors, not paths or recursion, so that no depth of
    nested folders stops it; a tree deeper than the descriptors allowed is left."""
    try:
        _open_up(os.stat(folder, follow_symlinks=False).st_mode, folder)
        top = os.open(folder, _DIR)
    except OSError:
        return True
    try:
        device = os.fstat(top).st_dev
        stack = [_Folder(top, _listing(top))]
    except OSError:
        os.close(top)
        return True
    left = False
    while stack:
        here = stack[-1]
        entry = next(here.listing, None)
        if entry is None:
            left |= _close(stack.pop(), stack[-1] if stack else None)
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if info.st_dev != device:  # mounted here: not the game's
                here.holds_mount = True
            elif not stat.S_ISDIR(info.st_mode):
                _unlink(entry.name, here)
            else:
                _open_up(info.st_mode, entry.name, here.fd)
                fd = os.open(entry.name, _DIR, dir_fd=here.fd)
                stack.append(_Folder(fd, _listing(fd), here.fd, entry.name))
        except OSError:
            left = True
    return left


def _listing(fd: int) -> Iterator[os.DirEntry[str]]:
    with os.scandir(fd) as entries:
        return iter(list(entries))


def _unlink(name: str, folder: _Folder) -> None:
    try:
        os.unlink(name, dir_fd=folder.fd)
    except OSError as exc:
        if exc.errno != errno.EBUSY:
            raise
        folder.holds_mount = True  # a file bound in


def _close(done: _Folder, parent: _Folder | None) -> bool:
    """Close an emptied folder and remove it (the top one stays); whether it is left
    though nothing mounted lies below it."""
    with contextlib.suppress(OSError):
        os.close(done.fd)
    if parent is None or done.parent is None:
        return False
    if done.holds_mount:
        parent.holds_mount = True
        return False
    try:
        os.rmdir(done.name, dir_fd=done.parent)
    except OSError:
        return True
    return False


def _open_up(mode: int, path: str, dir_fd: int | None = None) -> None:
    """Give the owner back all rights on a folder (another owner's, or a read-only mount,
    is left as it is: its files then count as left)."""
    if stat.S_ISDIR(mode) and mode & stat.S_IRWXU != stat.S_IRWXU:
        with contextlib.suppress(OSError):
            os.chmod(path, stat.S_IMODE(mode) | stat.S_IRWXU, dir_fd=dir_fd)


def _decide(bot: Bot, kind: str, views: ViewDecoder, data: dict[str, Any]) -> dict[str, Any]:
    """The bot's answer as text, or the error it raised (the referee counts a crash)."""
    view = views.decode(data)
    try:
        answer: Draw | Play | str = bot.draw(view) if kind == "draw" else bot.play(view)
    except Exception as exc:
        trace = bots_story(exc)
        sys.stderr.write(trace)  # the bot's log, as for any bot that raises
        sys.stderr.flush()
        return {"error": trace[-ERROR_CHARS:]}
    try:  # read as the referee reads an answer in process
        plain = plain_answer(answer)
    except Exception as exc:  # a Draw or Play of the bot's own whose text raised
        sys.stderr.write(bots_story(exc))
        sys.stderr.flush()
        return {"action": None, "why": f"its answer raised {type(exc).__name__} as it was read"}
    if not isinstance(plain, str | Draw | Play):  # "action": null, an unreadable reply
        return {"action": None, "why": str(not_an_answer(plain))}
    return {"action": str(plain)}


USAGE = "usage: python -m arena.seats.host package.module:Class ['{json params}'] [--path DIRS]"


def main(argv: list[str] | None = None) -> None:
    """Entry point: ``python -m arena.seats.host module:Class ['{"param": 1}'] [--path DIRS]``;
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
    params = orjson.loads(args[1]) if len(args) > 1 else {}
    importlib.import_module("bots")  # the built-in bots, found where arena is installed
    sys.path.extend(paths)
    BOT_PATHS[:] = paths
    sys.exit(serve(args[0], params, sys.stdin.fileno(), replies))


if __name__ == "__main__":
    main()
