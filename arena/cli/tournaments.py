"""Tournaments from the command line: `arena run`, `validate`, `leaderboard`, `sprt`."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from arena.cli.common import (
    WorkersArg,
    fail,
    guarded,
    stop_reason,
)
from arena.errors import ArenaError, BadInput, counted
from arena.ratings.terms import FORMATS, Anchor, check_format, parse_anchor
from arena.records import GameRecord, games_file, read_games
from arena.seats import confine
from arena.seats.startup import guard_line
from arena.tournament.config import (
    GAMES,
    MAX_GAMES,
    SEED,
    Config,
    cluster_address,
    load_config,
)
from arena.tournament.results import stored_anchor, teams_of
from arena.tournament.runner import check_config_bots, run_tournament, schedule_for

FORMAT_WORDS = "|".join(FORMATS)
MACHINE_FORMATS = ("csv", "json", "html")  # read by programs: stdout holds the table alone
CLUSTER_VARIABLE = "ARENA_CLUSTER"
PROGRESS_EVERY_S = 30.0  # between two lines of progress where no bar is drawn


@guarded
def run(
    config: Annotated[Path, typer.Argument(metavar="CONFIG",
                                           help="The tournament's YAML file.")],
    workers: WorkersArg = None,
    games: Annotated[int | None, typer.Option(min=GAMES.low, max=GAMES.high, metavar="N",
                                              help="Games per table.")] = None,
    seed: Annotated[int | None, typer.Option(min=SEED.low, max=SEED.high, metavar="SEED",
                                             help="Tournament seed.")] = None,
    out: Annotated[str | None, typer.Option(metavar="FOLDER",  # text: '' is no folder
                                            help="Results folder (default: results).")] = None,
    fresh: Annotated[bool, typer.Option(help="Discard earlier results of this config.")] = False,
    fmt: Annotated[str, typer.Option("--format", metavar=FORMAT_WORDS,
                                     help="Leaderboard format.")] = "plain",
    wide: Annotated[bool, typer.Option("--wide", help="Every column of the leaderboard "
                                       "(the default fits 100 columns).")] = False,
    cluster: Annotated[str | None, typer.Option(
        metavar="ADDRESS", help="Play on the Dask cluster whose scheduler is at ADDRESS "
        f"(tcp://HOST:8786; local: the local pool). Default: ${CLUSTER_VARIABLE}, else the "
        "config's cluster:, else local (docs/cluster.md).")] = None,
) -> None:
    """Play a tournament (resuming one that was stopped) and print the leaderboard."""
    cfg = load_config(config, overrides={"workers": workers, "games": games, "seed": seed,
                                         "output": out, **_cluster_choice(cluster)})
    check_format(fmt)  # reject a bad --format before playing
    _warn_if_unconfined(cfg)
    try:
        bar = sys.stderr.isatty()
        played = run_tournament(cfg, fresh=fresh, progress=bar,
                                on_game=None if bar else ProgressLines())
    except KeyboardInterrupt as exc:
        _stopped(exc, _what_is_kept(cfg.results_dir / "games.jsonl", fresh=fresh))
    records = read_games(cfg.results_dir / "games.jsonl", actions=False)
    typer.echo(f"{cfg.name}: {len(records)} games ({played} played now) in {cfg.results_dir}",
               err=fmt in MACHINE_FORMATS)  # stdout: the table alone, for a parser
    _print_board(records, anchor=cfg.anchor, fmt=fmt, wide=wide)
    _name_broken_bots(records, cfg.results_dir / "logs")


class ProgressLines:
    """A line on stderr every PROGRESS_EVERY_S where no bar can be drawn (a CI log, a file),
    so that a long run is not silent until its end."""

    def __init__(self) -> None:
        self.start = self.last = time.monotonic()
        self.played = 0
        self.heard = True  # False once stderr is gone: the run plays on, unheard

    def __call__(self, record: GameRecord, done: int, total: int) -> None:
        self.played += 1
        now = time.monotonic()
        if self.heard and now - self.last >= PROGRESS_EVERY_S and done < total:
            self.last = now
            try:
                typer.echo(progress_line(done, total, self.played / (now - self.start)),
                           err=True)
            except OSError:  # a closed pipe (| head): no reason to stop the games
                self.heard = False


def progress_line(done: int, total: int, rate: float) -> str:
    """How far a run is, at ``rate`` games a second.

    >>> progress_line(120, 480, 2.0)
    'arena: 120 of 480 games (25%), 2.0 games/s, about 3 min left'
    >>> progress_line(3, 400, 0.01)
    'arena: 3 of 400 games (0%), 100 s a game, about 11 h left'
    """
    pace = f"{rate:.1f} games/s" if rate >= 0.1 else f"{1 / rate:.0f} s a game"
    return f"arena: {done} of {total} games ({100 * done // total}%), {pace}, " \
        f"about {_duration((total - done) / rate)} left"


def _duration(seconds: float) -> str:
    """A time in the unit that reads best: 40 s, 12 min, 3 h."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 90 * 60 else f"{seconds / 3600:.0f} h"


def _stopped(exc: KeyboardInterrupt, kept: str) -> NoReturn:
    """End a stopped command in one line that says what it kept, with the stop's code."""
    reason, code = stop_reason(exc)
    typer.echo(f"arena: {reason}{kept}", err=True)
    raise typer.Exit(code) from None


def _what_is_kept(games: Path, *, fresh: bool = False) -> str:
    """What a stopped run leaves: its games, or nothing yet (stopped while its bots were
    first started). The same command with ``--fresh`` would delete them: so it is not
    offered then."""
    if games.is_file() and games.stat().st_size:
        again = "run it again without --fresh" if fresh else "run the same command again"
        return f": every finished game is kept in {games}; {again} to resume"
    return " before any game was played"


def _cluster_choice(option: str | None) -> dict[str, Any]:
    """The cluster named by --cluster, else by $ARENA_CLUSTER, as a config override; none
    when neither names one (the config's cluster: decides)."""
    variable = os.environ.get(CLUSTER_VARIABLE, "").strip() or None  # empty: unset
    for text, source in ((option, "--cluster"), (variable, f"${CLUSTER_VARIABLE}")):
        if text is not None:  # --cluster "" (an unset variable in a script) is refused
            try:
                return {"cluster": cluster_address(text)}
            except BadInput as exc:
                raise BadInput(f"{source}: {exc}") from exc
    return {}


def _print_board(records: Sequence[GameRecord], *, anchor: Anchor | None, fmt: str,
                 wide: bool) -> None:
    """The leaderboard, with the lines under it that say what it rests on."""
    from arena.ratings.leaderboard import board  # numpy: only when rating
    from arena.ratings.render import render
    rated = board(records, anchor=anchor, teams=teams_of(records))
    typer.echo(render(rated.rows, fmt, wide=wide, footing=rated.footing))


def _fault_counts(records: Sequence[GameRecord]) -> dict[str, dict[str, int]]:
    """Each bot's faults, decisions and games forfeited over the records, in seat order."""
    counts: dict[str, dict[str, int]] = {}
    for record in records:
        for seat in record.seats:
            bot = counts.setdefault(seat.bot, dict.fromkeys(("faults", "decisions",
                                                             "forfeits"), 0))
            bot["faults"] += sum(seat.faults.values())
            bot["decisions"] += seat.decisions
            bot["forfeits"] += seat.forfeit
    return counts


def _faults_line(bot: str, counts: dict[str, int]) -> str:
    """``v2 148 in 1,618 decisions (2 games forfeited)``."""
    lost = f" ({counted(counts['forfeits'], 'game')} forfeited)" if counts["forfeits"] else ""
    return f"{bot} {counts['faults']} in {counts['decisions']:,} decisions{lost}"


def _name_broken_bots(records: Sequence[GameRecord], logs: Path) -> None:
    """Say on the console which bots faulted on a fifth of their decisions or more (one
    that fails every play, say), and where their tracebacks are: a broken bot is
    otherwise seen only as a weak one."""
    from arena.ratings.leaderboard import faulty_bots
    for bot in faulty_bots(records):
        share = bot.faults / max(bot.decisions, 1)
        lost = f"forfeited {bot.forfeits} of its {bot.games} games and " if bot.forfeits else ""
        how = f"on {min(share, 1):.0%} of its decisions" if bot.decisions else \
            "before making any decision"
        typer.echo(f"arena: warning: bot {bot.bot!r} {lost}faulted {how} ({bot.faults} faults, "
                   f"mostly {bot.most_common}); see {_where_to_look(bot.bot, logs)}", err=True)


def _where_to_look(bot: str, logs: Path) -> str:
    """arena.log (a line per fault), and the bot's own log when it wrote one: an illegal or
    unreadable answer leaves it empty, and the warning sent students to an empty file."""
    own = logs / f"{bot}.stderr.log"
    with contextlib.suppress(OSError):
        if own.stat().st_size:
            return f"{own} and {logs.parent / 'arena.log'}"
    return f"{logs.parent / 'arena.log'}"


def _warn_if_unconfined(cfg: Config) -> None:
    """Say on the console, not only in the log, that bots will not be confined here."""
    uses_processes = cfg.isolation == "process" or any(b.command for b in cfg.bots)
    why = confine.problem() if uses_processes else None
    if why is not None:
        typer.echo(f"arena: warning: bots run unconfined ({why}): they can read your files "
                   "and signal your processes; run only bots you trust", err=True)


@guarded
def validate(
    config: Annotated[Path, typer.Argument(metavar="CONFIG",
                                           help="The tournament's YAML file.")],
) -> None:
    """Check a config without playing: options and format are valid, every bot starts
    (launched as its games will launch it)."""
    cfg = load_config(config)
    check_config_bots(cfg)
    total = len(schedule_for(cfg))
    typer.echo(f"{config}: ok: {cfg.variant} with {len(cfg.bots)} bots, "
               f"{counted(total, 'game')} at {cfg.players}-seat tables, "
               f"{counted(cfg.workers, 'worker')}")
    if cfg.isolation == "process" or any(b.command for b in cfg.bots):
        typer.echo(guard_line())


@guarded
def leaderboard(
    results: Annotated[Path, typer.Argument(metavar="RESULTS",
                                            help="A results folder (with games.jsonl).")],
    fmt: Annotated[str, typer.Option("--format", metavar=FORMAT_WORDS,
                                     help="The table's format.")] = "plain",
    h2h: Annotated[bool, typer.Option("--h2h", help="Print the head-to-head table instead: "
                                      "each pair's score (wins, ties half) out of their "
                                      "comparisons.")] = False,
    anchor: Annotated[list[str] | None, typer.Option(  # a list: a second one is refused
        metavar="NAME=ELO", show_default=False, help="Fix one bot's Elo (default: the "
        "config's rating.anchor, else mean 1500).")] = None,
    wide: Annotated[bool, typer.Option("--wide", help="Every column (the default table fits "
                                       "100 columns).")] = False,
) -> None:
    """Print the leaderboard of a results folder, computed from games.jsonl alone."""
    games = games_file(results)
    check_format(fmt)  # the arguments first: a warning of read_games is no error
    if h2h and (wide or anchor):  # they were taken, and changed nothing
        raise BadInput(f"--h2h with {'--wide' if wide else '--anchor'}: the head-to-head "
                       "table has no Elo or intervals; those options are for the leaderboard")
    fixed = None if h2h else parse_anchor(_one_anchor(anchor)) if anchor else \
        stored_anchor(games.parent)
    records = read_games(games, actions=False)
    if h2h:
        from arena.ratings.leaderboard import head_to_head  # numpy: only when rating
        from arena.ratings.render import render_h2h
        typer.echo(render_h2h(head_to_head(records, teams=teams_of(records)), fmt))
        return
    _print_board(records, anchor=fixed, fmt=fmt, wide=wide)


def _one_anchor(given: list[str]) -> str:
    """The one --anchor: the ratings fix one bot's Elo, as a config's rating.anchor does."""
    if len(given) > 1:
        raise BadInput(f"--anchor given {len(given)} times: expected one bot and its Elo, "
                       "e.g. --anchor random=1000")
    return given[0]


@guarded
def sprt(
    config: Annotated[Path, typer.Argument(metavar="CONFIG",
                                           help="A tournament's YAML file: variant, options "
                                           "(players), bots, seed, workers.")],
    candidate: Annotated[str, typer.Option(metavar="BOT",
                                           help="The bot that may be stronger (A).")],
    baseline: Annotated[str, typer.Option(metavar="BOT", help="The bot to beat (B).")],
    elo0: Annotated[float, typer.Option(metavar="ELO",
                                        help="H0: A is this much stronger (Elo).")] = 0.0,
    elo1: Annotated[float, typer.Option(metavar="ELO",
                                        help="H1: A is this much stronger (Elo).")] = 10.0,
    alpha: Annotated[float, typer.Option(metavar="P",
                                         help="Risk of accepting H1 under H0.")] = 0.05,
    beta: Annotated[float, typer.Option(metavar="P",
                                        help="Risk of accepting H0 under H1.")] = 0.05,
    max_games: Annotated[int | None, typer.Option(min=1, max=MAX_GAMES, metavar="N",
                                                  help="Stop undecided (exit 3) after this "
                                                  "many games.")] = None,
    filler: Annotated[str | None, typer.Option(metavar="BOT",
                                               help="The bot in seats beyond two "
                                               "(default: the baseline).")] = None,
    workers: WorkersArg = None,
    seed: Annotated[int | None, typer.Option(min=SEED.low, max=SEED.high, metavar="SEED",
                                             help="The test's seed (default: the config's, "
                                             "else a random one).")] = None,
    fresh: Annotated[bool, typer.Option(help="Replace the games of an earlier test.")] = False,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print the verdict as one JSON object on stdout (the progress goes "
        "to stderr).")] = False,
) -> None:
    """Sequential test: is the candidate stronger than the baseline? Plays duplicate sets
    until the evidence decides. Exit 0: yes (H1), 1: no (H0), 2: bad input, 3: undecided at
    --max-games, 4: no verdict (a bot's code changed meanwhile, or an error stopped it)."""
    from arena.ratings.sprt import Sprt  # numpy: only when rating
    from arena.tournament.sprt_run import NO_VERDICT, run_sprt, sprt_folder
    cfg = load_config(config, overrides={"workers": workers, "seed": seed}, schedule=False)
    _warn_if_unconfined(cfg)
    test = Sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)
    say: Callable[[str], None] = (lambda line: typer.echo(line, err=True)) if as_json \
        else typer.echo
    try:
        verdict = run_sprt(cfg, test, candidate=candidate, baseline=baseline, filler=filler,
                           max_games=max_games, report=say, fresh=fresh)
    except KeyboardInterrupt as exc:
        games = sprt_folder(cfg) / "games.jsonl"
        _stopped(exc, f": the games played are kept in {games}; run the command again "
                 "(without --fresh) to resume the test"
                 if games.is_file() and games.stat().st_size else "")
    except BadInput:
        raise
    except ArenaError as exc:  # not H0's 1: a gate must tell "worse" from "broken"
        fail(str(exc), NO_VERDICT)
    folder = sprt_folder(cfg)  # a broken candidate is not a weak one: say so beside H0
    records = read_games(folder / "games.jsonl", actions=False)
    _name_broken_bots(records, folder / "logs")
    faults = _fault_counts(records)
    if any(f["faults"] for f in faults.values()):  # under a fifth of the decisions, faults
        # were nowhere in the test's output: a CI gate read "weaker" where it was "broken"
        say("faults: " + ", ".join(_faults_line(bot, f) for bot, f in faults.items()))
    if verdict.edited:
        typer.echo(f"arena: warning: the code of {', '.join(verdict.edited)} changed while "
                   "this test played: no verdict (exit code 4)", err=True)
    if as_json:
        typer.echo(json.dumps({**verdict.as_json(test, candidate, baseline), "faults": faults}))
    raise typer.Exit(verdict.exit_code)
