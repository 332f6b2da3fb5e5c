"""The slow marker, handled once in conftest.py: a plain ``pytest`` leaves the slow tests of
every file out, ``-m`` decides for itself, and a slow test named by its id runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
FILE = "tests/ratings/test_sprt.py"
SLOW = "test_error_rates_at_a_small_elo_gap"  # marked slow, three parameters


def collected(*args: str, cwd: Path = ROOT) -> str:
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                           "--collect-only", "-n", "0", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.parametrize(("args", "has_slow", "deselected"), [
    ((FILE,), False, "3 deselected"),
    pytest.param((FILE, "-m", "slow"), True, None, marks=pytest.mark.slow),
    pytest.param((FILE, "-m", "slow or not slow"), True, None, marks=pytest.mark.slow),
    ((f"{FILE}::{SLOW}",), True, None),
])
def test_slow_tests_run_only_when_asked(args: tuple[str, ...], has_slow: bool,
                                        deselected: str | None) -> None:
    out = collected(*args)
    assert (SLOW in out) == has_slow
    assert deselected is None or deselected in out


def test_a_slow_test_named_from_its_own_folder_runs() -> None:
    out = collected(f"test_sprt.py::{SLOW}[3]", cwd=ROOT / "tests" / "ratings")
    assert f"{SLOW}[3]" in out and f"{SLOW}[2]" not in out
