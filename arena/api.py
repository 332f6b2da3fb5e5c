"""Rummy Arena from Python: the calls the ``arena`` command is a thin layer over, in one place
(``docs/api.md`` walks through them). Paths may be ``str`` or ``Path``.

>>> from arena.api import check_hand
>>> check_hand("indian13", "3S 4S 5S 7H 8H 9H 10H QD QC QS 2D 2C JK".split(), wild="7C").points
0
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, get_args

from arena.actions import Placed, TakeBack, placed_cards
from arena.cards import Card, check_in_deck, parse_cards
from arena.engine.game import MAX_HAND, MAX_MELD, Game, HandReport, MeldReport, OpeningReport
from arena.engine.options import check_seat_count, resolve_options
from arena.errors import BadInput, shown
from arena.ratings.leaderboard import Standing, standings
from arena.ratings.terms import Anchor, check_anchor
from arena.records import BOT_NAME, GameRecord, games_file, is_bot_name
from arena.records import read_games as _read_games
from arena.records import replay as _replay
from arena.referee import play_game
from arena.seats.bot import Bot, BotSpec, ObjectSpec, named_bot
from arena.seats.make import Isolation, logs_folder, told_apart
from arena.seats.startup import check_bots_start
from arena.tournament.config import SEED, Config, config_from, load_config
from arena.tournament.results import stored_anchor, teams_of
from arena.tournament.runner import OnGame, run_tournament
from arena.variants import find_variant

__all__ = ["Anchor", "Bot", "BotSpec", "Config", "Game", "GameRecord", "HandReport", "Isolation",
           "MeldReport", "OnGame", "OpeningReport", "Standing", "check_hand", "check_meld",
           "check_opening", "config_from", "leaderboard", "load_config", "play", "read_games",
           "replay", "run"]


def run(config: Config | str | Path, *, fresh: bool = False, on_game: OnGame | None = None,
        progress: bool = False) -> list[GameRecord]:
    """Play the tournament's pending games (a resumed run plays only what is missing) and
    return every record of its results folder. ``on_game(record, done, total)`` hears of
    each game once it is on disk; ``progress`` draws the terminal's progress bar."""
    if not isinstance(config, Config | str | Path):
        raise BadInput(f"config: expected a Config or a config file's path, got {shown(config)}")
    if on_game is not None and not callable(on_game):  # else found after the first game
        raise BadInput(f"on_game: expected a function (record, done, total), got "
                       f"{shown(on_game)}")
    cfg = config if isinstance(config, Config) else load_config(config)
    run_tournament(cfg, fresh=fresh, progress=progress, on_game=on_game)
    return read_games(cfg.results_dir / "games.jsonl")


def leaderboard(source: Config | str | Path | Iterable[GameRecord], *,
                anchor: Anchor | None = None) -> list[Standing]:
    """The standings, best first, of a config's results, a results folder, a
    ``games.jsonl`` or records in hand; the anchor defaults to the one the folder stored."""
    records, folder = _records_of(source)
    if anchor is not None:
        anchor = check_anchor(anchor)
    elif folder is not None:
        anchor = stored_anchor(folder)
    return standings(records, anchor=anchor, teams=teams_of(records))


def replay(record: GameRecord) -> Game:
    """The record's game played again from its seed and actions (COM-4); a ValueError names
    the record and the action where it does not come out as recorded."""
    if not isinstance(record, GameRecord):
        raise BadInput(f"record: expected a GameRecord, got {shown(record)}")
    return _replay(record)


def read_games(path: str | Path, *, actions: bool = True) -> list[GameRecord]:
    """The records of a ``games.jsonl`` (see :func:`arena.records.read_games`); a path with
    nothing there is BadInput, as ``arena leaderboard`` says, not an empty list."""
    if not isinstance(path, str | Path):
        raise BadInput(f"path: expected a games.jsonl's path, got {shown(path)}")
    if not Path(path).exists():
        raise BadInput(f"{path}: no such games file")
    return _read_games(path, actions=actions)


def _records_of(source: Config | str | Path | Iterable[GameRecord]
                ) -> tuple[Sequence[GameRecord], Path | None]:
    if isinstance(source, Config):
        source = source.results_dir
    if isinstance(source, str | Path):
        games = games_file(source)
        return _read_games(games, actions=False), games.parent
    if isinstance(source, bytes) or not isinstance(source, Iterable):
        raise BadInput(f"source: expected a config, a results folder, a games.jsonl or "
                       f"records, got {shown(source)}")
    source = list(source)  # a generator is read once: the variant check had used it up
    if not all(isinstance(r, GameRecord) for r in source):
        raise BadInput("source: expected records (GameRecord), got "
                       f"{shown(next(r for r in source if not isinstance(r, GameRecord)))}")
    if len({r.variant for r in source}) > 1:
        raise BadInput("records of more than one variant version: "
                       f"{', '.join(sorted({r.variant for r in source}))}; rate each apart")
    return source, None


def play(variant: str, bots: Sequence[str | BotSpec | Bot], *, seed: int = 1,
         options: Mapping[str, Any] | None = None,
         isolation: Isolation = "inprocess", game_id: str = "game",
         logs: str | Path | None = None) -> GameRecord:
    """One game between bots named in any form (``greedy``, ``mybot.py``,
    ``pkg.mod:Class``), given as :class:`BotSpec`, or bot objects made by the caller (in
    process only); each named bot is started once first. Games kept in one file need ids
    of their own (``game_id``): a reader counts an id once. ``logs``: a folder where each
    bot's errors (tracebacks, what an isolated bot writes to stderr) go, ``NAME.stderr.log``;
    without it they go nowhere."""
    _check_play_arguments(variant, bots, seed, options, isolation, game_id)
    game = find_variant(variant)
    specs = list(told_apart(dict(enumerate(_spec_of(b) for b in bots))).values())
    check_seat_count(game.name, game.OPTIONS, len(specs), options or {})
    chosen = {"players": len(specs), **(options or {})}
    check_bots_start([s for s in specs if not isinstance(s, ObjectSpec)], variant=game,
                     isolation=isolation,
                     options=resolve_options(game.name, game.OPTIONS, chosen))
    return play_game(game, specs, seed=seed, options=chosen, isolation=isolation,
                     game_id=game_id, stderr_dir=_logs(logs))


def _logs(logs: object) -> Path | None:
    """The ``logs`` folder, made if it is not there; BadInput where it cannot be one."""
    if logs is not None and (not isinstance(logs, str | Path) or not str(logs)):
        raise BadInput(f"logs: expected a folder path, got {shown(logs)}")
    return logs_folder(None if logs is None else Path(logs), f"logs: {logs}")


def _check_play_arguments(variant: object, bots: object, seed: object, options: object,
                          isolation: object, game_id: object) -> None:
    """BadInput naming the argument a caller got wrong, before any of it is used: a
    string seed would play another game and write a record no reader takes back."""
    if not isinstance(variant, str):
        raise BadInput(f"variant: expected a variant name, got {shown(variant)}")
    if isinstance(bots, str) or not isinstance(bots, Sequence) or not all(
            isinstance(b, str | BotSpec) or _is_bot_object(b) for b in bots):
        raise BadInput(f"bots: expected a list of bot names, BotSpecs or bot objects (with "
                       f"draw and play), got {shown(bots)}")
    if len(bots) < 2:  # said as "option 'players' = 0", an option the caller never gave
        raise BadInput(f"bots: expected one bot a seat, at least 2, got {len(bots)}")
    _check_bot_objects(bots, isolation)
    for i, bot in enumerate(bots):  # a record no reader takes back, a log outside logs/
        if isinstance(bot, BotSpec) and not (isinstance(bot.name, str) and
                                             is_bot_name(bot.name)):
            raise BadInput(f"bots[{i}]: {BOT_NAME}, got {shown(bot.name)}")
    if not SEED.admits(seed):
        raise BadInput(f"seed: {SEED.expected(seed)}")
    if options is not None and not isinstance(options, Mapping):
        raise BadInput(f"options: expected a mapping of option names to values, "
                       f"got {shown(options)}")
    if isolation not in get_args(Isolation):
        raise BadInput(f"isolation: expected one of {', '.join(get_args(Isolation))}, "
                       f"got {shown(isolation)}")
    if not isinstance(game_id, str) or not game_id.strip() or not game_id.isprintable():
        raise BadInput(f"game_id: expected a non-empty printable text, got {shown(game_id)}")


def _is_bot_object(bot: object) -> bool:
    """A bot made by the caller: an instance with ``draw`` and ``play`` (a class has them
    too, and would be one bot shared by every game it is named in)."""
    return isinstance(bot, Bot) and not isinstance(bot, type | str | BotSpec)


def _check_bot_objects(bots: Sequence[object], isolation: object) -> None:
    """A bot object lives in this process, and one object keeps one seat's state."""
    objects = [i for i, b in enumerate(bots) if _is_bot_object(b)]
    if objects and isolation != "inprocess":
        raise BadInput(f"bots[{objects[0]}]: a bot object plays in process only; name its "
                       f"file or class (mybot.py, pkg.mod:Class) for isolation={isolation!r}")
    for i in objects:
        first = next(j for j in objects if bots[j] is bots[i])
        if first != i:
            raise BadInput(f"bots[{i}]: the same object as bots[{first}]; one object plays "
                           "one seat (make another)")


def _spec_of(bot: str | BotSpec | Bot) -> BotSpec:
    """How the referee makes a seat's bot: from its name, its spec, or the object itself."""
    if isinstance(bot, BotSpec):
        return bot
    if isinstance(bot, str):
        return _named(bot)
    return ObjectSpec(name=type(bot).__name__, bot=bot)


def _named(text: str) -> BotSpec:
    """A bot named in the current folder; BadInput quoting the name when it is no bot."""
    try:
        return named_bot(text, Path.cwd())
    except BadInput as exc:
        raise BadInput(f"bots: {exc}, got {shown(text)}") from exc


def _check_hand_arguments(cards: object, wild: object, round: object,
                          options: object) -> None:
    """BadInput naming the argument of the wrong kind (they failed deep inside as
    TypeErrors, or bytes were read as card codes)."""
    if isinstance(cards, bytes) or not isinstance(cards, str | Sequence):
        raise BadInput(f"cards: expected a text of cards or a list of them, got {shown(cards)}")
    if wild is not None and not isinstance(wild, str | Card):
        raise BadInput(f"wild: expected a card or its text, got {shown(wild)}")
    if round is not None and (isinstance(round, bool) or not isinstance(round, int)):
        raise BadInput(f"round: expected a round number (an integer), got {shown(round)}")
    if options is not None and not isinstance(options, Mapping):
        raise BadInput(f"options: expected a mapping of option names to values, got "
                       f"{shown(options)}")


def check_hand(variant: str, cards: str | Sequence[str | Card], *, wild: str | Card | None = None,
               round: int | None = None, options: Mapping[str, Any] | None = None
               ) -> HandReport:
    """``arena hand`` as a value: the best arrangement, deadwood, points and whether the
    cards declare (go out)."""
    _check_hand_arguments(cards, wild, round, options)
    hand = parse_cards(cards) if isinstance(cards, str) else \
        [c if isinstance(c, Card) else parse_cards([c])[0] for c in cards]
    if len(hand) > MAX_HAND:
        raise BadInput(f"{len(hand)} cards: expected at most {MAX_HAND} in a hand")
    game = find_variant(variant)
    if (held := game.deck_counts(dict(options or {}))) is not None:
        check_in_deck(hand, held)  # five aces of spades are no hand: arena hand says so
    indicator = wild if isinstance(wild, Card) or wild is None else Card.parse(wild)
    try:
        return game.hand_report(hand, wild=indicator, round=round, options=dict(options or {}))
    except BadInput as exc:  # the calculator speaks to arena hand
        raise _in_keywords(exc) from None


FLAG = re.compile(r"--(wild|round|level|table|take)\b")  # the calculators' flags, which
KEYWORDS = {"take": "takebacks"}  # are these calls' keywords (--take is takebacks)


def _in_keywords(exc: BadInput) -> BadInput:
    """The calculator's error as a caller of these calls reads it: --wild is wild here."""
    return BadInput(FLAG.sub(lambda flag: KEYWORDS.get(flag[1], flag[1]), str(exc)))


Cards = str | Sequence[str | Card | Placed]  # "9H 10H JK=JH", or its parts


def check_meld(variant: str, cards: Cards, *, wild: str | Card | None = None,
               round: int | None = None, options: Mapping[str, Any] | None = None
               ) -> MeldReport:
    """``arena meld`` as a value: is this one valid combination, of which kind, and what does
    it count (a joker may name its card: ``JK=8H``)."""
    _check_hand_arguments(cards, wild, round, options)
    group = _placed(cards, MAX_MELD, "one combination")
    game = find_variant(variant)
    if (held := game.deck_counts(dict(options or {}))) is not None:
        check_in_deck([p.card for p in group], held)
    indicator = wild if isinstance(wild, Card) or wild is None else Card.parse(wild)
    try:
        return game.meld_report(group, wild=indicator, round=round, options=dict(options or {}))
    except BadInput as exc:
        raise _in_keywords(exc) from None


def check_opening(variant: str, melds: Sequence[Cards], *, level: int | None = None,
                  table: Sequence[Cards] = (), takebacks: Sequence[str | TakeBack] = (),
                  options: Mapping[str, Any] | None = None) -> OpeningReport:
    """``arena open`` as a value (Rummy 51, Rummy 71, Moroccan rummy): do these new
    combinations open now (``level``: the threshold, when earlier openings raised it), what
    do they count, which rule refuses them; ``table`` holds the combinations already laid
    (numbered from 0), ``takebacks`` the jokers taken back first (``"0 8H"``)."""
    if isinstance(melds, str) or not isinstance(melds, Sequence) or not melds:
        raise BadInput(f"melds: expected a list of combinations, each a text such as "
                       f"'9S 9H 9D' or a list of cards, got {shown(melds)}")
    if options is not None and not isinstance(options, Mapping):
        raise BadInput(f"options: expected a mapping of option names to values, got "
                       f"{shown(options)}")
    if level is not None and (isinstance(level, bool) or not isinstance(level, int)):
        raise BadInput(f"level: expected a threshold (an integer), got {shown(level)}")
    groups = [_placed(m, MAX_MELD, "a combination") for m in melds]
    if sum(map(len, groups)) > MAX_HAND:
        raise BadInput(f"{sum(map(len, groups))} cards: expected at most {MAX_HAND} in one "
                       "opening")
    laid = [_placed(m, MAX_MELD, "a table combination") for m in table]
    taken = [t if isinstance(t, TakeBack) else _takeback(t) for t in takebacks]
    try:
        return find_variant(variant).opening_report(groups, level=level,
                                                    options=dict(options or {}), table=laid,
                                                    takebacks=taken)
    except BadInput as exc:
        raise _in_keywords(exc) from None


def _placed(cards: object, most: int, what: str) -> list[Placed]:
    """Cards put on the table, from a text or a list of texts, cards or Placed."""
    if isinstance(cards, bytes) or not isinstance(cards, str | Sequence):
        raise BadInput(f"cards: expected a text of cards or a list of them, got {shown(cards)}")
    return placed_cards(cards.replace(",", " ").split() if isinstance(cards, str) else
                        list(cards), most, what)


def _takeback(text: object) -> TakeBack:
    taken = TakeBack.parse(text)
    if taken is None:
        raise BadInput(f"takebacks: expected {TakeBack.EXPECTED}, got {shown(text)}")
    return taken
