"""`arena play`: one game between bots, its result, and with -v the game turn by turn."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, cast

import typer
from tabulate import tabulate

from arena.cards import format_cards
from arena.cli import show
from arena.cli.common import (
    OptionArgs,
    bot_spec,
    command_spec,
    guarded,
)
from arena.cli.human import HUMAN, HumanSeat
from arena.cli.show import round_end, step_notes
from arena.engine.game import Game
from arena.engine.options import check_seat_count, parse_option_args, resolve_options
from arena.errors import BadInput, printable
from arena.records import GameRecord
from arena.referee import FaultEvent, Referee, play_game
from arena.replay import Table, steps
from arena.seats.bot import BUILTIN_BOTS, BotSpec
from arena.seats.make import Isolation, Seat, logs_folder, make_seat, told_apart
from arena.seats.startup import check_bots_start
from arena.tournament.config import SEED
from arena.variants import find_variant

ONE_BOT = ("one bot: a game needs one bot per seat, at least 2 (name it twice to play it "
           "against itself)")


@guarded
def play(
    variant: Annotated[str, typer.Argument(metavar="VARIANT",
                                           help="Variant name, e.g. indian13.")],
    bots: Annotated[list[str] | None, typer.Argument(metavar="BOT",
        help=f"One bot per seat: a built-in bot ({', '.join(BUILTIN_BOTS)}), "
             f"{HUMAN} (you, at the terminal), package.module:Class, path/file.py:Class or "
             "path/file.py.", show_default=False)] = None,
    seed: Annotated[int, typer.Option(min=SEED.low, max=SEED.high, metavar="SEED",
                                      help="Game seed, an integer from 0 (COM-4).")] = 1,
    option: OptionArgs = None,
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Log every turn.")] = False,
    isolation: Annotated[str, typer.Option(
        metavar="inprocess|process",
        help="inprocess (trusted, fast) or process (each bot in its own confined process, "
             "as in a tournament).")] = "inprocess",
    logs: Annotated[Path | None, typer.Option(
        metavar="FOLDER",
        help="With --isolation process: a folder for each bot's stderr log.")] = None,
    command: Annotated[list[str] | None, typer.Option(
        "--command", metavar="'PROGRAM ARGS'",
        help="A bot in any language: its command line, e.g. 'node bot.js' "
        "(repeatable; these seats follow the named bots). It runs in its own process.",
        show_default=False)] = None,
    clock: Annotated[bool, typer.Option(
        "--clock", help="Hold the human seat to the clocks too (COM-8); without it a "
        "person may think as long as they like.")] = False,
) -> None:
    """Play one game between bots (or you: name a seat human) and print the result."""
    if isolation not in ("inprocess", "process"):
        raise BadInput(f"--isolation {isolation!r}: expected inprocess or process")
    named, commands = bots or [], command or []
    _check_flags_apply(named, commands, isolation=isolation, logs=logs, clock=clock)
    logs_folder(logs, f"--logs {logs}")
    game_cls = find_variant(variant)
    options = parse_option_args(option)
    if not named and not commands:
        raise BadInput("no bots: name one per seat (random, greedy, file.py, ...) or give "
                       "--command")
    if len(named) + len(commands) == 1 and "players" not in options:
        raise BadInput(ONE_BOT)
    check_seat_count(game_cls.name, game_cls.OPTIONS, len(named) + len(commands), options)
    options.setdefault("players", len(named) + len(commands))
    people = [i for i, b in enumerate(named) if b.strip() == HUMAN]
    if len(people) > 1:
        raise BadInput(f"{len(people)} human seats: a terminal seats one person")
    specs = {i: bot_spec(b, i) for i, b in enumerate(named) if i not in people}
    specs |= {len(named) + i: command_spec(c, len(named) + i) for i, c in enumerate(commands)}
    specs = told_apart(specs)
    how = cast(Isolation, isolation)
    check_bots_start(list(specs.values()), variant=game_cls, options=resolve_options(
        game_cls.name, game_cls.OPTIONS, options), isolation=how)
    faults: list[FaultEvent] = []
    if people:
        record = _with_a_person(game_cls, specs, people[0], seed=seed, options=options,
                                isolation=how, logs=logs, clocked=clock, faults=faults)
    else:
        record = play_game(game_cls, list(specs.values()), seed=seed, options=options,
                           isolation=how, stderr_dir=logs, on_fault=faults.append)
    if verbose:
        for line in turn_log(record, faults):
            typer.echo(line)
    typer.echo(result_table(record))


def _check_flags_apply(named: list[str], commands: list[str], *, isolation: str,
                       logs: Path | None, clock: bool) -> None:
    """BadInput for a flag this game has nothing for: it was taken without a word, and
    --logs even made an empty folder."""
    if logs is not None and isolation == "inprocess" and not commands:
        raise BadInput(f"--logs {logs}: a bot in the arena's process has no stderr log of "
                       "its own; expected --isolation process (or --command bots)")
    if clock and not any(b.strip() == HUMAN for b in named):
        raise BadInput("--clock holds the human seat to the clocks; expected a seat named "
                       f"{HUMAN} (the bots always are)")


def _with_a_person(game_cls: type[Game], specs: dict[int, BotSpec], person: int, *,
                   seed: int, options: dict[str, Any], isolation: Isolation,
                   logs: Path | None, clocked: bool, faults: list[FaultEvent]) -> GameRecord:
    """The game with seat ``person`` played from this terminal (arena/cli/human.py)."""
    human = HumanSeat(show.console(), clocked=clocked)
    seats: list[Seat] = []
    for i in range(len(specs) + 1):
        seats.append(human if i == person else
                     make_seat(specs[i], isolation=isolation, stderr_dir=logs))
    names = [HUMAN if i == person else specs[i].name for i in range(len(seats))]
    try:
        referee = Referee(game_cls, seats, names, seed=seed, options=options,
                          on_fault=faults.append)
        human.bind(referee)
        return referee.play()
    finally:
        for seat in seats:
            seat.close()


def turn_log(record: GameRecord, faults: Sequence[FaultEvent] = ()) -> list[str]:
    """A readable turn-by-turn account, rebuilt by replaying the record; each fault (with
    what the bot said, such as its traceback) just before the action played for it."""
    names = [s.bot for s in record.seats]
    lines: list[str] = []
    for s in steps(record):
        if s.at is None:
            lines.append(_round_header(s.after))
            continue
        assert s.seat is not None and s.view is not None
        for fault in (f for f in faults if f.at == s.at):
            lines += _fault_lines(fault, names[fault.seat])
        who = f"seat {s.seat} ({names[s.seat]})"
        if s.is_draw:
            lines.append(f"  {who} draws {s.drawn} from the {s.action}")
        else:
            lines.append(f"  {who} {s.action}   [hand was {format_cards(s.view.hand)}]")
        lines += (f"    {note}" for note in step_notes(s))
        if s.ended is not None:
            lines.append(f"  {round_end(s.ended)}")
    return lines


def _fault_lines(fault: FaultEvent, name: str) -> list[str]:
    first, *rest = map(printable, fault.detail.split("\n"))  # the bot's words, escaped
    return [f"  seat {fault.seat} ({name}) fault: {fault.kind}, {first}",
            *(f"    | {line}" for line in rest)]


def _round_header(t: Table) -> str:
    hands = "; ".join(f"{i}: {format_cards(h)}" for i, h in enumerate(t.hands))
    return f"round {t.round}, dealer {t.dealer}{t.headline}\n  hands {hands}"


def result_table(record: GameRecord) -> str:
    """Seats, bots, round penalties, totals and ranks."""
    rows = [[seat, s.bot, *(r.penalties[seat] for r in record.rounds), record.totals[seat],
             record.ranks[seat], sum(s.faults.values())] for seat, s in enumerate(record.seats)]
    heads = ["seat", "bot", *(f"r{r.round}" for r in record.rounds), "total", "rank", "faults"]
    ends = ", ".join(f"r{r.round}: {r.reason}" for r in record.rounds)
    return f"{record.variant} seed {record.seed} ({ends})\n" + tabulate(rows, heads)
