"""A Python bot's game ends on the referee's word, not its own (DESIGN "Bots").

The host that serves a Python bot never runs the bot's code: each game is a child of it,
which reads its game's messages; the next game's start is sent only after the host's word
that the child is gone, and a child that outstays ``end_game`` is killed with its seat's
process. So a bot that will not let its game go neither blocks the next game nor reads its
``start_game``, and is counted one timeout fault for each game it would not end.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from conftest import alive, children, reporting_bot_config

from arena.records import read_games
from arena.tournament.config import load_config
from arena.tournament.runner import run_tournament

BOTS = Path(__file__).parents[1] / "bots"


def test_a_game_child_that_will_not_end_is_killed_and_forgotten(tmp_path: Path) -> None:
    config = reporting_bot_config(tmp_path, "stuck", f"{BOTS / 'stuck_at_end.py'}"
                                  ":StuckAtEnd", games=2)
    report = tmp_path / "notes.jsonl"
    started = time.monotonic()
    assert run_tournament(load_config(config), progress=False) == 2
    took = time.monotonic() - started
    notes = [json.loads(line) for line in report.read_text("utf-8").splitlines()]
    games = [n["games"] for n in notes if "games" in n]
    assert len(games) >= 2 and set(games) == {1}  # a fresh process each game
    assert all("start_game" not in n["stolen"] for n in notes if "stolen" in n)
    records = read_games(tmp_path / "results" / "stuck" / "games.jsonl")
    faults = [{k: n for k, n in s.faults.items() if n} for r in records for s in r.seats
              if s.bot == "stuck"]
    assert faults == [{"timeout": 1}] * 2  # the lingering child: one fault a game, no more
    assert all(sum(s.faults.values()) == 0 for r in records for s in r.seats
               if s.bot != "stuck")
    assert took < 300  # about 5 s of grace a game, not a start-up timeout a game


LOOPS_AT_START = """\
class Bot:
    def start_game(self, info):
        while True:
            pass

    def draw(self, view):
        return "stock"

    def play(self, view):
        return f"discard {view.drawn}"
"""


def test_a_game_child_busy_when_its_host_is_killed_dies_with_it(tmp_path: Path) -> None:
    """Unconfined, no namespace ends with the host: its game child, busy in the bot's code
    when the host was killed (its worker stopped), played on alone at full CPU."""
    (tmp_path / "loops.py").write_text(LOOPS_AT_START, "utf-8")
    host = subprocess.Popen([sys.executable, "-m", "arena.seats.host",
                             f"{tmp_path / 'loops.py'}:Bot", "{}", "--path", str(tmp_path)],
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    assert host.stdin is not None
    host.stdin.write(json.dumps({"type": "start_game", "seat": 0, "players": 2,
                                 "variant": "indian13", "options": {}, "seed": 1}).encode()
                     + b"\n")
    host.stdin.flush()
    deadline = time.monotonic() + 60
    while not (kids := children(host.pid)):
        assert host.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    host.kill()
    host.wait()
    while any(alive(c) for c in kids):
        assert time.monotonic() < deadline, f"the game child {kids} plays on"
        time.sleep(0.05)
