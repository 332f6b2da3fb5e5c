"""Golden playthroughs: one recorded game per variant, the regression guard of the engine.

    python tests/golden/playthrough.py            # write every tests/golden/<case>.txt
    python tests/golden/playthrough.py --check    # compare, say the first line that differs

Each case is a whole game of built-in bots (in-process, seeded), written line by line: what
the seat to act was shown (its hand, the discard top, the stock, the table, the scores) and
what it did, each round's end with its penalties, and the game's end. Everything comes
through the public interfaces (the view, the record), so a change of the code's shape
leaves the files alone; a change of behaviour shows as a diff.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.records import GameRecord, parse_logged
from arena.referee import play_game
from arena.seats.bot import BotSpec
from arena.seats.make import Isolation
from arena.variants import find_variant

HERE = Path(__file__).parent
GREEDY = BotSpec("greedy", "bots.greedy:GreedyBot")
RANDOM = BotSpec("random", "bots.random_bot:RandomBot")


@dataclass(frozen=True)
class Case:
    """One golden game: a variant, its options, the bots by seat, the seed."""

    name: str
    variant: str
    options: Mapping[str, Any] = field(default_factory=dict)
    bots: tuple[BotSpec, ...] = (GREEDY, RANDOM, GREEDY, RANDOM)
    seed: int = 1


CASES = (
    Case("indian13", "indian13", {"players": 4, "match": {"deals": 2}}),
    Case("three_thirteen", "three_thirteen", {"players": 3}, (GREEDY, RANDOM, GREEDY)),
    Case("rummy51", "rummy51", {"players": 4, "match": {"rounds": 2}}),
    Case("rummy51_teams", "rummy51", {"players": 4, "teams": True, "match": {"rounds": 2}}),
    Case("rummy71", "rummy71", {"players": 3, "match": {"rounds": 2}}, (GREEDY, RANDOM, GREEDY)),
    Case("moroccan_tallaj", "moroccan", {"players": 3, "mode": "tallaj"},
         (GREEDY, RANDOM, GREEDY)),
    Case("moroccan_simple", "moroccan", {"players": 3, "mode": "simple"},
         (GREEDY, RANDOM, GREEDY)),
)


def cards(row: Any) -> str:
    return " ".join(str(c) for c in row) or "-"


def table_lines(table: Any) -> list[str]:
    """Each combination on the table, its owner, a wild card shown with what it stands for."""
    return [f"    table {m.owner}: " + " ".join(
        str(c) if s is None else f"{c}={s}" for c, s in zip(m.cards, m.stands_for, strict=True))
        for m in table]


def transcript(case: Case, isolation: Isolation = "inprocess") -> Iterator[str]:
    """The case's game, played now (its bots in this process, or each in its own), as lines
    of text."""
    variant = find_variant(case.variant)
    record = play_game(variant, case.bots, seed=case.seed, options=case.options,
                       isolation=isolation)
    yield f"case {case.name}: {record.variant} {dict(record.options)} seed {record.seed}"
    yield "seats " + ", ".join(s.bot for s in record.seats)
    game = variant(seed=record.seed, options=record.options)
    shown_round, shown_table = -1, None
    for text in record.actions:
        seat, action = parse_logged(text)
        view = game.view(seat)
        if view.round != shown_round:
            shown_round = view.round
            extra = "" if view.part is None else view.part.headline()
            yield f"round {view.round}, dealer {view.dealer}{extra}"
            for other in range(game.players):
                yield f"  deal {other}: {cards(game.view(other).hand)}"
        if view.table != shown_table:
            shown_table = view.table
            yield from table_lines(view.table)
        yield (f"  {view.decision} {seat}: hand {cards(view.hand)} | top "
               f"{view.discard_top or '-'} | stock {view.stock_size} | scores "
               f"{list(view.scores)} -> {action}")
        rounds = len(game.results)
        game.apply(action)
        if len(game.results) > rounds:
            result = game.results[-1]
            yield (f"round {result.round} ends: {result.reason}, penalties "
                   f"{list(result.penalties)}, totals {list(game.totals)}")
    yield from _ending(record)


def _ending(record: GameRecord) -> Iterator[str]:
    yield (f"game ends: {record.termination}, totals {list(record.totals)}, "
           f"ranks {list(record.ranks)}")
    for seat, s in enumerate(record.seats):
        faults = {k: n for k, n in s.faults.items() if n}
        yield f"  seat {seat} {s.bot}: {s.decisions} decisions, faults {faults or 'none'}"
    for r in record.rounds:
        yield f"  round {r.round} dealer {r.dealer}: {r.reason} {list(r.penalties)}"


def path_of(case: Case) -> Path:
    return HERE / f"{case.name}.txt"


def first_difference(case: Case, isolation: Isolation = "inprocess") -> str | None:
    """Where the game played now departs from its golden file (None: nowhere)."""
    want = path_of(case).read_text("utf-8").splitlines()
    got = list(transcript(case, isolation))
    for number, (a, b) in enumerate(zip(want, got, strict=False), 1):
        if a != b:
            return f"{path_of(case).name}:{number}: expected {a!r}, got {b!r}"
    if len(want) != len(got):
        return f"{path_of(case).name}: {len(want)} lines expected, {len(got)} played"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    failed = 0
    for case in CASES:
        if args.check:
            diff = first_difference(case)
            failed += diff is not None
            print(diff or f"{case.name}: same")
        else:
            path_of(case).write_text("\n".join(transcript(case)) + "\n", "utf-8")
            print(f"wrote {path_of(case)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
