"""`arena replay`: a finished game turn by turn in the terminal, rebuilt from its record, as
the organiser saw it (every hand) or as one seat did (exactly what its bot was given)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from arena.cli import show
from arena.cli.common import OptionArgs, bot_spec, guarded
from arena.cli.games import ONE_BOT
from arena.engine.game import Game
from arena.engine.options import parse_option_args
from arena.errors import BadInput, shown
from arena.records import GameRecord, games_file, read_games
from arena.referee import play_game
from arena.replay import Step, public_text, steps
from arena.tournament.config import SEED
from arena.tournament.results import sides, teams_of
from arena.variants import find_variant

LISTED = 20  # game ids named when the one asked for is not in the folder (the first, by id)


@guarded
def replay(
    where: Annotated[list[str] | None, typer.Argument(
        metavar="RESULTS_DIR GAME_ID | VARIANT BOT...",
        help="A results folder (or its games.jsonl) and a game id; with --seed, the variant "
             "and bots of an `arena play` game instead.", show_default=False)] = None,
    seat: Annotated[int | None, typer.Option(
        min=0, metavar="N", help="Show only what seat N saw: its own views.")] = None,
    step: Annotated[bool, typer.Option(
        "--step", help="Wait for Enter after each turn.")] = False,
    seed: Annotated[int | None, typer.Option(
        min=SEED.low, max=SEED.high, metavar="SEED",
        help="Replay the game `arena play VARIANT BOT... --seed SEED` plays (the same "
             "game when the bots play the same moves for the same seed, as the built-in "
             "bots do).")] = None,
    option: OptionArgs = None,
) -> None:
    """Replay a finished game turn by turn: draws, plays, the table, penalties, faults.
    Given a results folder alone, list its games."""
    if seed is None and option:
        raise BadInput(f"-o {option[0]}: a recorded game's options are its record's; "
                       "expected -o only with --seed")
    if seed is None and where is not None and len(where) == 1:
        _list_games(where[0])
        return
    source, record = (f"replay --seed {seed}", _played(where or [], seed, option)) \
        if seed is not None else _recorded(where or [])
    if seat is not None and seat >= len(record.seats):
        raise BadInput(f"--seat {seat}: the game has seats 0 to {len(record.seats) - 1}")
    try:  # the whole game first: a record that does not replay prints none of it
        played = list(steps(record))
    except ValueError as exc:
        raise BadInput(f"{source}: {exc}: the record does not replay") from exc
    out = show.console()
    names = [s.bot for s in record.seats]
    teams = teams_of([record])
    partners = "" if teams is None else \
        f" (teams: seats {sides([str(i) for i in range(len(names))], teams)})"
    title = f"game {show.plain(record.id)}" if seed is None else "arena play's game"  # its
    # id is the placeholder "game": "game game:" said nothing
    out.print(f"{title}: {record.variant}, seed {record.seed}, "
              f"{', '.join(f'seat {i} {show.plain(n)}' for i, n in enumerate(names))}"
              f"{partners}")
    for s in played:
        lines = list(_step_lines(s, names, seat))
        if lines:
            out.print("\n".join(lines))
            if step and s.at is not None:
                _wait(out)
    out.print(f"final totals {list(record.totals)}, ranks {list(record.ranks)} "
              f"({_ending(record)})")


def _ending(record: GameRecord) -> str:
    """How a game ended, naming the seats that forfeited: "(forfeit)" alone left a reader
    to guess which seat had lost that way (both, at times)."""
    gave_up = [f"seat {i} {show.plain(s.bot)}" for i, s in enumerate(record.seats)
               if s.forfeit]
    return f"{record.termination}: {', '.join(gave_up)}" if gave_up else \
        str(record.termination)


def _wait(out: Console) -> None:
    try:
        input()
    except EOFError:  # input ran out: the rest plays through
        return


def _list_games(where: str) -> None:
    """One line per game of a results folder, in id order: its id, each seat's bot and
    total, how it ended; the id is what ``arena replay FOLDER ID`` takes."""
    records = sorted(read_games(games_file(where), actions=False), key=lambda r: r.id)
    if not records:
        typer.echo(f"{where}: no game yet")
    for r in records:
        seats = ", ".join(f"{s.bot} {total}" for s, total in zip(r.seats, r.totals,
                                                                   strict=True))
        typer.echo(f"{r.id}  {seats}  ({_ending(r)})")


def _recorded(where: Sequence[str]) -> tuple[str, GameRecord]:
    """The games file and its record asked for, so that an error names both."""
    if not where:
        raise BadInput("replay: name a results folder and a game id (or give --seed)")
    path = Path(where[0])
    games = games_file(where[0])
    records = read_games(games)
    wanted = where[1]
    found = [r for r in records if r.id == wanted]
    if len(where) > 2 or not found:
        raise BadInput(f"{path}: no game {shown(wanted)}; its games are {_ids(records)}"
                       if not found else f"replay: one game at a time, got {len(where) - 1}")
    return str(games), found[0]


def _ids(records: Sequence[GameRecord]) -> str:
    ids = sorted(r.id for r in records)[:LISTED]
    more = f" and {len(records) - LISTED} more" if len(records) > LISTED else ""
    return (", ".join(ids) + more) if ids else "(none yet)"


def _played(where: Sequence[str], seed: int, option: list[str] | None) -> GameRecord:
    """The game `arena play` plays with these bots and seed, played again in process."""
    if len(where) < 2:
        raise BadInput("replay --seed: name the variant and one bot per seat, as for "
                       "`arena play`")
    game_cls = _seed_variant(where[0])
    options = parse_option_args(option)
    if len(where) == 2 and "players" not in options:  # arena play refuses it so, not by IND-1
        raise BadInput(f"replay --seed: {ONE_BOT}")
    options.setdefault("players", len(where) - 1)
    specs = [bot_spec(b, i) for i, b in enumerate(where[1:])]
    return play_game(game_cls, specs, seed=seed, options=options)


def _seed_variant(text: str) -> type[Game]:
    """The variant of the game --seed plays again; a results folder named with --seed is
    told to drop it, since a recorded game is replayed without one."""
    try:
        return find_variant(text)
    except BadInput as exc:
        recorded = os.path.exists(text)  # results/b: a recorded game, asked with --seed
        why = f"{shown(text)} is a file or folder, not a variant: drop --seed to replay " \
            "a recorded game" if recorded else str(exc)
        raise BadInput(f"replay --seed: expected a variant and one bot per seat, as for "
                       f"`arena play`; {why}") from exc


def _step_lines(s: Step, names: Sequence[str], seat: int | None) -> Iterator[str]:
    """What one step shows: to the organiser everything, to ``seat`` its own view."""
    t = s.after
    if s.at is None:  # a deal
        yield f"round {t.round}, dealer {t.dealer}{show.plain(t.headline)}"
        for i, h in enumerate(t.hands):
            if seat is None or i == seat:
                yield f"  hand {i}: {show.hand(h)}"
        yield show.table_line(t, seat)
        return
    assert s.seat is not None
    who = f"seat {s.seat} ({show.plain(names[s.seat])})"
    for note in s.faults:  # another seat's: no action of its own (a bot that did not start)
        yield f"  [bold yellow]seat {note.seat} ({show.plain(names[note.seat])}) fault: " \
              f"{note.kind}[/bold yellow] " + ("(the action below was played for it)"
                                                if note.seat == s.seat else "(no action of it "
                                                "here: it did not start, or was stopped)")
    own = seat is None or s.seat == seat
    yield f"  {who}: {_own_text(s) if own else show.plain(public_text(s))}"
    yield from (f"    {note}" for note in show.step_notes(s))
    if own and s.ended is None:
        yield f"    hand {s.seat}: {show.hand(t.hands[s.seat])}"
    if s.ended is None:
        if not s.is_draw or seat is None:
            yield show.table_line(t, seat)
        return
    r = s.ended
    yield f"  {show.plain(show.round_end(r))}"
    for i, h in enumerate(r.hands):  # every hand is shown at a round's end (COM-5)
        yield f"    final hand {i}: {show.hand(h)}"


def _own_text(s: Step) -> str:
    """The step as the actor (or the organiser) saw it: a drawn card included."""
    if s.is_draw:
        return f"draws {show.card(s.drawn)} from the {s.action}"
    return show.plain(s.action)
