"""What the commands share: one-line errors with their exit code, the options they have in
common, bots and cards named on the command line."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from functools import wraps
from pathlib import Path
from typing import Annotated, ParamSpec, TypeVar

import typer

from arena.actions import Placed, placed_cards
from arena.cards import Card, check_in_deck, parse_cards
from arena.engine.game import MAX_HAND as MAX_HAND  # re-exported for the calculators
from arena.engine.game import MAX_MELD as MAX_MELD
from arena.errors import ArenaError, BadInput
from arena.seats.bot import BUILTIN_BOTS as BUILTIN_BOTS  # re-exported for the commands
from arena.seats.bot import BotSpec, named_bot
from arena.tournament.config import WORKERS
from arena.tournament.config_bots import check_bot_file, command_bot

P = ParamSpec("P")
INTERRUPTED = 130  # the exit code of a command stopped by Ctrl-C (128 + SIGINT)
READER_GONE = 141  # output to a pipe whose reader left (`| head`): 128 + SIGPIPE
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)  # kill, a container's stop, a closed terminal


class Stopped(KeyboardInterrupt):
    """A SIGTERM or SIGHUP: the command stops as on Ctrl-C (the tournament's workers and
    bots stopped, every finished game kept), and exits with 128 + the signal's number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class Quit(KeyboardInterrupt):
    """A person at the terminal typed quit: the game stops as on Ctrl-C, but as they
    chose, so the command succeeds (exit code 0)."""


def stop_as_on_ctrl_c() -> None:
    """Raise :class:`Stopped` on SIGTERM and SIGHUP, which would otherwise end this process
    at once and leave its pool's workers to die on a broken pipe; a signal that whoever
    started the arena ignores (``nohup``) stays ignored."""
    for sig in STOP_SIGNALS:
        if signal.getsignal(sig) == signal.SIG_DFL:
            signal.signal(sig, _raise_stopped)


def _raise_stopped(signum: int, _frame: object) -> None:
    raise Stopped(signum)


def stop_reason(exc: KeyboardInterrupt) -> tuple[str, int]:
    """What a stopped command says of its stop, and its exit code."""
    if isinstance(exc, Stopped):
        return f"stopped by {signal.Signals(exc.signum).name}", 128 + exc.signum
    if isinstance(exc, Quit):
        return "you quit: the game was not finished", 0
    return "interrupted", INTERRUPTED


R = TypeVar("R")


OptionArgs = Annotated[list[str] | None, typer.Option(
    "-o", "--option", metavar="KEY=VALUE", show_default=False,
    help="A variant option as key=value (repeatable), e.g. -o players=3.")]


WildArg = Annotated[str | None, typer.Option(
    "--wild", metavar="CARD",
    help="The indicator card, where the variant turns one to set the wild cards "
    "(e.g. 7C).")]


RoundArg = Annotated[int | None, typer.Option(
    "--round", min=1, max=11, metavar="N",
    help="The round, where the variant sets the wild rank by round (1 to 11).")]


JsonArg = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


WorkersArg = Annotated[int | None, typer.Option(min=WORKERS.low, max=WORKERS.high,
                                                metavar="N", help="Worker processes.")]


def fail(message: str, code: int = 2) -> None:
    """Print the error, one line per problem, and exit (2: bad input, 1: failure while
    running)."""
    for line in message.splitlines() or [""]:
        typer.echo(f"arena: error: {line}", err=True)
    raise typer.Exit(code)


def guarded(func: Callable[P, R]) -> Callable[P, R]:
    """Turn the library's errors into one line and an exit code instead of a traceback."""

    @wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except BadInput as exc:
            fail(str(exc), 2)
        except ArenaError as exc:
            fail(str(exc), 1)
        except KeyboardInterrupt as exc:  # Ctrl-C (typer would exit 130 without a word)
            reason, code = stop_reason(exc)
            typer.echo(f"arena: {reason}", err=True)
            raise typer.Exit(code) from None
        except BrokenPipeError:
            _reader_gone()
        raise AssertionError("unreachable")

    return wrapper


def _reader_gone() -> None:
    """End quietly with the code of a program SIGPIPE stopped, as `yes | head` does: click
    would exit 1, which `arena sprt` uses for H0 (a script would read a verdict)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # the interpreter's last flush writes nowhere
    os.close(devnull)
    raise typer.Exit(READER_GONE) from None


def bot_spec(text: str, seat: int) -> BotSpec:
    """A bot named on the command line, in any of its forms (:data:`BOT_FORMS`); found, not
    imported (starting it is :func:`check_bots_start`'s job)."""
    try:
        check_bot_file(text, Path.cwd())
        return named_bot(text, Path.cwd(), origin=f"bot {seat}")
    except BadInput as exc:
        raise BadInput(f"bot {seat} {text!r}: {exc}") from exc


def command_spec(text: str, seat: int) -> BotSpec:
    """A bot given as a command line (``--command 'node bot.js'``), read as a config's
    ``command:`` is, relative to the current folder."""
    return command_bot(f"bot {seat}", text, Path.cwd())




def _cards(tokens: Sequence[str], most: int, what: str,
           held: Mapping[Card, int] | None = None) -> list[Card]:
    """Cards named on the command line: some, at most ``most``, each a card, and no more
    copies of one than the deck ``held`` holds (None: the variant does not say)."""
    _some(tokens, most, what)
    cards = parse_cards(tokens)
    if held is not None:
        check_in_deck(cards, held)
    return cards


def _placed(tokens: Sequence[str], most: int, what: str) -> list[Placed]:
    """Cards put on the table, a joker perhaps with the card it stands for (``JK=8H``)."""
    return placed_cards(tokens, most, what)


def _some(tokens: Sequence[str], most: int, what: str) -> None:
    if not tokens:
        raise BadInput("no cards given: expected cards such as 7H 10D JK")
    if len(tokens) > most:
        raise BadInput(f"{len(tokens)} cards: expected at most {most} in {what}")


def _wild(text: str | None) -> Card | None:
    return None if text is None else Card.parse(text)
