"""The golden playthroughs: each variant's recorded game, played again, line for line.

A change of behaviour (a rule, a score, a built-in bot's choice, the deal) shows here as the
first line that differs. If the change is meant, write the files again with
``python tests/golden/playthrough.py`` and read the diff before committing it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from golden.playthrough import CASES, Case, first_difference, path_of


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_game_plays_as_recorded(case: Case) -> None:
    """COM-4: the same seed and bots give the same game, card for card and point for point."""
    assert path_of(case).exists(), f"no {path_of(case)}: run python tests/golden/playthrough.py"
    assert first_difference(case) is None


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_isolated_bots_play_the_same_game(case: Case) -> None:
    """Each bot in its own confined process plays the recorded game move for move: the seats
    and the wire change nothing."""
    assert first_difference(case, "process") is None


def test_a_changed_line_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison can fail: one changed point in a golden file is named by its line."""
    case = CASES[0]
    lines = path_of(case).read_text("utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if " ends: " in line)
    lines[at] = lines[at].replace("penalties [", "penalties [1")
    changed = tmp_path / path_of(case).name
    changed.write_text("\n".join(lines) + "\n", "utf-8")
    monkeypatch.setattr("golden.playthrough.HERE", tmp_path)
    assert first_difference(case) == (
        f"{changed.name}:{at + 1}: expected {lines[at]!r}, "
        f"got {lines[at].replace('penalties [1', 'penalties [')!r}")
