"""A Python bot's game ends on the referee's word, not its own (DESIGN "Bots").

The host that serves a Python bot never runs the bot's code: each game is a child of it,
which reads only what the host forwards, and is killed if it outstays ``end_game``. So a bot
that will not let its game go neither blocks the next game nor reads its ``start_game``.
"""

from __future__ import annotations

import json
import textwrap
import time
from pathlib import Path

from arena.config import load_config
from arena.records import read_games
from arena.tournament import run_tournament

BOTS = Path(__file__).parent / "bots"


def test_a_game_child_that_will_not_end_is_killed_and_forgotten(tmp_path: Path) -> None:
    report = tmp_path / "notes.jsonl"
    report.touch()
    config = tmp_path / "stuck.yaml"
    config.write_text(textwrap.dedent(f"""\
        name: stuck
        variant: indian13
        options: {{players: 2, draw_cap: 10}}
        bots:
          - name: stuck
            module: {BOTS / 'stuck_at_end.py'}:StuckAtEnd
            params: {{report: {report}}}
            write: [{report}]
          - name: random
            module: bots.random_bot:RandomBot
        format: {{games: 4}}
        workers: 1
        output: {tmp_path / 'results'}
        """), "utf-8")
    started = time.monotonic()
    assert run_tournament(load_config(config), progress=False) == 4
    took = time.monotonic() - started
    notes = [json.loads(line) for line in report.read_text("utf-8").splitlines()]
    games = [n["games"] for n in notes if "games" in n]
    assert len(games) >= 4 and set(games) == {1}  # a fresh process each game
    assert all("start_game" not in n["stolen"] for n in notes if "stolen" in n)
    records = read_games(tmp_path / "results" / "stuck" / "games.jsonl")
    assert all(sum(s.faults.values()) == 0 for r in records for s in r.seats)
    assert took < 300  # about 2 s of grace a game, not a start-up timeout a game
