"""The report in a real browser (headless Chromium driven by Playwright): the leaderboard and
plots render, the replay steps with the buttons and the arrow keys and shows the hands the
record's replay gives, one seat's view hides the other hands, and nothing is fetched.

Screenshots go to the test's tmp_path; with ARENA_SCREENSHOTS=1 two of them are copied to
docs/img/ for the README. Skipped, saying why, only where no Chromium or no Playwright is
found (`pip install -e '.[test]'`; `apt-get install chromium` on Debian)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.app import app
from arena.records import GameRecord, read_games
from arena.replay import Step, steps

try:
    from playwright.sync_api import Browser, Page, sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    pytest.skip("playwright is not installed (pip install -e '.[test]')",
                allow_module_level=True)

ROOT = Path(__file__).parents[2]
DOCS_IMG = ROOT / "docs" / "img"
runner = CliRunner()
CONFIG = """\
name: browser
variant: indian13
options:
  players: 2
bots:
  - name: greedy
    module: bots.greedy:GreedyBot
  - name: random
    module: bots.random_bot:RandomBot
  - name: random-2
    module: bots.random_bot:RandomBot
format:
  games: 10
  duplicate: true
seed: 3
isolation: inprocess
workers: 1
"""


def chromium() -> str | None:
    """The system's Chromium: ARENA_CHROMIUM, Debian's /usr/bin/chromium, or one on PATH."""
    for candidate in (os.environ.get("ARENA_CHROMIUM"), "/usr/bin/chromium",
                      shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


BROWSER = chromium()
pytestmark = pytest.mark.skipif(
    BROWSER is None, reason="no Chromium found (/usr/bin/chromium, chromium on PATH or "
    "ARENA_CHROMIUM); on Debian: apt-get install chromium")


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("browser")
    (root / "config.yaml").write_text(CONFIG, "utf-8")
    done = runner.invoke(app, ["run", str(root / "config.yaml"), "--out", str(root / "out")])
    assert done.exit_code == 0, (done.stdout, done.stderr)
    folder = root / "out" / "browser"
    done = runner.invoke(app, ["report", str(folder)])
    assert done.exit_code == 0, (done.stdout, done.stderr)
    return folder


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert BROWSER is not None
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=BROWSER)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser, results: Path) -> Iterator[Page]:
    """The report opened from disk, every request it makes recorded."""
    tab = browser.new_page(viewport={"width": 1280, "height": 900})
    requested: list[str] = []
    problems: list[str] = []
    tab.on("request", lambda request: requested.append(request.url))
    tab.on("pageerror", lambda error: problems.append(str(error)))
    tab.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    url = (results / "report.html").as_uri()
    tab.goto(url)
    tab.wait_for_selector("body[data-replays=ready]")
    yield tab
    assert problems == []
    assert requested == [url]  # the page itself and nothing else: no fetch, offline
    tab.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("screenshots")


def publish(shot: Path, name: str) -> None:
    """Copy a screenshot to docs/img/ for the README, when ARENA_SCREENSHOTS=1 asks."""
    if os.environ.get("ARENA_SCREENSHOTS") == "1":
        DOCS_IMG.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, DOCS_IMG / name)


def records_of(results: Path) -> list[GameRecord]:
    return sorted(read_games(results / "games.jsonl"), key=lambda r: r.id)


def shown_hand(page: Page, seat: int) -> list[str]:
    """The cards the viewer shows in one seat's hand, left to right."""
    return page.locator(f'.hand[data-seat="{seat}"] [data-card]').evaluate_all(
        "cards => cards.map(c => c.dataset.card)")


def hand_text(step: Step, seat: int) -> list[str]:
    """A hand after a step as the viewer orders it: by code (suit by suit, the joker last)."""
    return [str(c) for c in sorted(step.after.hands[seat], key=lambda c: c.code)]


def position(page: Page) -> str:
    return page.inner_text("#position")


def test_the_leaderboard_and_the_plots_render(page: Page, results: Path,
                                              shots: Path) -> None:
    rows = page.locator("table.leaderboard tbody tr")
    bots = {s.bot for r in records_of(results) for s in r.seats}
    assert rows.count() == len(bots)
    assert {rows.nth(i).locator("td.bot").inner_text() for i in range(rows.count())} == bots
    assert page.locator("table.leaderboard thead th").count() == \
        rows.first.locator("td").count()
    plots = page.locator("figure.plot svg")
    assert plots.count() == 5
    for i in range(plots.count()):
        plot = plots.nth(i)
        plot.scroll_into_view_if_needed()
        box = plot.bounding_box()
        assert plot.is_visible() and box is not None and box["width"] > 100 and \
            box["height"] > 50, i
    board = shots / "leaderboard.png"
    page.screenshot(path=str(board), full_page=True, clip=_down_to(page, "#leaderboard"))
    page.locator("#plots").screenshot(path=str(shots / "plots.png"))
    assert board.stat().st_size > 10_000
    publish(board, "report-leaderboard.png")


def _down_to(page: Page, last: str) -> Any:
    """The page from its top to the bottom of one element, in page coordinates."""
    page.evaluate("window.scrollTo(0, 0)")
    box = page.locator(last).bounding_box()
    assert box is not None
    return {"x": 0, "y": 0, "width": 1280, "height": box["y"] + box["height"] + 16}


def test_the_report_fetches_nothing_as_it_is_read(browser: Browser, results: Path) -> None:
    tab = browser.new_page()
    requested: list[str] = []
    tab.on("request", lambda request: requested.append(request.url))
    url = (results / "report.html").as_uri()
    tab.goto(url, wait_until="load")
    tab.wait_for_selector("body[data-replays=ready]")
    tab.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    tab.click("#next")
    tab.close()
    assert requested == [url]


def test_the_replay_steps_with_the_buttons_and_the_arrow_keys(page: Page,
                                                              results: Path) -> None:
    record = records_of(results)[0]
    expected = list(steps(record))
    page.select_option("#game", "0")
    assert position(page) == f"step 1 of {len(expected)}"
    assert page.is_disabled("#prev")

    def at(index: int) -> None:
        assert position(page) == f"step {index + 1} of {len(expected)}"
        assert expected[index].ended is None, "choose steps inside the round"
        for seat in range(len(record.seats)):
            assert shown_hand(page, seat) == hand_text(expected[index], seat), (index, seat)

    at(0)
    for _ in range(3):
        page.click("#next")
    at(3)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    at(5)
    page.keyboard.press("ArrowLeft")
    at(4)
    page.click("#prev")
    at(3)
    assert page.inner_text("#step").startswith(f"Seat {expected[3].seat} ")
    for _ in range(len(expected) + 2):  # past the end: it stays on the last step
        page.keyboard.press("ArrowRight")
    assert position(page) == f"step {len(expected)} of {len(expected)}"
    assert page.is_disabled("#next")
    ended = expected[-1].ended
    assert ended is not None
    assert page.inner_text("#ending").startswith(f"Round {ended.round} ends")
    # the game's result under its last round: it said nothing of how the game ended
    assert page.inner_text("#ending").endswith(
        f" Game over ({record.termination}): ranks {', '.join(map(str, record.ranks))}.")
    for seat, hand in enumerate(ended.hands):
        assert shown_hand(page, seat) == [str(c) for c in sorted(hand, key=lambda c: c.code)]


def test_a_seat_sees_its_own_hand_and_no_other(page: Page, results: Path,
                                               shots: Path) -> None:
    records = records_of(results)
    number, record = next((n, r) for n, r in enumerate(records)
                          if any(s.seat == 1 and s.action == "stock" for s in steps(r)))
    expected = list(steps(record))
    index = next(i for i, s in enumerate(expected) if s.seat == 1 and s.action == "stock")
    drawn = expected[index].drawn
    assert drawn is not None
    page.select_option("#game", str(number))
    for _ in range(index):
        page.keyboard.press("ArrowRight")
    assert position(page) == f"step {index + 1} of {len(expected)}"
    organiser = page.inner_text("#step")
    assert organiser.endswith(f"draws {drawn} from the stock")

    page.select_option("#seat", "0")
    hidden = page.locator('.hand[data-seat="1"]')
    assert hidden.get_attribute("data-hidden") == "true"
    assert shown_hand(page, 1) == []
    assert hidden.locator(".card.back").count() == len(expected[index].after.hands[1])
    assert hidden.get_attribute("data-size") == str(len(expected[index].after.hands[1]))
    assert shown_hand(page, 0) == hand_text(expected[index], 0)
    assert page.inner_text("#step") == \
        f"Seat 1 ({record.seats[1].bot}): draws from the stock"
    assert str(drawn) not in page.inner_text("#step")
    replay = shots / "replay.png"
    page.locator("#replays").screenshot(path=str(replay))

    page.select_option("#seat", "1")
    assert shown_hand(page, 1) == hand_text(expected[index], 1)
    assert shown_hand(page, 0) == []
    assert page.inner_text("#step").endswith(f"draws {drawn} from the stock")
    page.keyboard.press("ArrowRight")
    assert position(page) == f"step {index + 2} of {len(expected)}"
    publish(replay, "report-replay.png")


@pytest.fixture(scope="module")
def forfeited(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A game that ends in a forfeit: a bot that raises at every decision (COM-6)."""
    root = tmp_path_factory.mktemp("forfeit")
    broken = ROOT / "tests" / "bots" / "faulty_bots.py"
    text = CONFIG.replace("name: browser", "name: forfeit").replace(
        "  - name: random-2\n    module: bots.random_bot:RandomBot\n", "").replace(
        "  - name: random\n    module: bots.random_bot:RandomBot\n",
        f"  - name: broken\n    module: {broken}:Raiser\n").replace("games: 10", "games: 2")
    (root / "config.yaml").write_text(text, "utf-8")
    done = runner.invoke(app, ["run", str(root / "config.yaml"), "--out", str(root / "out")])
    assert done.exit_code == 0, (done.stdout, done.stderr)
    folder = root / "out" / "forfeit"
    assert runner.invoke(app, ["report", str(folder)]).exit_code == 0
    return folder


def test_a_forfeited_game_s_last_step_names_the_seat(browser: Browser, forfeited: Path) -> None:
    """COM-6: a seat that forfeited on 0 points looked like the winner at the last step."""
    record = records_of(forfeited)[0]
    gave = [i for i, s in enumerate(record.seats) if s.forfeit]
    assert record.termination == "forfeit" and gave
    tab = browser.new_page(viewport={"width": 1280, "height": 900})
    tab.goto((forfeited / "report.html").as_uri())
    tab.wait_for_selector("body[data-replays=ready]")
    tab.select_option("#game", "0")
    for _ in range(len(list(steps(record))) + 1):
        tab.keyboard.press("ArrowRight")
    names = ", ".join(f"seat {i} ({record.seats[i].bot})" for i in gave)
    assert tab.inner_text("#ending").endswith(
        f" Game over (forfeit: {names} forfeited): ranks "
        f"{', '.join(map(str, record.ranks))}."), tab.inner_text("#ending")
    tab.close()

