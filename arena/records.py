"""Game records: one JSON object per finished game in ``games.jsonl``, and exact replay.

The fields are documented in ``docs/records.md``; ``schema`` comes first and changes when they do.
"""

from __future__ import annotations

import functools
import itertools
import json
import logging
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import msgspec
import orjson

from arena.actions import Action, parse_action
from arena.engine.game import SEEDS, Game
from arena.engine.results import MAX_POINTS, Fault, GameEnd, Points, RoundEnd, RoundResult
from arena.errors import ArenaError, BadInput, shown

SCHEMA = 3  # 2: fault_log, where each fault happened; 3: the actions as one compact text
SCHEMAS = (1, 2, 3)  # the schemas this version reads
_SCHEMA_WORDS = f"{SCHEMAS[0]} to {SCHEMAS[-1]}"
COMPACT = 3  # the first schema whose actions are one text (docs/records.md)
log = logging.getLogger("arena.records")
FAULT_KINDS = tuple(Fault)  # a seat record counts each, zeros included
_KINDS = frozenset(k.value for k in Fault)  # a record holding another kind is refused
CLASHES_NAMED = 3  # ids of clashing records a warning names (with their lines)
MAX_NAME = 100  # characters of a bot's or a tournament's name, a file or folder name
MAX_NAME_BYTES = 200  # and its bytes: with ".stderr.log" or "-sprt", under a file name's 255
BOT_NAME = (f"expected a bot name of at most {MAX_NAME} printable characters "
            f"({MAX_NAME_BYTES} bytes in UTF-8), no spaces at its ends, without '/', "
            "not '.' or '..'")
FaultCount = Annotated[int, msgspec.Meta(ge=0, le=MAX_POINTS)]  # as records may hold
RoundRecord = RoundResult  # one type for the engine's round results and the records'


class SeatRecord(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One seat of a game: its bot, faults by kind and decision times in milliseconds."""

    bot: str
    faults: Mapping[str, FaultCount]
    decisions: Annotated[int, msgspec.Meta(ge=0)]
    time_mean_ms: float
    time_p95_ms: float
    time_max_ms: float
    forfeit: bool = False


class FaultNote(msgspec.Struct, frozen=True, gc=False):
    """Where one fault happened: before action number ``at`` of the game, by ``seat``."""

    at: int
    seat: int
    kind: Fault


class GameRecord(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """Everything needed to rate a game and to replay it card for card (COM-4); a struct,
    so that a file of them decodes and type-checks in C (``msgspec``)."""

    schema: int
    id: str
    variant: str
    options: Mapping[str, Any]
    seed: int
    seats: Annotated[tuple[SeatRecord, ...], msgspec.Meta(min_length=2)]
    actions: tuple[str, ...]
    rounds: tuple[RoundResult, ...]
    totals: tuple[Points, ...]
    ranks: tuple[int, ...]
    termination: GameEnd
    dup_set: str = ""
    fault_log: tuple[FaultNote, ...] = ()  # schema 2; a record of schema 1 has none

    def to_json(self) -> str:
        """One line of ``games.jsonl``, schema first; from schema 3 the actions as one
        compact text (a list where a text would not read back the same)."""
        raw = msgspec.to_builtins(self)
        if self.schema >= COMPACT:
            raw["actions"] = compact_actions(self.actions)
        return json.dumps(raw, separators=(",", ":"))

    @classmethod
    def from_json(cls, line: str | bytes, *, actions: bool = True,
                  shared: dict[bytes, Mapping[str, Any]] | None = None) -> GameRecord:
        """Read one line of ``games.jsonl`` back (NaN, infinities and non-integer points
        are refused: a leaderboard must not count them silently). Without ``actions`` the
        record keeps none (it rates, it does not replay), for a fraction of the memory;
        records read with the same ``shared`` hold one mapping for equal options or faults."""
        try:
            stored: Any = _DECODER.decode(line)
            played = expand_actions(stored.actions) if actions else ()
            _check_places(stored, len(played) if actions else _count(stored.actions))
        except (msgspec.DecodeError, ValueError):  # refused: the checks below say why
            return cls._explained(line, actions)
        fields = {name: getattr(stored, name) for name in stored.__struct_fields__}
        if actions:
            return cls(**{**fields, "actions": played})
        pool: dict[bytes, Mapping[str, Any]] = {} if shared is None else shared
        seats = tuple(msgspec.structs.replace(s, faults=_shared(pool, s.faults))
                      for s in stored.seats)
        return cls(**{**fields, "actions": (), "options": _shared(pool, stored.options),
                      "seats": seats})

    @classmethod
    def _explained(cls, line: str | bytes, actions: bool) -> GameRecord:
        """The slow reading of a line the fast one refused, with a message naming the field
        that is wrong (or the record, if the fast reading was only stricter)."""
        try:
            raw = orjson.loads(line)
        except orjson.JSONDecodeError:  # strict JSON refused it: say why, as json reads it
            raw = json.loads(line, parse_constant=_no_constant)
        _check_record(raw)
        return cls(
            schema=raw["schema"], id=raw["id"], variant=raw["variant"],
            options=raw["options"], seed=raw["seed"],
            seats=tuple(SeatRecord(**s) for s in raw["seats"]),
            actions=expand_actions(raw["actions"]) if actions else (),
            rounds=tuple(RoundResult(round=r["round"], dealer=r["dealer"],
                                     reason=RoundEnd(r["reason"]),
                                     penalties=tuple(r["penalties"])) for r in raw["rounds"]),
            totals=tuple(raw["totals"]), ranks=tuple(raw["ranks"]),
            termination=GameEnd(raw["termination"]), dup_set=raw.get("dup_set", ""),
            fault_log=tuple(FaultNote(n["at"], n["seat"], Fault(n["kind"]))
                            for n in raw.get("fault_log", [])))


def _shared(pool: dict[bytes, Mapping[str, Any]],
            value: Mapping[str, Any]) -> Mapping[str, Any]:
    """One mapping for all records of one reading that hold the same options or fault
    counts (a file of 100,000 games holds a handful of each): a leaderboard's memory follows
    the games' count, not their size. The pool lives for one reading, so a caller that
    edits a record's dict changes no record of any other reading."""
    key = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    if len(pool) > 4096:
        pool.clear()
    return pool.setdefault(key, value)


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number a record may hold")


_STORED = msgspec.defstruct(  # a record as stored: its actions a list or one compact text
    "StoredRecord", [(f.name, str | tuple[str, ...] if f.name == "actions" else f.type,
                      f.default) for f in msgspec.structs.fields(GameRecord)],
    frozen=True, kw_only=True, gc=False)
_DECODER = msgspec.json.Decoder(_STORED)


def _check_places(record: Any, actions: int) -> None:
    """What the record's types cannot say: the schema, one total, rank and penalty a seat,
    ranks that follow from the totals, fault kinds of the closed set, and an id and bot
    names that print as they read (no terminal escape: the arena prints them) (ValueError,
    and the slow reading names it)."""
    seats = len(record.seats)
    if record.schema not in SCHEMAS or len(record.totals) != seats or \
            len(record.ranks) != seats or \
            any(len(r.penalties) != seats for r in record.rounds) or \
            not all(0 <= f.seat < seats and 0 <= f.at <= actions for f in record.fault_log) or \
            not all(s.faults.keys() <= _KINDS for s in record.seats) or \
            record.ranks != places(record.totals, [s.forfeit for s in record.seats]) or \
            (record.termination is GameEnd.FORFEIT) != any(s.forfeit for s in record.seats) or \
            round_sums(record.rounds, seats) != record.totals or \
            not all(r.round == n and 0 <= r.dealer < seats
                    for n, r in enumerate(record.rounds, 1)) or \
            record.options.get("players", seats) != seats or not 0 <= record.seed < SEEDS or \
            not record.id.isprintable() or not all(_seat_ok(s) for s in record.seats):
        raise ValueError("a count does not match the seats")


def _seat_ok(seat: SeatRecord) -> bool:
    """A bot name a config would give, and times that are not negative."""
    return is_bot_name(seat.bot) and min(seat.time_mean_ms, seat.time_p95_ms,
                                         seat.time_max_ms) >= 0


@functools.lru_cache(maxsize=4096)  # a file of 100,000 games names a handful of bots
def is_bot_name(name: str) -> bool:
    """A bot's name, the leaderboard's row and its log's file name: printable text, not
    only spaces (a blank row) nor spaces at an end (``greedy `` showed as a second
    ``greedy``), without '/', short enough in bytes for a file name (a longer one lost the
    bot's log without a word). A record holds only names a config gives."""
    return bool(name.strip()) and name == name.strip() and len(name) <= MAX_NAME \
        and utf8_bytes(name) <= MAX_NAME_BYTES and name not in (".", "..") \
        and "/" not in name and name.isprintable()


def utf8_bytes(text: str) -> int:
    """The bytes a name takes in a file name (a file system holds 255)."""
    return len(text.encode("utf-8", "surrogatepass"))


def round_sums(rounds: Sequence[RoundResult], seats: int) -> tuple[int, ...]:
    """Each seat's penalties summed over the rounds: the totals a record must hold."""
    if len(rounds) == 1:  # most games: no sum to make (a leaderboard checks 100,000)
        return tuple(rounds[0].penalties)
    return tuple(map(sum, zip(*(r.penalties for r in rounds), strict=True))) if rounds \
        else (0,) * seats


def places(totals: Sequence[int], forfeits: Sequence[bool]) -> tuple[int, ...]:
    """The competition ranks the referee gives: lower totals first, a forfeited seat after
    every other, equal seats sharing a rank; so a record's ranks can be checked exactly."""
    keys: Sequence[Any] = list(zip(forfeits, totals, strict=True)) if any(forfeits) else totals
    order = sorted(keys)
    return tuple(bisect_left(order, key) + 1 for key in keys)


_FIELDS = {"schema": int, "id": str, "variant": str, "options": dict, "seed": int,
           "seats": list, "rounds": list, "totals": list, "ranks": list,
           "termination": str}
_SEAT_FIELDS = {"bot": str, "faults": dict, "decisions": int, "time_mean_ms": float,
                "time_p95_ms": float, "time_max_ms": float}
_FAULT_FIELDS = {"at": int, "seat": int, "kind": str}
_ROUND_FIELDS = {"round": int, "dealer": int, "reason": str, "penalties": list}


def _check_record(raw: Any) -> None:
    """Every field of the type the leaderboard counts on, or ValueError naming it: a record
    that parses as JSON may still hold a list where a count belongs."""
    _fields(raw, _FIELDS, "record")
    if raw["schema"] not in SCHEMAS:
        raise ValueError(f"schema: expected {_SCHEMA_WORDS}, got {shown(raw['schema'])}")
    if not isinstance(raw.get("actions"), list | str):
        raise ValueError("actions: " + ("expected a list or a text, got "
                                        f"{shown(raw['actions'])}" if "actions" in raw else
                                        "missing (expected a list or a text)"))
    if not isinstance(raw.get("dup_set", ""), str):
        raise ValueError(f"dup_set: expected str, got {shown(raw['dup_set'])}")
    if not raw["id"].isprintable():
        raise ValueError(f"id: expected printable text, got {shown(raw['id'])}")
    seats = len(raw["seats"])
    if seats < 2:
        raise ValueError(f"seats: expected at least 2, got {seats}")
    if not 0 <= raw["seed"] < SEEDS:
        raise ValueError(f"seed: expected an integer from 0 to {SEEDS - 1}, got {raw['seed']}")
    if raw["options"].get("players", seats) != seats:
        raise ValueError(f"options: expected players {seats}, one a seat, got "
                         f"{shown(raw['options']['players'])}")
    for seat in raw["seats"]:
        _check_seat(seat)
    for name in ("totals", "ranks"):
        _integers(raw[name], name, seats)
    if not all(1 <= r <= seats for r in raw["ranks"]):
        raise ValueError(f"ranks: expected places from 1 to {seats}, got {shown(raw['ranks'])}")
    _check_ranks(raw)
    _check_termination(raw)
    for number, r in enumerate(raw["rounds"], 1):
        _fields(r, _ROUND_FIELDS, "rounds[]")
        _integers(r["penalties"], "penalties", seats)
        if r["round"] != number or not 0 <= r["dealer"] < seats:
            raise ValueError(f"rounds[{number - 1}]: expected round {number}, dealt by a seat "
                             f"from 0 to {seats - 1}, got round {shown(r['round'])} dealt by "
                             f"{shown(r['dealer'])}")
    sums = [sum(r["penalties"][i] for r in raw["rounds"]) for i in range(seats)]
    if sums != raw["totals"]:
        raise ValueError(f"totals: expected the sums of the rounds' penalties, {sums}, got "
                         f"{shown(raw['totals'])}")
    played = raw["actions"]
    if isinstance(played, str) and raw["schema"] >= COMPACT:
        played = expand_actions(played)
    elif not isinstance(played, list) or not set(map(type, played)) <= {str}:  # in C
        raise ValueError("actions: expected a list of texts")
    _check_fault_log(raw.get("fault_log", []), seats, len(played))


def _check_seat(seat: Any) -> None:
    """A seat's fields, its faults counted by kinds of the closed set (docs/records.md)."""
    _fields(seat, _SEAT_FIELDS, "seats[]")
    _integers(list(seat["faults"].values()), "faults", lowest=-MAX_POINTS)  # < 0: named below
    if not is_bot_name(seat["bot"]):
        raise ValueError(f"seat {shown(seat['bot'])}: {BOT_NAME}")
    if min(seat["time_mean_ms"], seat["time_p95_ms"], seat["time_max_ms"]) < 0:
        raise ValueError(f"seat {shown(seat['bot'])}: expected times of 0 ms or more, got "
                         f"{seat['time_mean_ms']}, {seat['time_p95_ms']}, "
                         f"{seat['time_max_ms']} (mean, p95, max)")
    if not isinstance(seat.get("forfeit", False), bool) or seat["decisions"] < 0:
        raise ValueError(f"seat {shown(seat['bot'])}: expected forfeit true or false "
                         "and decisions >= 0")
    odd = {k: n for k, n in seat["faults"].items() if k not in _KINDS or n < 0}
    if odd:
        raise ValueError(f"seat {shown(seat['bot'])}: faults: expected counts >= 0 of "
                         f"{', '.join(FAULT_KINDS)}, got {shown(odd)}")


def _check_ranks(raw: Any) -> None:
    """Ranks that are the places the totals give (lower is better, forfeits last): a
    leaderboard counts wins from the ranks and points from the totals."""
    expected = places(raw["totals"], [s.get("forfeit", False) for s in raw["seats"]])
    if tuple(raw["ranks"]) != expected:
        raise ValueError(f"ranks: expected {list(expected)} for totals {shown(raw['totals'])} "
                         f"(lower first, a forfeited seat last), got {shown(raw['ranks'])}")


def _check_termination(raw: Any) -> None:
    """A game ends in a forfeit exactly when a seat forfeited, as every version of the
    referee writes it: an edited ending read '(normal: seat 1 ...)' in a replay."""
    gave_up = [i for i, s in enumerate(raw["seats"]) if s.get("forfeit", False)]
    if (raw["termination"] == GameEnd.FORFEIT) != bool(gave_up):
        raise ValueError(f"termination: expected 'forfeit' exactly when a seat forfeited, got "
                         f"{shown(raw['termination'])} with "
                         f"{'seats ' + str(gave_up) if gave_up else 'no seat'} forfeited")


def _check_fault_log(notes: Any, seats: int, actions: int) -> None:
    """Each fault placed at an action of the game, by one of its seats, of a known kind."""
    if type(notes) is not list:
        raise ValueError(f"fault_log: expected a list, got {shown(notes)}")
    for note in notes:
        _fields(note, _FAULT_FIELDS, "fault_log[]")
        if not (0 <= note["at"] <= actions and 0 <= note["seat"] < seats) or \
                note["kind"] not in FAULT_KINDS:
            raise ValueError(f"fault_log: expected at 0 to {actions}, seat 0 to {seats - 1} "
                             f"and a kind of {', '.join(FAULT_KINDS)}, got {shown(note)}")


def _fields(raw: Any, fields: Mapping[str, type], what: str) -> None:
    if not isinstance(raw, dict):
        raise ValueError(f"{what}: expected an object, got {shown(raw)}")
    for name, kind in fields.items():
        value = raw.get(name)
        if type(value) is kind:  # the common case, without the checks below
            continue
        if name not in raw:  # "got None" read as a null written there
            raise ValueError(f"{name}: missing (expected {kind.__name__})")
        number = kind is float and isinstance(value, int | float)
        if isinstance(value, bool) or not (isinstance(value, kind) or number):
            raise ValueError(f"{name}: expected {kind.__name__}, got {shown(value)}")


def _integers(values: Any, name: str, count: int | None = None, *,
              lowest: int = 0) -> None:
    """A list of integers from ``lowest``, of moderate size (``count`` of them, when given:
    one a seat): points and ranks are never negative."""
    if type(values) is not list or not all(
            type(v) is int and lowest <= v <= MAX_POINTS for v in values):
        raise ValueError(f"{name}: expected a list of integers from {lowest:,} to "
                         f"{MAX_POINTS:,}, got {shown(values)}")
    if count is not None and len(values) != count:
        raise ValueError(f"{name}: expected one a seat ({count}), got {len(values)}")


# Schema 3 stores a game's actions as one text: each action its seat, then its clauses
# joined by ";", each clause a verb's letter and the rest as written; actions joined by "/".
# "0 meld 9H 10H JK=JH; discard KS" is "0m9H 10H JK=JH;dKS", the draw "1 discard" is "1d".
VERBS = {"stock": "s", "discard": "d", "tournante": "t", "declare": "x", "meld": "m",
         "lay": "l", "take": "k"}
_WORDS = {letter: verb for verb, letter in VERBS.items()}


def compact_actions(actions: tuple[str, ...]) -> str | list[str]:
    """The actions as one compact text, or as the list itself where the text would not
    read back the same (an action outside the grammar above)."""
    compact = "/".join(_compact(a) for a in actions)
    try:
        return compact if expand_actions(compact) == actions else list(actions)
    except ValueError:  # a verb without a letter
        return list(actions)


def _compact(action: str) -> str:
    seat, _, text = action.partition(" ")
    clauses = []
    for clause in text.split("; "):
        verb, _, rest = clause.partition(" ")
        clauses.append(VERBS.get(verb, "?") + rest)
    return seat + ";".join(clauses)


def expand_actions(stored: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The actions as ``"<seat> <action>"`` texts, from a list or one compact text;
    ValueError for a letter no verb has."""
    if not isinstance(stored, str):
        return tuple(stored)
    return tuple(_expand(token) for token in stored.split("/")) if stored else ()


def _count(stored: str | tuple[str, ...]) -> int:
    """How many actions a stored list or compact text holds, without reading them."""
    return len(stored) if not isinstance(stored, str) else stored.count("/") + bool(stored)


def _expand(token: str) -> str:
    digits = len(token) - len(token.lstrip("0123456789"))
    clauses = []
    for clause in token[digits:].split(";"):
        verb = _WORDS.get(clause[:1])
        if verb is None or not digits:
            raise ValueError(f"actions: {shown(token)} is not a compact action")
        clauses.append(verb + (f" {clause[1:]}" if clause[1:] else ""))
    return f"{token[:digits]} " + "; ".join(clauses)


def action_text(seat: int, action: Action) -> str:
    """``"2 discard KS"``: the seat, then the action's own text."""
    return f"{seat} {action}"


def parse_logged(text: str) -> tuple[int, Action]:
    """Read an ``action_text`` line back."""
    seat, _, rest = text.partition(" ")
    return int(seat), parse_action(rest)


def replay(record: GameRecord) -> Game:
    """Play the record's actions again from its seed; ValueError naming the record, and the
    action, where the game does not come out as recorded (COM-4)."""
    game = replay_start(record)
    for at, text in enumerate(record.actions):
        _, action = recorded_action(record, at, text, game)
        apply_recorded(record, at, text, game, action)
    check_replayed(record, game)
    return game


def replay_start(record: GameRecord) -> Game:
    """The record's game before its first action; ValueError naming the record for a
    variant, seed or options no game starts from."""
    from arena.variants import find_variant

    try:
        return find_variant(record.variant)(seed=record.seed, options=record.options)
    except (ArenaError, ValueError) as exc:
        raise ValueError(f"record {record.id}: {exc}") from exc


def recorded_action(record: GameRecord, at: int, text: str, game: Game) -> tuple[int, Action]:
    """The ``at``-th recorded action and its seat, the seat to act; ValueError naming the
    record and the action otherwise, so that the organiser can find what was edited or cut."""
    try:
        if game.finished:
            raise ValueError("after the game's end")
        seat, action = parse_logged(text)
        if seat != game.to_act:
            raise ValueError(f"but seat {game.to_act} is to act")
    except ValueError as exc:
        raise ValueError(f"record {record.id}: action {at} {text!r}: {exc}") from exc
    return seat, action


def apply_recorded(record: GameRecord, at: int, text: str, game: Game,
                   action: Action) -> None:
    """Apply a recorded action; an illegal one is a ValueError naming the record, the
    action and the rule it breaks, by its ID."""
    try:
        game.apply(action)
    except ArenaError as exc:
        raise ValueError(f"record {record.id}: action {at} {text!r}: {exc}") from exc


def check_replayed(record: GameRecord, game: Game) -> None:
    """ValueError naming the record unless its replayed game ended with its totals."""
    if not game.finished:
        why = "cut short, or edited" if record.actions else "read_games(actions=False) " \
            "keeps none"
        raise ValueError(f"record {record.id}: its {len(record.actions)} actions end before "
                         f"the game does ({why})")
    if tuple(game.totals) != record.totals:
        raise ValueError(f"record {record.id}: replayed totals {list(game.totals)} differ "
                         f"from the record's {list(record.totals)}")
    for played, kept in itertools.zip_longest(game.results, record.rounds):
        if played != kept:  # the totals are their sum: an edit of both is still caught
            raise ValueError(f"record {record.id}: replayed {_round_text(played)} differs "
                             f"from the record's {_round_text(kept)}")


def _round_text(result: RoundResult | None) -> str:
    """A round's end as the replay prints it, to set the replayed beside the recorded."""
    if result is None:
        return "no round"
    return (f"round {result.round} (dealer {result.dealer}, {result.reason.value}, "
            f"penalties {list(result.penalties)})")


def games_file(where: str | Path) -> Path:
    """The ``games.jsonl`` a command was pointed at (a results folder or the file itself);
    a path that is not there is named as such, not as a folder without games."""
    path = Path(where)
    games = path / "games.jsonl" if path.is_dir() else path
    if not games.is_file():
        raise BadInput(f"{path}: no games.jsonl here" if path.exists() else
                       f"{path}: no such folder or file (expected a results folder or its "
                       "games.jsonl)")
    return games


def read_games(path: str | Path, *, actions: bool = True) -> list[GameRecord]:
    """All whole records of a ``games.jsonl``; a torn last line (a killed run) is skipped,
    and a game id seen before is dropped with a warning (two runs that wrote one file).
    Every record must be of one known variant version: a leaderboard never mixes them.
    ``actions=False`` reads records to rate, not to replay: their ``actions`` are empty."""
    path = Path(path)
    if not path.exists():
        return []
    records: dict[str, GameRecord] = {}
    shared: dict[bytes, Mapping[str, Any]] = {}
    dropped = 0  # repeated ids
    others: list[str] = []  # of those, ids of a different game, where
    variant = ""
    try:
        with path.open(encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.endswith("\n"):  # torn write: the game is played again on resume
                    log.warning("arena: warning: %s:%d: the last line has no final newline "
                                "(a write cut short): that game is not counted, and a "
                                "resumed run plays it again", path, number)
                    break
                if not line.strip():  # said plainly: json's own "line 2 column 1" misled
                    raise BadInput(f"{path}:{number}: an empty line: expected one game "
                                   "record a line (remove it)")
                record = _record(path, number, line, actions, shared)
                if record.variant != variant:  # the first record, or one of another variant
                    variant = _variant(path, number, record.variant, variant)
                if (kept := records.setdefault(record.id, record)) is not record:
                    dropped += 1
                    if (kept.seed, kept.seats) != (record.seed, record.seats):
                        others.append(f"{record.id} at line {number}")
    except UnicodeDecodeError as exc:
        raise BadInput(f"{path}: not UTF-8 text at byte {exc.start}: not a games file") from exc
    except OSError as exc:
        raise BadInput(f"{path}: cannot read it ({exc.strerror})") from exc
    if others:  # two runs' files joined: their ids clash, their games differ
        n = len(others)
        named = ", ".join(others[:CLASHES_NAMED]) + (", ..." if n > CLASHES_NAMED else "")
        _warn_once(f"arena: warning: {path}: {n} record{'s' * (n > 1)} "
                   f"reuse{'s' * (n == 1)} the id of a different "
                   f"game ({named}: another seed or seats; {dropped} repeats in all): only "
                   "the first record of each id is counted; keep each run's games.jsonl in "
                   "a folder of its own")
    elif dropped:
        _warn_once(f"arena: warning: {path}: {dropped} record{'s' * (dropped > 1)} "
                   f"repeat{'s' * (dropped == 1)} a game id seen before; each game is counted "
                   "once")
    return list(records.values())


_WARNED: set[str] = set()


def _warn_once(text: str) -> None:
    """A warning about a file's records, once a process: a run reads its file to resume and
    again for its leaderboard, and said the same thing twice."""
    if text not in _WARNED:
        _WARNED.add(text)
        log.warning("%s", text)


def _variant(path: Path, number: int, variant: str, before: str) -> str:
    """The file's variant version, known to the registry, from its first record; BadInput
    naming the line of a record of another variant or of an unknown one."""
    from arena.variants import find_variant

    where = f"{path}:{number}"
    if before:
        raise BadInput(f"{where}: variant {shown(variant)}, expected {before!r} as in the "
                       "records before it (a leaderboard never mixes variants)")
    try:
        version = find_variant(variant).version
    except BadInput as exc:
        raise BadInput(f"{where}: {exc}") from exc
    if variant != version:
        raise BadInput(f"{where}: variant {shown(variant)}, expected a versioned variant "
                       f"such as {version!r}")
    return variant


def _record(path: Path, number: int, line: str, actions: bool = True,
            shared: dict[bytes, Mapping[str, Any]] | None = None) -> GameRecord:
    try:
        return GameRecord.from_json(line, actions=actions, shared=shared)
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
        raise BadInput(f"{path}:{number}: not a game record of schema {_SCHEMA_WORDS} "
                       f"({type(exc).__name__}: {str(exc)[:200]}){_hint(line, number)}"
                       ) from exc


def _hint(line: str, number: int) -> str:
    """What a line that is no record may be: another file, or a record cut short. A whole
    JSON value ([1, 2, 3], null) read "cut short, or two joined?", as did a config.yaml."""
    text = line.strip()
    if number == 1 and not text.startswith("{"):
        return "; a games.jsonl holds one JSON object a line: is this file one?"
    if text.endswith("}"):
        return ""
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        return "; the line does not end as a record does: cut short, or two joined?"
    return ""


def drop_torn_tail(path: Path) -> None:
    """Cut an unterminated last line so appends start on a fresh line."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with path.open("r+b") as f:
            f.truncate(data.rfind(b"\n") + 1)
