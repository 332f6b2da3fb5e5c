"""Runs a Python bot behind the JSON-lines protocol: ``python -m arena.host module:Class``.

Python bots in their own process use this host, so one mechanism serves bots of every
language. A new bot instance is made for each game; the process itself may serve many games.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, BinaryIO

from arena.actions import Draw, Play
from arena.bot import Bot, call_hook, load_class
from arena.protocol import ViewDecoder, decode_summary, encode_line, info_of
from arena.sandbox import harden_self


def serve(target: str, params: dict[str, Any], stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Answer requests until the referee closes the pipe or says quit."""
    cls = load_class(target)
    bot: Bot | None = None
    views = ViewDecoder()
    for raw in stdin:
        msg = json.loads(raw)
        kind = msg.get("type")
        if kind == "start_game":
            bot, views = cls(**params), ViewDecoder()
            call_hook(bot, "start_game", info_of(msg))
            reply: dict[str, Any] | None = {"type": "ready"}
        elif kind in ("draw", "play") and bot is not None:
            reply = {"id": msg["id"], **_decide(bot, kind, views, msg["view"])}
        elif kind == "end_round" and bot is not None:
            call_hook(bot, "end_round", decode_summary(msg))
            reply = None
        elif kind == "end_game" and bot is not None:
            call_hook(bot, "end_game", tuple(msg["totals"]))
            reply = None
        elif kind == "quit":
            return
        else:
            reply = {"error": f"unexpected message type {kind!r}"}
        if reply is not None:
            stdout.write(encode_line(reply))
            stdout.flush()


def _decide(bot: Bot, kind: str, views: ViewDecoder, data: dict[str, Any]) -> dict[str, Any]:
    """The bot's answer as text, or the error it raised (the referee counts a crash)."""
    view = views.decode(data)
    try:
        answer: Draw | Play | str = bot.draw(view) if kind == "draw" else bot.play(view)
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {"action": str(answer)}


def main(argv: list[str] | None = None) -> None:
    """Entry point: ``python -m arena.host module:Class ['{"param": 1}']``."""
    args = sys.argv[1:] if argv is None else argv
    if not args:
        sys.exit("usage: python -m arena.host package.module:Class ['{json params}']")
    harden_self()
    replies = os.fdopen(os.dup(1), "wb")  # the protocol's own copy of stdout
    os.dup2(2, 1)  # whatever the bot prints goes to its stderr log, not into the protocol
    sys.stdout = sys.stderr
    params = json.loads(args[1]) if len(args) > 1 else {}
    serve(args[0], params, sys.stdin.buffer, replies)


if __name__ == "__main__":
    main()
