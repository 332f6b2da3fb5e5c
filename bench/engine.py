"""Time whole games in process, on one core: engine plus bots, the engine alone, greedy bots.

    python bench/engine.py [--n N] [--greedy-n N] [--seed 1] [--variant indian13] [--profile]

(a) random vs random through the referee (``play_game``): games/s, decisions/s, us/decision.
(b) the engine alone: ``Game.apply`` driven by an inline policy (draw the stock, discard the
    drawn card or a random card), with and without building the seat's ``View`` each decision;
    no referee, no bot, no declaration search. Round-end scoring (IND-22) is included.
(c) greedy vs random (seats alternate): games/s.
Game ``i`` uses seed ``--seed + i``, so every run plays the same deals. Default game counts
are per variant (``DEFAULT_GAMES``), sized to finish in seconds.
"""

from __future__ import annotations

import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import _harness
from _harness import STATS_HEADERS, Stats

from arena.actions import Draw, Play
from arena.engine.game import Game
from arena.engine.options import resolve_options
from arena.records import GameRecord
from arena.referee import play_game
from arena.seats.bot import BotSpec
from arena.variants import VARIANTS, find_variant

RANDOM = BotSpec("random", "bots.random_bot:RandomBot")
GREEDY = BotSpec("greedy", "bots.greedy:GreedyBot")
STOCK = Draw("stock")
_now = time.perf_counter_ns
DEFAULT_GAMES = {"indian13": (200, 20), "three_thirteen": (20, 2)}  # (--n, --greedy-n)


@dataclass(slots=True)
class Tally:
    """What a batch of games cost: wall time per game, decisions, bot time, faults, ends."""

    game_ns: list[int] = field(default_factory=list)
    decisions: int = 0
    bot_ms: float = 0.0
    faults: int = 0
    ends: Counter[str] = field(default_factory=Counter)

    def row(self, mode: str) -> list[object]:
        stats = Stats.of(self.game_ns)
        seconds = stats.total / 1e9
        ends = ", ".join(f"{k} {v}" for k, v in sorted(self.ends.items()))
        share = f"{100 * self.bot_ms / 1e3 / seconds:.0f}%" if self.bot_ms else "-"
        return [mode, stats.calls, f"{stats.calls / seconds:,.1f}", self.decisions,
                f"{self.decisions / seconds:,.0f}", _harness.us(stats.total / self.decisions),
                *(f"{ns / 1e6:,.1f}" for ns in (stats.p50, stats.p90, stats.p99, stats.max)),
                share, self.faults, ends]


GAME_HEADERS = ["mode", "games", "games/s", "decisions", "decisions/s", "us/decision",
                "game p50 ms", "p90 ms", "p99 ms", "max ms", "bot share", "faults", "ends"]


def seats_of(variant: type[Game]) -> int:
    """The variant's default table size."""
    return int(resolve_options(variant.name, variant.OPTIONS, {})["players"])


# --------------------------------------------------------------------------- (a), (c) referee


def refereed(variant: type[Game], seats: Sequence[BotSpec], seeds: Sequence[int]) -> Tally:
    """Play each seed through the referee, timing whole games."""
    tally = Tally()
    for seed in seeds:
        start = _now()
        record = play_game(variant, seats, seed=seed)
        tally.game_ns.append(_now() - start)
        _count(tally, record)
    return tally


def _count(tally: Tally, record: GameRecord) -> None:
    tally.decisions += len(record.actions)
    tally.bot_ms += sum(s.time_mean_ms * s.decisions for s in record.seats)
    tally.faults += sum(sum(s.faults.values()) for s in record.seats)
    tally.ends.update(r.reason for r in record.rounds)


# --------------------------------------------------------------------------- (b) engine alone


def engine_game(variant: type[Game], seed: int, *, views: bool,
                decision_ns: list[int]) -> Game:
    """One game driven straight through ``Game.apply``; appends each decision's time."""
    rng = random.Random(seed)
    game = variant(seed=seed)
    clock = _now
    while not game.finished:
        start = clock()
        if views:
            game.view(game.to_act)
        if game.decision == "draw":
            game.apply(STOCK)
        else:
            hand = game.hands[game.to_act]
            drawn = game.turn.drawn
            card = drawn if drawn is not None and rng.random() < 0.5 else rng.choice(hand)
            game.apply(Play(discard=card))
        decision_ns.append(clock() - start)
    return game


def engine_alone(variant: type[Game], seeds: Sequence[int], *,
                 views: bool) -> tuple[Tally, list[int]]:
    tally = Tally()
    decision_ns: list[int] = []
    for seed in seeds:
        start = _now()
        game = engine_game(variant, seed, views=views, decision_ns=decision_ns)
        tally.game_ns.append(_now() - start)
        tally.ends.update(r.reason for r in game.results)
    tally.decisions = len(decision_ns)
    return tally, decision_ns


# --------------------------------------------------------------------------- main


WARM_UP_SEEDS = range(10**9, 10**9 + 2)  # never among the timed seeds


def warm_up(variant: type[Game], seats: int) -> None:
    """A few untimed games of every kind, so imports and bot loading are not timed."""
    for seed in WARM_UP_SEEDS:
        play_game(variant, [RANDOM] * seats, seed=seed)
        engine_game(variant, seed, views=True, decision_ns=[])
    play_game(variant, _mixed(seats), seed=WARM_UP_SEEDS[0])


def _mixed(seats: int) -> list[BotSpec]:
    return [GREEDY if s % 2 == 0 else RANDOM for s in range(seats)]


def run(variant: type[Game], n: int, greedy_n: int, seed: int) -> None:
    seats = seats_of(variant)
    seeds = range(seed, seed + n)
    warm_up(variant, seats)
    bare, bare_ns = engine_alone(variant, seeds, views=False)
    viewed, viewed_ns = engine_alone(variant, seeds, views=True)
    rows = [refereed(variant, [RANDOM] * seats, seeds).row(f"(a) random x{seats}, referee"),
            bare.row("(b) engine alone, apply"),
            viewed.row("(b) engine alone, apply + view"),
            refereed(variant, _mixed(seats), range(seed, seed + greedy_n))
            .row("(c) greedy/random alternating")]
    print(f"Whole games, {variant.version}, {seats} seats, default options, one core")
    _harness.show(rows, GAME_HEADERS)
    print("Per decision, engine alone (the capping decision includes round-end scoring)")
    _harness.show([["apply", len(bare_ns), *Stats.of(bare_ns).row_us()],
                   ["apply + view", len(viewed_ns), *Stats.of(viewed_ns).row_us()]],
                  ["mode", "decisions", *STATS_HEADERS])


def profile(variant: type[Game], n: int, seed: int) -> None:
    seats, seeds = seats_of(variant), range(seed, seed + n)
    _harness.profile_top(f"(a) random x{seats} through the referee, {n} games",
                         lambda: refereed(variant, [RANDOM] * seats, seeds))
    _harness.profile_top(f"(b) engine alone with views, {n} games",
                         lambda: engine_alone(variant, seeds, views=True))


def main(argv: Sequence[str] | None = None) -> int:
    parser = _harness.arguments(__doc__.splitlines()[0], n=None, repeat=False)
    parser.add_argument("--greedy-n", type=int,
                        help="games for (c), greedy vs random (default per variant)")
    parser.add_argument("--variant", default="indian13",
                        help="a registered variant: " + ", ".join(v.name for v in VARIANTS))
    args = parser.parse_args(argv)
    variant = find_variant(args.variant)
    n, greedy_n = DEFAULT_GAMES.get(variant.name, (20, 2))
    args.n, args.greedy_n = args.n or n, args.greedy_n or greedy_n
    _harness.banner(f"bench/engine.py --n {args.n} --greedy-n {args.greedy_n} "
                    f"--seed {args.seed} --variant {variant.name}")
    run(variant, args.n, args.greedy_n, args.seed)
    if args.profile:
        profile(variant, min(args.n, 50), args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
