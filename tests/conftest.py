"""Shared helpers for the scenario, conformance and referee tests.

Stacked decks: ``Game(decks=[...], dealer=...)`` deals each given deck in order, first card
first (one card at a time from the seat after the dealer, then the variant's extra cards,
then the stock from its top down). :func:`stacked_deck` builds such a list from what each
seat should hold, so a scenario reads as the table it sets up.
"""

from __future__ import annotations

import functools
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

from arena.actions import Action, parse_action
from arena.cards import Card, deck, parse_cards
from arena.engine.game import Game
from arena.errors import IllegalAction
from arena.seats.sandbox import seat_caps
from arena.variants.indian13 import Indian13
from arena.variants.laying.game import LayingGame

TEST_BOTS = Path(__file__).parent / "bots"
IND_DECK = Counter(deck(decks=2, jokers=2))


# --------------------------------------------------------------------------- the slow marker


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: a long soak test, run only when asked: with -m "
                            "(-m slow, -m 'slow or not slow') or named by its test id")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every file's slow tests are left out of a plain ``pytest``, in this one place; any
    ``-m`` expression decides for itself, and a slow test named by its id runs."""
    if config.option.markexpr:
        return
    named = {_node_id(config, arg) for arg in config.args if "::" in arg}
    slow = [item for item in items if item.get_closest_marker("slow")
            and not any(item.nodeid == n or item.nodeid.startswith(n + "[") for n in named)]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item not in slow]


def _node_id(config: pytest.Config, arg: str) -> str:
    path, _, rest = arg.partition("::")
    absolute = (config.invocation_params.dir / path).resolve()
    if absolute.is_relative_to(config.rootpath):
        path = absolute.relative_to(config.rootpath).as_posix()
    return f"{path}::{rest}"


def cards(text: str) -> list[Card]:
    """Cards from text, ``|`` allowed as a group separator as in the examples of docs/rules.md."""
    return parse_cards(text.replace("|", " "))


def card(text: str) -> Card:
    return Card.parse(text)


def _as_cards(value: str | Iterable[Card]) -> list[Card]:
    return cards(value) if isinstance(value, str) else list(value)


def stacked_deck(hands: Sequence[str | Sequence[Card]], *, extras: Sequence[str | Card] = (),
                 stock: str | Sequence[Card] = (), dealer: int = 0,
                 deck_cards: Counter[Card] = IND_DECK, fill: bool = True) -> list[Card]:
    """The deck, first card first, that deals ``hands[s]`` to seat ``s``.

    ``extras`` are the cards the variant turns up after the deal (IND: the indicator, then
    the first discard); ``stock`` is the stock from its top down. No card may be used more
    often than ``deck_cards`` (the IND deck by default) holds it. With ``fill``, the rest of
    that deck goes under ``stock`` in a fixed (sorted) order, so every card is in play.
    """
    per_seat = [_as_cards(h) for h in hands]
    n = len(per_seat)
    size = len(per_seat[0])
    if any(len(h) != size for h in per_seat):
        raise ValueError("every seat must be dealt the same number of cards")
    order = [per_seat[(dealer + 1 + i) % n][i // n] for i in range(size * n)]
    order += [Card.parse(c) if isinstance(c, str) else c for c in extras]
    order += _as_cards(stock)
    if Counter(order) - deck_cards:
        raise ValueError(f"more copies than the deck holds: {Counter(order) - deck_cards}")
    if fill:
        order += sorted((deck_cards - Counter(order)).elements())
    return order


def ind_game(hands: Sequence[str | Sequence[Card]], *, indicator: str, discard: str,
             stock: str | Sequence[Card] = (), dealer: int = 0, seed: int = 0,
             full: bool = True, **options: Any) -> Indian13:
    """An Indian Rummy game whose first deal is stacked; later deals are shuffled.

    ``full``: the rest of the 106 cards lies under ``stock``; without it the stock is
    ``stock`` and the indicator only. ``players`` defaults to ``len(hands)``; other options
    are passed by keyword.
    """
    options.setdefault("players", len(hands))
    first = stacked_deck(hands, extras=[indicator, discard], stock=stock, dealer=dealer,
                         fill=full)
    return Indian13(seed=seed, options=options, decks=[first], dealer=dealer)


def all_cards(game: Game) -> Counter[Card]:
    """Every card the round holds, wherever it is: hands (eliminated seats included),
    stock, discard pile and table melds.

    A variant with another place for cards (the R51 tournante, cards set aside) should give
    the engine an ``all_cards()`` hook; it is used when present.
    """
    hook = getattr(game, "all_cards", None)
    if callable(hook):
        return Counter(hook())
    out: Counter[Card] = Counter()
    for hand in game.hands:
        out.update(hand)
    out.update(game.stock)
    out.update(game.pile)
    for meld in game.table:
        out.update(meld.cards)
    return out


def bot_target(cls: str, module: str = "faulty_bots.py") -> str:
    """A ``file.py:Class`` bot target for a test bot in ``tests/bots``."""
    return f"{TEST_BOTS / module}:{cls}"


def points_after(game: Game) -> list[int]:
    """The penalties of the last round played."""
    return list(game.results[-1].penalties)


# ------------------------------------------------------------ scenario steps


def play(game: Game, text: str) -> str | None:
    """One answer of the seat to act, written as a bot writes it; the remedy it got, if any
    (R51-9, MAR-8)."""
    return game.apply(parse_action(text))


def draw_and_discard(game: Game) -> None:
    """The seat to act draws from the stock and discards that card."""
    play(game, "stock")
    play(game, f"discard {game.turn.drawn}")


def state(game: Game) -> tuple[Any, ...]:
    """Everything a refused answer must leave as it was (COM-6), the table too where the
    variant has one."""
    common = (tuple(map(tuple, game.hands)), tuple(game.stock), tuple(game.pile),
              tuple(game.history), len(game.log), game.decision, game.to_act, game.draws,
              tuple(game.totals), game.finished)
    if isinstance(game, LayingGame):
        return (*common, tuple(game.table), game.tournante, tuple(game.opened),
                game.best_opening)
    return common


def refused(game: Game, action: Action | str) -> IllegalAction:
    """An answer that must be refused without changing anything (COM-6), its message
    opening with the rule it breaks."""
    before = state(game)
    with pytest.raises(IllegalAction) as caught:
        game.apply(parse_action(action) if isinstance(action, str) else action)
    assert state(game) == before
    assert str(caught.value).startswith(f"{caught.value.rule}: ")
    return caught.value


def hand(game: Game, seat: int) -> list[str]:
    return sorted(str(c) for c in game.hands[seat])


def table(game: LayingGame) -> list[str]:
    """The combinations on the table, a joker written with the card it stands for."""
    return [" ".join(str(c) if s is None else f"{c}={s}" for c, s in
                     zip(m.cards, m.stands_for, strict=True)) for m in game.table]


def writable_by_bots(path: Path) -> Path:
    """What an organiser does for a ``write:`` path when the arena runs as root, where bots
    run as uid 65534: make it writable by others (an empty file if it does not exist)."""
    if not path.exists():
        path.touch()
    path.chmod(path.stat().st_mode | (0o007 if path.is_dir() else 0o006))
    return path


def reporting_bot_config(folder: Path, name: str, target: str, *, games: int) -> Path:
    """A 2-seat config: a hostile bot ``name`` (``target``) that notes what it finds in
    ``folder/notes.jsonl`` (its only write: grant) against the random bot, on one worker."""
    report = writable_by_bots(folder / "notes.jsonl")
    config = folder / f"{name}.yaml"
    config.write_text(f"""\
name: {name}
variant: indian13
options: {{players: 2, draw_cap: 10}}
bots:
  - name: {name}
    module: {target}
    params: {{report: {report}}}
    write: [{report}]
  - name: random
    module: bots.random_bot:RandomBot
format: {{games: {games}}}
workers: 1
output: {folder / 'results'}
""", "utf-8")
    return config


machine_caps = functools.cache(seat_caps)  # one probe group per test process, not per call


def pids_capped_by_cgroup() -> bool:
    """Whether a seat's processes are capped by a pids cgroup here."""
    return "processes" in machine_caps()


def memory_capped_by_cgroup() -> bool:
    """Whether a seat's processes share one memory cap (a memory cgroup) here."""
    return "memory" in machine_caps()


# ---------------------------------------------------------------- processes, from /proc


def _parents() -> dict[int, list[int]]:
    """Every process's children, from /proc/*/stat, which anyone may read (a hardened
    process's other /proc files are root's)."""
    found: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            found.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry))
    return found


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    return _parents().get(pid, [])


def descendants(root: int) -> set[int]:
    """Every process below ``root`` (bots run in sessions of their own, but stay children)."""
    below = _parents()
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in below.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def cmdline(pid: int) -> bytes:
    """A process's command line; empty once it is gone."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def alive(pid: int) -> bool:
    """Whether the process is there and not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def cpu_ticks(pid: int) -> int:
    """A process's user CPU time, in clock ticks; 0 once it is gone."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[11])
    except (OSError, IndexError, ValueError):
        return 0
