"""The ``arena`` command: thin typer wrappers over the library. Bad input exits 2, in one line."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, ParamSpec, TypeVar, cast

import typer
from tabulate import tabulate
from typer.core import TyperGroup

from arena.cards import Card, format_cards, parse_cards
from arena.engine.game import Game
from arena.engine.options import parse_option_args, resolve_options
from arena.errors import ArenaError, BadInput
from arena.ratings.leaderboard import (
    faulty_bots,
    head_to_head,
    parse_anchor,
    render,
    render_h2h,
    standings,
    stored_anchor,
)
from arena.records import GameRecord, parse_logged, read_games
from arena.referee import FaultEvent, play_game
from arena.seats import confine
from arena.seats.bot import BotSpec
from arena.seats.make import Isolation
from arena.seats.startup import check_bots_start
from arena.tournament.config import GAMES, MAX_GAMES, SEED, WORKERS, Config, load_config
from arena.tournament.runner import check_config_bots, run_tournament, schedule_for
from arena.tournament.sprt_run import Sprt, run_sprt
from arena.variants import VARIANTS, find_variant


class _OneLineErrors(TyperGroup):
    """Usage errors in one line (``arena: error: ...``) with exit code 2, like every other
    bad input."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        try:
            code = super().main(*args, **kwargs)
        except typer.TyperException as exc:  # usage errors of typer's own (vendored) click
            message = exc.format_message()
            if type(exc).__name__ == "NoArgsIsHelpError":
                typer.echo(message)  # plain `arena`: the help text
                sys.exit(0)
            typer.echo(f"arena: error: {message}", err=True)
            sys.exit(exc.exit_code)
        except typer.Abort:
            typer.echo("arena: interrupted", err=True)
            sys.exit(130)
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(cls=_OneLineErrors, add_completion=False, no_args_is_help=True,
                  rich_markup_mode=None, pretty_exceptions_enable=False,
                  help="Rummy Arena: play rummy bots against each other and rate them.")

BUILTIN_BOTS = {"random": "bots.random_bot:RandomBot", "greedy": "bots.greedy:GreedyBot"}

P = ParamSpec("P")
R = TypeVar("R")
OptionArgs = Annotated[list[str] | None, typer.Option(
    "-o", "--option", help="A variant option as key=value (repeatable), e.g. -o players=3.")]
WildArg = Annotated[str | None, typer.Option(
    "--wild", help="The IND indicator card, which sets the wild cards (e.g. 7C).")]
RoundArg = Annotated[int | None, typer.Option(
    "--round", min=1, max=11, help="The TT round (1-11), which sets the wild rank.")]
JsonArg = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
WorkersArg = Annotated[int | None, typer.Option(min=WORKERS.low, max=WORKERS.high,
                                                help="Worker processes.")]


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
        raise AssertionError("unreachable")

    return wrapper


def bot_spec(text: str, seat: int) -> BotSpec:
    """A bot named on the command line: a built-in name or ``module:Class`` / ``file.py:Class``;
    found, not imported (starting it is :func:`check_bots_start`'s job)."""
    target = BUILTIN_BOTS.get(text, text)
    name = text if text in BUILTIN_BOTS else text.rpartition(":")[2]
    where, sep, cls = target.rpartition(":")
    if not (sep and where and cls):
        raise BadInput(f"bot {seat} {text!r}: expected 'random', 'greedy', "
                       "'package.module:Class' or 'file.py:Class'")
    spec = BotSpec(name, target, origin=f"bot {seat}")
    try:
        spec.source_files()
    except BadInput as exc:
        raise BadInput(f"bot {seat} {text!r}: {exc}") from exc
    return spec


# The calculators' card counts. No hand of any variant holds more than 15 cards (the
# dealer's in Rummy 51 and Moroccan rummy), and the best-arrangement search grows fast with
# each card past that: 20 leaves room for any hand a player asks about and answers within
# about a second. No combination holds more than about 20 cards (a Three-Thirteen set of
# every copy of one rank and every wild card): 36 is past any a player could lay down.
MAX_HAND = 20
MAX_MELD = 36


def _cards(tokens: Sequence[str], most: int, what: str) -> list[Card]:
    if not tokens:
        raise BadInput("no cards given: expected cards such as 7H 10D JK")
    if len(tokens) > most:
        raise BadInput(f"{len(tokens)} cards: expected at most {most} in {what}")
    return parse_cards(tokens)


def _wild(text: str | None) -> Card | None:
    return None if text is None else Card.parse(text)


@app.command()
@guarded
def play(
    variant: Annotated[str, typer.Argument(help="Variant name, e.g. indian13.")],
    bots: Annotated[list[str], typer.Argument(help="One bot per seat.")],
    seed: Annotated[int, typer.Option(min=SEED.low, max=SEED.high,
                                      help="Game seed (COM-4).")] = 1,
    option: OptionArgs = None,
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Log every turn.")] = False,
    isolation: Annotated[str, typer.Option(
        help="inprocess (trusted, fast) or process (each bot in its own confined process, "
             "as in a tournament).")] = "inprocess",
    logs: Annotated[Path | None, typer.Option(
        help="With --isolation process: a folder for each bot's stderr log.")] = None,
) -> None:
    """Play one game between bots and print the result."""
    if isolation not in ("inprocess", "process"):
        raise BadInput(f"--isolation {isolation!r}: expected inprocess or process")
    game_cls = find_variant(variant)
    options = parse_option_args(option)
    options.setdefault("players", len(bots))
    specs = [bot_spec(b, i) for i, b in enumerate(bots)]
    how = cast(Isolation, isolation)
    check_bots_start(specs, variant=game_cls, options=resolve_options(
        game_cls.name, game_cls.OPTIONS, options), isolation=how)
    faults: list[FaultEvent] = []
    record = play_game(game_cls, specs, seed=seed, options=options, isolation=how,
                       stderr_dir=logs, on_fault=faults.append)
    if verbose:
        for line in turn_log(game_cls, record, faults):
            typer.echo(line)
    typer.echo(result_table(record))


def turn_log(game_cls: type[Game], record: GameRecord,
             faults: Sequence[FaultEvent] = ()) -> list[str]:
    """A readable turn-by-turn account, rebuilt by replaying the record; each fault (with
    what the bot said, such as its traceback) just before the action played for it."""
    game = game_cls(seed=record.seed, options=record.options)
    names = [s.bot for s in record.seats]
    lines = [_round_header(game)]
    for at, text in enumerate(record.actions):
        for fault in (f for f in faults if f.at == at):
            lines += _fault_lines(fault, names[fault.seat])
        seat, action = parse_logged(text)
        before = game.round
        drawn_hand = list(game.hands[seat])
        game.apply(action)
        who = f"seat {seat} ({names[seat]})"
        if str(action) in ("stock", "discard", "tournante"):
            got = game.hands[seat][-1] if game.round == before and game.hands[seat] else None
            lines.append(f"  {who} draws {got} from the {action}")
        else:
            lines.append(f"  {who} {action}   [hand was {format_cards(drawn_hand)}]")
        if game.round != before or game.finished:
            result = game.results[-1]
            lines.append(f"  round {result.round} ends ({result.reason}): penalties "
                         f"{list(result.penalties)}, totals {list(game.totals)}")
            if not game.finished:
                lines.append(_round_header(game))
    return lines


def _fault_lines(fault: FaultEvent, name: str) -> list[str]:
    first, *rest = fault.detail.splitlines() or [""]
    return [f"  seat {fault.seat} ({name}) fault: {fault.kind}, {first}",
            *(f"    | {line}" for line in rest)]


def _round_header(game: Game) -> str:
    hands = "; ".join(f"{i}: {format_cards(h)}" for i, h in enumerate(game.hands))
    extra = f", indicator {game.indicator()}" if game.indicator() else ""
    rank = f", wild rank {game.wild_rank()}" if game.wild_rank() else ""
    return f"round {game.round}, dealer {game.dealer}{extra}{rank}\n  hands {hands}"


def result_table(record: GameRecord) -> str:
    """Seats, bots, round penalties, totals and ranks."""
    rows = [[seat, s.bot, *(r.penalties[seat] for r in record.rounds), record.totals[seat],
             record.ranks[seat], sum(s.faults.values())] for seat, s in enumerate(record.seats)]
    heads = ["seat", "bot", *(f"r{r.round}" for r in record.rounds), "total", "rank", "faults"]
    ends = ", ".join(f"r{r.round}: {r.reason}" for r in record.rounds)
    return f"{record.variant} seed {record.seed} ({ends})\n" + tabulate(rows, heads)


@app.command()
@guarded
def hand(
    variant: Annotated[str, typer.Argument(help="Variant name, e.g. indian13.")],
    cards: Annotated[list[str], typer.Argument(help="The cards, e.g. 3S 4S 5S 8H 8D 8C.")],
    wild: WildArg = None,
    round: RoundArg = None,
    option: OptionArgs = None,
    as_json: JsonArg = False,
) -> None:
    """Rules calculator: best arrangement, deadwood, points and whether it declares."""
    game_cls = find_variant(variant)
    report = game_cls.hand_report(_cards(cards, MAX_HAND, "a hand"), wild=_wild(wild),
                                  round=round, options=parse_option_args(option))
    if as_json:
        typer.echo(json.dumps(report.as_json()))
        return
    rows = [[m.kind, str(m)] for m in report.melds]
    rows.append(["deadwood", format_cards(report.deadwood) or "-"])
    typer.echo(tabulate(rows, ["group", "cards"]))
    typer.echo(f"points: {report.points}")
    typer.echo(f"valid declaration: {'yes' if report.valid_declaration else 'no'}")


@app.command()
@guarded
def meld(
    variant: Annotated[str, typer.Argument(help="Variant name, e.g. indian13.")],
    cards: Annotated[list[str], typer.Argument(help="The cards of one combination.")],
    wild: WildArg = None,
    round: RoundArg = None,
    option: OptionArgs = None,
    as_json: JsonArg = False,
) -> None:
    """Is this one valid combination, and of which kind?"""
    game_cls = find_variant(variant)
    check = game_cls.meld_report(_cards(cards, MAX_MELD, "one combination"),
                                 wild=_wild(wild), round=round,
                                 options=parse_option_args(option))
    if as_json:
        typer.echo(json.dumps({"valid": check.valid, "kind": check.kind,
                               "reason": check.reason}))
        return
    typer.echo(f"valid: {check.kind}" if check.valid else f"invalid: {check.reason}")


@app.command()
@guarded
def run(
    config: Annotated[Path, typer.Argument(help="The tournament's YAML file.")],
    workers: WorkersArg = None,
    games: Annotated[int | None, typer.Option(min=GAMES.low, max=GAMES.high,
                                              help="Games per table.")] = None,
    seed: Annotated[int | None, typer.Option(min=SEED.low, max=SEED.high,
                                             help="Tournament seed.")] = None,
    out: Annotated[Path | None, typer.Option(help="Results folder (default: results).")] = None,
    fresh: Annotated[bool, typer.Option(help="Discard earlier results of this config.")] = False,
    fmt: Annotated[str, typer.Option("--format", help="Leaderboard format.")] = "plain",
) -> None:
    """Play a tournament (resuming one that was stopped) and print the leaderboard."""
    cfg = load_config(config, overrides={"workers": workers, "games": games, "seed": seed,
                                         "output": out})
    render(standings([]), fmt)  # reject a bad --format before playing
    _warn_if_unconfined(cfg)
    try:
        played = run_tournament(cfg, fresh=fresh, progress=sys.stderr.isatty())
    except KeyboardInterrupt:
        fail(f"stopped; every finished game is kept in {cfg.results_dir}/games.jsonl. "
             f"Run the same command again to resume.", 130)
    records = read_games(cfg.results_dir / "games.jsonl")
    typer.echo(f"{cfg.name}: {len(records)} games ({played} played now) in {cfg.results_dir}")
    typer.echo(render(standings(records, anchor=cfg.anchor), fmt))
    _name_broken_bots(records, cfg.results_dir / "logs")


def _name_broken_bots(records: Sequence[GameRecord], logs: Path) -> None:
    """Say on the console which bots faulted on most of their decisions, and where their
    tracebacks are: a broken bot is otherwise seen only as a weak one."""
    for bot in faulty_bots(records):
        share = bot.faults / max(bot.decisions, 1)
        typer.echo(f"arena: warning: bot {bot.bot!r} faulted on {min(share, 1):.0%} of its "
                   f"decisions ({bot.faults} faults, mostly {bot.most_common}); see "
                   f"{logs / (bot.bot + '.stderr.log')}", err=True)


def _warn_if_unconfined(cfg: Config) -> None:
    """Say on the console, not only in the log, that bots will not be confined here."""
    uses_processes = cfg.isolation == "process" or any(b.command for b in cfg.bots)
    why = confine.problem() if uses_processes else None
    if why is not None:
        typer.echo(f"arena: warning: bots run unconfined ({why}): they can read your files "
                   "and signal your processes; run only bots you trust", err=True)


@app.command()
@guarded
def validate(
    config: Annotated[Path, typer.Argument(help="The tournament's YAML file.")],
) -> None:
    """Check a config without playing: options and format are valid, every bot starts
    (launched as its games will launch it)."""
    cfg = load_config(config)
    check_config_bots(cfg)
    total = len(schedule_for(cfg))
    typer.echo(f"{config}: ok: {cfg.variant} with {len(cfg.bots)} bots, {total} games "
               f"at {cfg.players}-seat tables, {cfg.workers} workers")


@app.command()
@guarded
def leaderboard(
    results: Annotated[Path, typer.Argument(help="A results folder (with games.jsonl).")],
    fmt: Annotated[str, typer.Option("--format", help="plain, github, markdown, csv, "
                                     "json or html.")] = "plain",
    h2h: Annotated[bool, typer.Option("--h2h", help="Print the head-to-head table instead: "
                                      "each pair's score (wins, ties half) and games.")] = False,
    anchor: Annotated[str | None, typer.Option(help="Fix one bot's Elo, NAME=ELO (default: "
                                               "the config's rating.anchor, else mean "
                                               "1500).")] = None,
) -> None:
    """Print the leaderboard of a results folder, computed from games.jsonl alone."""
    games = results / "games.jsonl" if results.is_dir() else results
    if not games.is_file():
        raise BadInput(f"{results}: no games.jsonl here")
    render(standings([]), fmt)  # the arguments first: a warning of read_games is no error
    fixed = None if h2h else parse_anchor(anchor) if anchor else stored_anchor(games.parent)
    records = read_games(games)
    if h2h:
        typer.echo(render_h2h(head_to_head(records), fmt))
        return
    typer.echo(render(standings(records, anchor=fixed), fmt))


@app.command()
@guarded
def sprt(
    config: Annotated[Path, typer.Argument(help="A tournament's YAML file: variant, options "
                                           "(players), bots, seed, workers.")],
    candidate: Annotated[str, typer.Option(help="The bot that may be stronger (A).")],
    baseline: Annotated[str, typer.Option(help="The bot to beat (B).")],
    elo0: Annotated[float, typer.Option(help="H0: A is this much stronger (Elo).")] = 0.0,
    elo1: Annotated[float, typer.Option(help="H1: A is this much stronger (Elo).")] = 10.0,
    alpha: Annotated[float, typer.Option(help="Risk of accepting H1 under H0.")] = 0.05,
    beta: Annotated[float, typer.Option(help="Risk of accepting H0 under H1.")] = 0.05,
    max_games: Annotated[int | None, typer.Option(min=1, max=MAX_GAMES,
                                                  help="Stop undecided (exit 3) after this "
                                                  "many games.")] = None,
    filler: Annotated[str | None, typer.Option(help="The bot in seats beyond two "
                                               "(default: the baseline).")] = None,
    workers: WorkersArg = None,
) -> None:
    """Sequential test: is the candidate stronger than the baseline? Plays duplicate sets
    until the evidence decides. Exit 0: yes (H1), 1: no (H0), 3: undecided at --max-games."""
    cfg = load_config(config, overrides={"workers": workers})
    _warn_if_unconfined(cfg)
    verdict = run_sprt(cfg, Sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta),
                       candidate=candidate, baseline=baseline, filler=filler,
                       max_games=max_games, report=typer.echo)
    raise typer.Exit(verdict.exit_code)


@app.command()
def variants() -> None:
    """List the variants with their options, defaults and allowed values."""
    for v in VARIANTS:
        typer.echo(f"{v.name} ({v.version}; aliases: {', '.join(v.aliases)})")
        rows: list[list[Any]] = [[o.name, json.dumps(o.default) if not callable(o.default)
                                  else "(depends)", o.expected, o.rule] for o in v.OPTIONS]
        typer.echo(tabulate(rows, ["option", "default", "allowed", "rule"]) + "\n")


def main() -> None:
    """Console entry point."""
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("arena: interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
