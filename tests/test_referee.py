"""The referee: games between bots, records and replay (COM-4), the fault policy (COM-6)."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
import pytest
from conftest import bot_target

from arena.actions import Draw, Play
from arena.errors import ArenaError
from arena.records import (
    FAULT_KINDS,
    SCHEMA,
    GameRecord,
    compact_actions,
    parse_logged,
    replay,
)
from arena.referee import Clock, FaultPolicy, bot_seed, play_game
from arena.seats.bot import BotSpec
from arena.seats.make import Isolation
from arena.seats.process import ProcessSeat
from arena.seats.seat import Limits
from arena.variants import find_variant
from arena.variants.indian13 import Indian13

RANDOM = BotSpec("random", "bots.random_bot:RandomBot")
GREEDY = BotSpec("greedy", "bots.greedy:GreedyBot")
STOCK = BotSpec("stock", bot_target("StockBot"))
FAULTY_SEAT = 2


def test_play_game_with_built_in_bots() -> None:
    record = play_game(Indian13, [RANDOM, GREEDY, RANDOM, GREEDY], seed=7, game_id="g7")
    assert (record.schema, record.id, record.variant, record.seed) == \
        (SCHEMA, "g7", "indian13/v1", 7)
    assert [s.bot for s in record.seats] == ["random", "greedy", "random", "greedy"]
    assert all(n == 0 for s in record.seats for n in s.faults.values())
    assert all(s.decisions > 0 for s in record.seats)
    assert len(record.rounds) == 1
    assert record.totals == record.rounds[0].penalties
    assert min(record.totals) == 0
    assert record.ranks == tuple(1 + sum(t < mine for t in record.totals)
                                 for mine in record.totals)
    assert record.termination in ("normal", "draw_cap")
    assert record.options == {"players": 4, "invalid_declaration": "eliminate",
                              "wild_suits": "colour", "match": {"deals": 1}, "draw_cap": 100}


def test_play_game_needs_one_bot_per_seat() -> None:
    with pytest.raises(ArenaError, match="needs 4 bots, got 2"):
        play_game(Indian13, [RANDOM, RANDOM], seed=1)


@pytest.mark.parametrize(("seed", "options"), [
    (1, {}),
    (2, {"players": 3, "match": {"deals": 3}}),
    (5, {"players": 2, "wild_suits": "all", "invalid_declaration": "end_deal"}),
])
def test_com_4_replay_reproduces_the_totals(seed: int, options: dict[str, Any]) -> None:
    players = options.get("players", 4)
    record = play_game(Indian13, ([GREEDY, RANDOM] * 3)[:players], seed=seed, options=options)
    game = replay(record)
    assert game.finished
    assert tuple(game.totals) == record.totals
    assert tuple(game.ranks()) == record.ranks
    assert [r.penalties for r in game.results] == [r.penalties for r in record.rounds]
    assert [(r.dealer, r.reason) for r in game.results] == \
        [(r.dealer, r.reason) for r in record.rounds]


def test_replay_refuses_an_action_out_of_turn() -> None:
    record = play_game(Indian13, [RANDOM] * 4, seed=3)
    seat, _ = parse_logged(record.actions[0])
    wrong = f"{(seat + 1) % 4} stock"
    broken = msgspec.structs.replace(record, actions=(wrong, *record.actions[1:]))
    with pytest.raises(ValueError, match="is to act"):
        replay(broken)


@pytest.mark.parametrize(("change", "expected"), [
    (lambda a: (*a[:5], "0 discard ZZ", *a[6:]), r"action 5 '0 discard ZZ': "),
    (lambda a: (*a[:2], a[3], *a[3:]), r"action 2 '0 discard 4D': IND-"),  # a discard
    # before the draw: the rule broken, by its ID
    (lambda a: a[:-3], r"its \d+ actions end before the game does"),
    (lambda a: (*a, a[-1]), r"action \d+ '.*': after the game's end"),
])
def test_com_4_replay_names_the_record_and_the_action_that_does_not_replay(
        change: Any, expected: str) -> None:
    record = play_game(Indian13, [RANDOM] * 2, seed=3, options={"players": 2})
    broken = msgspec.structs.replace(record, actions=change(record.actions))
    with pytest.raises(ValueError, match=f"^record {record.id}: {expected}"):
        replay(broken)


def test_com_4_replay_refuses_totals_that_differ() -> None:
    record = play_game(Indian13, [RANDOM] * 2, seed=3, options={"players": 2})
    changed = msgspec.structs.replace(record, totals=(record.totals[0] + 1, record.totals[1]))
    with pytest.raises(ValueError, match=r"replayed totals \[\d+, \d+\] differ"):
        replay(changed)


def test_record_json_round_trip() -> None:
    record = play_game(Indian13, [RANDOM, GREEDY, STOCK], seed=4,
                       options={"players": 3, "match": {"deals": 2}})
    line = record.to_json()
    assert line.startswith(f'{{"schema":{SCHEMA},')
    assert "\n" not in line
    back = GameRecord.from_json(line + "\n")
    assert back == record
    assert back.to_json() == line
    assert tuple(replay(back).totals) == record.totals


def _without_timing(record: GameRecord) -> GameRecord:
    seats = tuple(msgspec.structs.replace(s, time_mean_ms=0.0, time_p95_ms=0.0, time_max_ms=0.0)
                  for s in record.seats)
    return msgspec.structs.replace(record, seats=seats)


def test_com_4_same_seed_same_record() -> None:
    """COM-4: the same seed and the same bots give the same record, timing aside."""
    seats = [RANDOM, GREEDY, RANDOM]
    one = play_game(Indian13, seats, seed=9, options={"players": 3})
    two = play_game(Indian13, seats, seed=9, options={"players": 3})
    assert _without_timing(one) == _without_timing(two)
    other = play_game(Indian13, seats, seed=10, options={"players": 3})
    assert other.actions != one.actions


def test_com_4_bots_get_seeds_of_their_own() -> None:
    seeds = {bot_seed(12, seat) for seat in range(6)}
    assert len(seeds) == 6
    assert bot_seed(12, 0) == bot_seed(12, 0) != bot_seed(13, 0)


# --------------------------------------------------------------------------- faults (COM-6)

FAST = Clock(draw_ms=200, play_ms=200)  # roomy for honest seats on a busy machine


COM_6 = FaultPolicy(forfeit_after_consecutive=None)  # COM-6 alone: no forfeit at all
SLOW_GAME_DRAWS = 24  # six turns a seat: enough faults to count, not 25 clocks to wait


def _faulty_game(cls: str, *, clock: Clock | None = None, isolation: Isolation = "inprocess",
                 faults: FaultPolicy = COM_6, draw_cap: int | None = None,
                 **params: Any) -> GameRecord:
    """One game of four seats, the faulty one among stock drawers (a slow bot's game is cut
    short with ``draw_cap``: each of its turns waits out a clock)."""
    seats = [STOCK] * 4
    seats[FAULTY_SEAT] = BotSpec(cls.lower(), bot_target(cls), params)
    options = {} if draw_cap is None else {"draw_cap": draw_cap}
    return play_game(Indian13, seats, seed=21, clock=clock, isolation=isolation,
                     faults=faults, options=options)


def _turns(record: GameRecord, seat: int) -> int:
    return sum(1 for line in record.actions
               if line.startswith(f"{seat} ") and isinstance(parse_logged(line)[1], Draw))


def _assert_safe_turns(record: GameRecord, seat: int) -> None:
    """COM-10 / IND-27: each turn of ``seat`` drew from the stock, discarded that very card,
    and left the hand as it was."""
    game = Indian13(seed=record.seed, options=record.options)
    pending: Counter[Any] | None = None
    for line in record.actions:
        who, action = parse_logged(line)
        if who == seat and isinstance(action, Draw):
            assert action.source == "stock", line
            pending = Counter(game.hands[seat])
        game.apply(action)
        if who == seat and isinstance(action, Draw):
            assert game.view(seat).drawn is not None
        elif who == seat:
            assert isinstance(action, Play) and not action.declare
            assert Counter(game.hands[seat]) == pending, line
    assert game.finished


@pytest.mark.parametrize(("cls", "kind", "at_start"), [
    ("Raiser", "crash", 0),
    ("Exiter", "crash", 0),  # sys.exit() in process: it used to end the whole run silently
    ("GeneratorExiter", "crash", 0),  # it used to end the run with a traceback
    ("BrokenStart", "crash", 1),  # one more for the start that failed
    ("Garbage", "unreadable", 0),
    ("NotAnAction", "unreadable", 0),
    ("IllegalPlay", "illegal", 0),
    ("IllegalDraw", "illegal", 0),
    ("SlowDrawer", "timeout", 0),
    ("SlowPlayer", "timeout", 0),
])
def test_com_6_default_fault_policy(cls: str, kind: str, at_start: int) -> None:
    """COM-6: one fault per faulty decision, of the right kind and seat; the safe action
    (COM-10) is played instead and the game finishes."""
    record = _faulty_game(cls, clock=FAST, draw_cap=SLOW_GAME_DRAWS)
    _assert_faults(record, kind, at_start)


@pytest.mark.parametrize("isolation", ["inprocess", "process"])
def test_com_6_one_stall_is_one_timeout_in_either_mode(isolation: Isolation) -> None:
    """A bot stalled three clocks once: in process it cost one timeout; isolated, each
    decision asked during the stall timed out too (it could not answer), and five in a row
    forfeited the game. The isolated bot is now waited for, up to its grace, as a trusted
    one is, before it is asked again."""
    seats = [STOCK] * 4
    seats[FAULTY_SEAT] = BotSpec("onceslow", bot_target("OnceSlow"), {"delay": 2.5})
    record = play_game(Indian13, seats, seed=21, clock=Clock(draw_ms=1000, play_ms=1000),
                       isolation=isolation, limits=Limits(grace_ms=5000))  # 2.5 s: within
    seat = record.seats[FAULTY_SEAT]  # its grace, the room a loaded machine needs
    assert seat.faults["timeout"] == 1 and sum(seat.faults.values()) == 1, seat.faults
    assert not seat.forfeit


@pytest.mark.parametrize(("cls", "kind"), [("Raiser", "crash"), ("Exiter", "crash"),
                                           ("Garbage", "unreadable"),
                                           ("IllegalPlay", "illegal")])
def test_com_6_default_fault_policy_in_a_seat_process(cls: str, kind: str) -> None:
    record = _faulty_game(cls, isolation="process")
    _assert_faults(record, kind, 0)


def _assert_faults(record: GameRecord, kind: str, at_start: int) -> None:
    faulty = record.seats[FAULTY_SEAT]
    turns = _turns(record, FAULTY_SEAT)
    assert turns > 0
    assert faulty.faults == {k: turns + at_start if k == kind else 0 for k in FAULT_KINDS}
    for seat, seat_record in enumerate(record.seats):
        if seat != FAULTY_SEAT:
            assert sum(seat_record.faults.values()) == 0, (seat, seat_record.faults)
    assert len(record.rounds) == 1 and len(record.totals) == 4
    assert tuple(replay(record).totals) == record.totals
    _assert_safe_turns(record, FAULTY_SEAT)
    log = record.fault_log  # where each happened: before the safe action played for it
    assert len(log) == turns + at_start and {(n.seat, n.kind) for n in log} == {
        (FAULTY_SEAT, kind)}
    assert all(record.actions[n.at].startswith(f"{FAULTY_SEAT} ") for n in log[at_start:])


def test_a_record_of_schema_1_reads_without_a_fault_log() -> None:
    record = _faulty_game("Raiser", clock=FAST)
    raw = json.loads(record.to_json())
    assert raw["schema"] == SCHEMA and len(raw["fault_log"]) == len(record.fault_log) > 0
    del raw["fault_log"]
    old = GameRecord.from_json(json.dumps({**raw, "schema": 1,
                                           "actions": list(record.actions)}))
    assert old.schema == 1 and old.fault_log == () and old.totals == record.totals
    assert old.actions == record.actions


@pytest.mark.parametrize("variant", ["indian13", "rummy51", "moroccan", "three_thirteen"])
def test_schema_3_stores_the_actions_as_one_compact_text(variant: str) -> None:
    """Each action its seat and its clauses' verb letters, joined by "/"; read back to the
    same texts, a schema-2 list of the same actions reads the same, and the line shrinks."""
    options = {"players": 2, "draw_cap": 30}
    record = play_game(find_variant(variant), [GREEDY, RANDOM], seed=4, options=options)
    raw = json.loads(record.to_json())
    assert isinstance(raw["actions"], str) and raw["actions"].count("/") + 1 == \
        len(record.actions)
    assert GameRecord.from_json(record.to_json()) == record
    listed = json.dumps({**raw, "schema": 2, "actions": list(record.actions)})
    assert GameRecord.from_json(listed).actions == record.actions
    assert len(record.to_json()) < 0.75 * len(listed)
    assert tuple(replay(GameRecord.from_json(record.to_json())).totals) == record.totals


def test_an_action_outside_the_compact_grammar_is_stored_as_a_list() -> None:
    assert compact_actions(("0 stock", "0 discard 3C", "1 discard", "1 declare 2H")) == \
        "0s/0d3C/1d/1x2H"
    assert compact_actions(("0 meld 9H 10H JK=JH; lay 3 8H; take 2 5S; discard KS",)) == \
        "0m9H 10H JK=JH;l3 8H;k2 5S;dKS"
    odd = ("0 stock", "0 shout KS")
    assert compact_actions(odd) == list(odd)


def test_isolated_seats_play_the_same_game() -> None:
    """DESIGN: both isolation modes play the same games for the same seeds."""
    seats = [RANDOM, GREEDY, RANDOM]
    here = play_game(Indian13, seats, seed=9, options={"players": 3})
    apart = play_game(Indian13, seats, seed=9, options={"players": 3}, isolation="process")
    assert _without_timing(here) == _without_timing(apart)


def test_a_play_holding_card_text_plays_alike_in_both_modes() -> None:
    """A bot returning Play(discard="QC") played in its own process (the host sends the
    action as text) and in process was refused: "IND-16: QC is not in the hand"."""
    seats = [RANDOM, BotSpec("text", bot_target("TextDiscarder"))]
    here = play_game(Indian13, seats, seed=9, options={"players": 2})
    apart = play_game(Indian13, seats, seed=9, options={"players": 2}, isolation="process")
    assert sum(here.seats[1].faults.values()) == 0, here.seats[1]
    assert _without_timing(here) == _without_timing(apart)


def test_com_8_late_answer_is_ignored() -> None:
    """COM-8: a slow draw asking for the discard is not applied; the safe stock draw is."""
    record = _faulty_game("SlowDrawer", clock=FAST, draw_cap=SLOW_GAME_DRAWS, delay=0.3)
    mine = [line for line in record.actions if line.startswith(f"{FAULTY_SEAT} ")]
    assert f"{FAULTY_SEAT} discard" not in mine
    assert record.seats[FAULTY_SEAT].time_max_ms >= 60


STUCK_GAME = """
import json, sys
from arena.referee import Clock, FaultPolicy, play_game
from arena.seats.bot import BotSpec
from arena.seats.seat import Limits
from arena.variants import find_variant
bot, notes = sys.argv[1], sys.argv[2]
seats = [BotSpec("stock", bot + ":StockBot"), BotSpec("stuck", bot + ":" + sys.argv[3],
                                                     {"path": notes} if notes else {})]
record = play_game(find_variant("indian13"), seats, seed=21, options={"players": 2,
                   "draw_cap": 24}, clock=Clock(draw_ms=200, play_ms=200),
                   limits=Limits(grace_ms=300), faults=FaultPolicy(forfeit_after_consecutive=3))
print(record.to_json())
"""


@pytest.mark.parametrize("cls", ["Spinner", "SpinningHook"])
def test_com_8_a_trusted_bot_stuck_in_a_loop_is_stopped_and_started_again(
        tmp_path: Path, cls: str) -> None:
    """In process, a bot that never returned hung the game for good (`arena play`, and an
    inprocess tournament); it is stopped grace_ms past its clock, a timeout, and started
    again, as an isolated bot is. (In a subprocess: a hang fails the test, not the run.)"""
    notes = tmp_path / "starts.txt" if cls == "Spinner" else None
    done = subprocess.run([sys.executable, "-c", STUCK_GAME, bot_target("x").split(":")[0],
                           str(notes or ""), cls],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    stuck = json.loads(done.stdout)["seats"][1]
    if cls == "Spinner":
        assert stuck["faults"]["timeout"] == 3 and stuck.get("forfeit"), stuck
        assert notes is not None and notes.read_text().count("started") == 4  # 1 + 1 a stop
    else:
        assert stuck["faults"]["timeout"] >= 1 and not stuck.get("forfeit"), stuck


def test_com_8_answers_within_the_clock_are_no_fault() -> None:
    record = _faulty_game("SlowPlayer", clock=Clock(draw_ms=1000, play_ms=1000), delay=0.001)
    assert sum(record.seats[FAULTY_SEAT].faults.values()) == 0


def test_com_6_crashing_hook_counts_as_a_crash() -> None:
    record = _faulty_game("BrokenHook")
    assert record.seats[FAULTY_SEAT].faults["crash"] == len(record.rounds)


@pytest.mark.parametrize("isolation", ["inprocess", "process"])
def test_com_6_an_end_game_hook_that_raises_is_a_crash_in_both_modes(
        isolation: Isolation, caplog: pytest.LogCaptureFixture) -> None:
    """Isolated, it was logged as a timeout: "its game went on 5 s after end_game"."""
    with caplog.at_level(logging.INFO, logger="arena.referee"):
        record = _faulty_game("BrokenEnd", isolation=isolation)
    assert record.seats[FAULTY_SEAT].faults["crash"] == 1, record.seats[FAULTY_SEAT]
    assert record.seats[FAULTY_SEAT].faults["timeout"] == 0, record.seats[FAULTY_SEAT]
    assert "(brokenend) crash: end_game failed" in caplog.text, caplog.text[-2000:]


def test_com_6_an_end_game_hook_that_raises_is_a_crash_however_late_it_is_looked_at(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The host ends when its game's child fails end_game. Seen only once it had ended
    (the referee waits for the seats before it first), it was no fault at all: a CI run on
    Python 3.12 counted 0. Here each seat is looked at a second late."""
    real = ProcessSeat.ended

    def late(self: ProcessSeat, deadline: float) -> str | None:
        time.sleep(1.0)
        return real(self, deadline)

    monkeypatch.setattr(ProcessSeat, "ended", late)
    record = _faulty_game("BrokenEnd", isolation="process")
    assert record.seats[FAULTY_SEAT].faults["crash"] == 1, record.seats[FAULTY_SEAT]
    assert sum(sum(s.faults.values()) for s in record.seats) == 1, record.seats


def test_com_6_ind_20_invalid_declaration_is_not_a_fault() -> None:
    """COM-6: an invalid IND declaration is a legal move with its own penalty (IND-20)."""
    record = _faulty_game("InvalidDeclarer")
    assert sum(record.seats[FAULTY_SEAT].faults.values()) == 0
    assert record.rounds[0].penalties[FAULTY_SEAT] == 80
    assert _turns(record, FAULTY_SEAT) == 1
    assert tuple(replay(record).totals) == record.totals


def test_a_seat_that_faults_5_times_in_a_row_forfeits_by_default() -> None:
    """A dead bot stops costing its deadline: after 5 faults in a row it is asked no more,
    plays safe actions (COM-10) for the rest of the game and ranks last."""
    record = _faulty_game("Raiser", faults=FaultPolicy())
    faulty = record.seats[FAULTY_SEAT]
    assert faulty.faults["crash"] == 5 and faulty.decisions == 5 and faulty.forfeit
    assert record.ranks[FAULTY_SEAT] == 4 and record.termination == "forfeit"
    assert _turns(record, FAULTY_SEAT) > 5  # its turns went on, as safe actions
    _assert_safe_turns(record, FAULTY_SEAT)


def test_faults_that_are_not_in_a_row_never_forfeit() -> None:
    record = _faulty_game("Flaky", faults=FaultPolicy(), every=4)
    faulty = record.seats[FAULTY_SEAT]
    assert not faulty.forfeit and faulty.decisions > 20
    assert faulty.faults["crash"] == faulty.decisions - faulty.decisions // 4


def test_a_bot_that_does_not_start_forfeits_at_once() -> None:
    record = _faulty_game("BrokenStart", faults=FaultPolicy())
    faulty = record.seats[FAULTY_SEAT]
    assert faulty.faults["crash"] == 1 and faulty.decisions == 0 and faulty.forfeit
    assert record.ranks[FAULTY_SEAT] == 4


def test_a_process_bot_slow_to_start_costs_one_start_up_wait() -> None:
    """It used to wait the whole start-up limit again at every decision (its time recorded
    as 0 ms): now the first failed start forfeits it."""
    seats = [STOCK] * 4
    seats[FAULTY_SEAT] = BotSpec("sleepy", bot_target("SlowStart"))
    record = play_game(Indian13, seats, seed=21, isolation="process", faults=FaultPolicy(),
                       limits=Limits(startup_ms=1500))
    faulty = record.seats[FAULTY_SEAT]
    assert faulty.forfeit and faulty.decisions == 0 and sum(faulty.faults.values()) == 1


def test_com_6_no_action_at_a_draw_is_said_to_be_no_draw(caplog: pytest.LogCaptureFixture
                                                          ) -> None:
    """A draw() that returned None reached the referee as "None" (a Python bot's host
    sends the text of what it returns) and was called a bad play, listing the play forms,
    with no word of the decision."""
    with caplog.at_level(logging.INFO, logger="arena.referee"):
        record = _faulty_game("NoneDrawer", clock=FAST, draw_cap=SLOW_GAME_DRAWS)
    _assert_faults(record, "unreadable", 0)
    faults = [r.getMessage() for r in caplog.records
              if "(nonedrawer) unreadable" in r.getMessage()]
    assert faults and all(m.endswith("unreadable: draw decision: bad draw 'None': expected "
                                     "one of stock, discard, tournante") for m in faults)


class _SlyText(str):
    """Text whose own methods raise: the engine read it through them."""

    def split(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("\x1b[2Jsplit")

    def strip(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("\x1b[2Jstrip")


class _Unshowable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no words")


class _SlyPlay(Play):
    """A play whose text raises as it is read, with an error that cannot be shown."""

    def __str__(self) -> str:
        raise _Unshowable


class SlyBot:
    """An in-process bot answering with objects of its own classes."""

    def __init__(self, plays: type) -> None:
        self.plays = plays

    def draw(self, view: Any) -> Any:
        return _SlyText("stock")

    def play(self, view: Any) -> Any:
        card = view.drawn
        return self.plays(f"discard {card}") if self.plays is _SlyText else \
            self.plays(discard=card)


def test_a_bots_own_subclass_of_its_answer_cannot_stop_the_game(
        caplog: pytest.LogCaptureFixture) -> None:
    """In process, a str subclass whose split() raised got into the engine: the game
    failed as an error of the arena (arena play: a traceback; arena run: the games dropped,
    a raw ESC in arena.log). Its text is read as plain text now; an answer that raises as
    it is read is the bot's fault, logged escaped."""
    from arena.api import play

    caplog.set_level(logging.INFO, logger="arena.referee")
    text = play("indian13", [SlyBot(_SlyText), "greedy"], seed=3)
    assert sum(text.seats[0].faults.values()) == 0
    sly = play("indian13", [SlyBot(_SlyPlay), "greedy"], seed=3)
    assert sly.seats[0].faults["unreadable"] == sly.seats[0].decisions // 2 > 0
    assert "its answer raised an exception that cannot be shown as it was read" in caplog.text
    assert "\x1b" not in caplog.text
