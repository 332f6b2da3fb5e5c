"""The SPRT run: duplicate sets of the candidate and the baseline played in batches until the
test of :mod:`arena.ratings.sprt` decides, every game kept on disk as a tournament's."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Generator
from contextlib import closing
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from arena.errors import ArenaError, BadInput
from arena.ratings.comparisons import Teams
from arena.ratings.sprt import (
    MIN_SETS,
    EloGap,
    Scores,
    Sprt,
    decision,
    elo_estimate,
    llr,
    set_result,
)
from arena.records import GameRecord, drop_torn_tail, read_games
from arena.tournament.config import SPRT_SUFFIX, Config
from arena.tournament.logs import start_logging, stop_logging
from arena.tournament.runner import (
    CONFIG_FILE,
    append_records,
    changes,
    check_config_bots,
    edited_bots,
    mark_mixed,
    open_records,
    play_pairings,
    refuse_mixed,
    refuse_unlike,
    settle_seed,
    source_hashes,
    start_over,
    store_identity,
    stored_identity,
    writing,
)
from arena.tournament.schedule import Pairing, derive_seed, duplicate_set

log = logging.getLogger("arena.tournament.sprt_run")

EXIT_CODES = {"H1": 0, "H0": 1, "inconclusive": 3}
NO_VERDICT = 4  # the test could not give one: a bot's code changed while it played, or an
# error of the arena or the disk stopped it (1 is H0's: a CI gate could not tell them apart)


def sprt_pairings(candidate: str, baseline: str, *, players: int, seed: int,
                  sets: range, filler: str | None = None, teams: Teams = None
                  ) -> list[Pairing]:
    """The games of duplicate sets ``sets``: one deck per set, dealt once per seat rotation
    of the table, set s in the table's s-th cyclic order (the schedule's duplicate sets);
    with ``teams``, only orders where the candidate has the baseline against it (partners
    are not compared: a set of the two as partners would say nothing)."""
    table = (candidate, baseline, *[filler or baseline] * (players - 2))

    def facing(order: tuple[str, ...]) -> bool:
        return teams is None or any(
            teams[i] != teams[j] for i, a in enumerate(order) if a == candidate
            for j, b in enumerate(order) if b == baseline)

    return [Pairing(id=f"s{s:06d}-g{g}", table=0, seats=seats, dup_set=f"s{s:06d}",
                    seed=derive_seed(seed, "sprt", s))
            for s in sets for g, seats in enumerate(duplicate_set(table, s, facing))]


@dataclass(frozen=True, slots=True)
class Verdict:
    """How a test ended: "H1" (A is stronger), "H0" (it is not) or "inconclusive"."""

    result: str
    scores: Scores
    games: int
    edited: tuple[str, ...] = ()  # bots whose code changed while the test played

    @property
    def exit_code(self) -> int:
        """0: H1, 1: H0, 3: inconclusive at the game limit; 4 (no verdict) when a bot's
        code changed meanwhile: its games mix two versions."""
        return NO_VERDICT if self.edited else EXIT_CODES[self.result]

    def as_json(self, test: Sprt, candidate: str, baseline: str) -> dict[str, Any]:
        """The verdict for a program (``arena sprt --json``): what a CI gate reads."""
        gap = elo_estimate(self.scores) if self.scores.n else None
        return {"verdict": None if self.edited else self.result, "edited": list(self.edited),
                "candidate": candidate, "baseline": baseline, "games": self.games,
                "sets": self.scores.n, "llr": round(llr(self.scores, test), 4)
                if self.scores.n else 0.0, "bounds": [round(b, 4) for b in test.bounds],
                "elo": None if gap is None else round(gap.elo, 2),
                "elo_half": None if gap is None or gap.half is None else round(gap.half, 2),
                "elo0": test.elo0, "elo1": test.elo1, "alpha": test.alpha, "beta": test.beta,
                "exit_code": self.exit_code}


def run_sprt(config: Config, test: Sprt, *, candidate: str, baseline: str,
             filler: str | None = None, max_games: int | None = None,
             report: Callable[[str], None] = print, fresh: bool = False) -> Verdict:
    """Play duplicate sets in parallel batches until the LLR leaves its bounds (or the game
    limit is reached); the games go to ``<output>/<name>-sprt/games.jsonl``. A test stopped
    before resumes from its last whole set when nothing that decides its games or its
    verdict changed (``config.yaml`` there keeps them); else its games are refused unless
    ``fresh`` (they are replaced)."""
    config = replace(config)  # checked again: code may change its options
    k = _check(config, candidate, baseline, filler, max_games)
    playing = {candidate, baseline, filler or baseline}  # the test's bots decide its games
    config = replace(config, bots=tuple(b for b in config.bots if b.name in playing))
    key = {"candidate": candidate, "baseline": baseline, "filler": filler,
           "elo0": test.elo0, "elo1": test.elo1, "alpha": test.alpha, "beta": test.beta}
    folder = sprt_folder(config)
    config = _settled(config, folder, key, fresh=fresh)  # a changed test: before any bot
    check_config_bots(config)
    with writing(folder):
        config = _settled(config, folder, key, fresh=fresh)  # another run may have written
        earlier = _earlier(config, folder, key, fresh=fresh, seats=k)
        handler = start_logging(folder)  # the faults' details, as a tournament's
        try:
            return _run_sprt(config, test, folder=folder, candidate=candidate,
                             baseline=baseline, filler=filler, max_games=max_games,
                             report=report, seats=k, earlier=earlier)
        finally:
            stop_logging(handler)


def sprt_folder(config: Config) -> Path:
    """Where a config's SPRT keeps its games."""
    return config.output / f"{config.name}{SPRT_SUFFIX}"


def _settled(config: Config, folder: Path, key: dict[str, Any], *, fresh: bool) -> Config:
    """The config with its seed settled (the stored test's, for a resume); BadInput when the
    folder holds games of a test that differs, naming what changed."""
    games = folder / "games.jsonl"
    held = 0 if fresh else _held(games)
    if not held:
        return config if config.seed is not None else settle_seed(config, None)
    previous = stored_identity(folder / CONFIG_FILE, folder)
    refuse_mixed(previous, folder)
    if previous is None or not isinstance(previous.get("sprt"), dict):
        raise BadInput(f"{games} holds {held} games of an earlier test whose settings were "
                       "not kept: add --fresh to start a new test in their place, or move "
                       "them away first")
    if config.seed is None:
        config = settle_seed(config, previous)
    changed = [] if previous.get("identity_hash") == config.identity_hash() else \
        changes(previous.get("identity", {}), config.identity())
    changed += changes(previous["sprt"], key)
    if changed:
        raise BadInput(f"{games} holds {held} games of a test with other settings (changed: "
                       f"{'; '.join(changed)}): run that test's command to resume it, or add "
                       "--fresh to start a new test in their place")
    return config


def _held(games: Path) -> int:
    """Lines in a games file (0 when there is none)."""
    try:
        with games.open("rb") as lines:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: lines.read(1 << 20), b""))
    except FileNotFoundError:
        return 0
    except OSError as exc:
        raise BadInput(f"{games}: cannot read it ({exc.strerror})") from None


def _earlier(config: Config, folder: Path, key: dict[str, Any], *, fresh: bool,
             seats: int) -> list[GameRecord]:
    """The whole sets a stopped run of this test played (none when ``fresh``: its games go),
    with the test's settings written beside them for the next resume (and the report)."""
    games = folder / "games.jsonl"
    try:
        if fresh:  # its logs and report too: they told of the test replaced
            start_over(folder)
        drop_torn_tail(games)  # a write cut short: that set is played again
        store_identity(config, folder / CONFIG_FILE, extra={"sprt": key})
    except OSError as exc:
        raise ArenaError(f"{folder}: cannot write the results folder ({exc.strerror or exc})"
                         ) from None
    records = read_games(games, actions=False)
    assert config.seed is not None  # settled
    expected = sprt_pairings(key["candidate"], key["baseline"], players=seats,
                             seed=config.seed, sets=range(-(-len(records) // seats)),
                             filler=key["filler"],
                             teams=config.game.team_labels(config.options))
    if [r.id for r in records] != [p.id for p in expected[:len(records)]]:
        raise BadInput(f"{games}: not the sets of this test in order (it starts "
                       f"{', '.join(r.id for r in records[:3])}); add --fresh to start the "
                       "test over")
    refuse_unlike(games, records, expected[:len(records)], config)
    whole = len(records) - len(records) % seats
    if whole < len(records):  # a set cut short (killed between its lines): played again
        try:
            _keep_lines(games, whole)
        except OSError as exc:
            raise ArenaError(f"{games}: cannot cut its last set short "
                             f"({exc.strerror or exc})") from None
        print(f"arena: warning: {games}: the last set was cut short (a stop between its "
              "games): it is played again", file=sys.stderr)
    return records[:whole]


def _keep_lines(path: Path, count: int) -> None:
    """Cut a file back to its first ``count`` lines, replaced whole (never torn)."""
    lines = path.read_bytes().splitlines(keepends=True)[:count]
    partial = path.with_name(path.name + ".new")
    partial.write_bytes(b"".join(lines))
    os.replace(partial, path)


def _run_sprt(config: Config, test: Sprt, *, folder: Path, candidate: str, baseline: str,
              filler: str | None, max_games: int | None, report: Callable[[str], None],
              seats: int, earlier: list[GameRecord]) -> Verdict:
    """The SPRT proper, with the folder's lock held, after the ``earlier`` sets of a
    stopped run of it."""
    k = seats
    sources = source_hashes(config)  # as the test starts: an edit while it plays is told
    lower, upper = test.bounds
    report(f"sprt {candidate} vs {baseline} at {k}-seat tables"
           f"{f' (other seats: {filler or baseline})' if k > 2 else ''}: elo0 {test.elo0:g}, "
           f"elo1 {test.elo1:g}, alpha {test.alpha:g}, beta {test.beta:g}, "
           f"LLR bounds [{lower:.2f}, {upper:.2f}], seed {config.seed}")
    report(f"Elo: {candidate}'s minus {baseline}'s on the leaderboard's Bradley-Terry scale, "
           f"± its 95% interval")
    scores = Scores()
    result = None
    teams = config.game.team_labels(config.options)
    for group in (earlier[i:i + k] for i in range(0, len(earlier), k)):
        scores = _scored(scores, group, candidate, baseline, teams)
        result = decision(scores, test)
        if result:  # where the test ended: sets after it (none, as it writes) do not count
            break
    if earlier:
        report(f"resumed: {len(earlier)} games ({scores.n} sets) of this test played before")
        report(_progress(scores, test, k))
    if max_games is not None and not result:  # what the cap allows, once the kept sets count
        if scores.n * k >= max_games - max_games % k:  # whole sets: 7 at 2 seats plays 6
            print(f"arena: warning: --max-games {max_games}: the {scores.n * k} games played "
                  "before reach it already: no game is played now", file=sys.stderr)
        else:
            _warn_about_the_cap(max_games, k)
    path = folder / "games.jsonl"
    then = ("the games played are kept there; make room and run the command again (without "
            "--fresh) to resume the test")
    games = _games(config, candidate, baseline, filler, max_games, folder, start=scores.n)
    played: list[GameRecord] = []  # the set in play
    with open_records(path, "ab", then=then) as out, closing(games):
        for record in () if result else games:
            if record is None:  # a batch played
                report(_progress(scores, test, k))
                continue
            played.append(record)
            if len(played) < k:
                continue
            data = "".join(r.to_json() + "\n" for r in played).encode()
            append_records(path, out, data, then=then)  # each set as soon as it is whole
            scores, played = _scored(scores, played, candidate, baseline, teams), []
            result = decision(scores, test)
            if result:  # the rest of the batch is not played: its workers stop
                report(_progress(scores, test, k))
                break
    edited = tuple(edited_bots(config, sources)) if scores.n * k > len(earlier) else ()
    if edited:  # a run after a restore of the file would give their games a verdict
        mark_mixed(folder / CONFIG_FILE, edited)
    verdict = Verdict(result or "inconclusive", scores, scores.n * k, edited)
    report(said := _conclusion(verdict, test, candidate, baseline))
    log.info("sprt %s vs %s: %s%s", candidate, baseline, said,
             "; games of the batch after the deciding set were stopped or dropped: a fault "
             "logged above for a game not in games.jsonl is not counted" if result else "")
    return verdict


def _check(config: Config, candidate: str, baseline: str, filler: str | None,
           max_games: int | None) -> int:
    names = [b.name for b in config.bots]
    for option, name in (("candidate", candidate), ("baseline", baseline), ("filler", filler)):
        if name is not None and name not in names:
            raise BadInput(f"--{option} {name!r}: expected one of the config's bots: "
                           f"{', '.join(names)}")
    if candidate == baseline:
        raise BadInput(f"--candidate and --baseline are both {candidate!r}: expected two bots")
    k = config.players
    if filler is not None and k == 2:
        raise BadInput(f"--filler {filler!r}: expected none at 2-seat tables, which have no "
                       "other seats (set options.players to 3 or more)")
    if filler == candidate:
        raise BadInput(f"--filler {filler!r} is the candidate: expected another bot (its "
                       "other seats would be compared with the baseline's)")
    if max_games is not None and max_games < k:
        raise BadInput(f"--max-games {max_games}: expected at least one duplicate set "
                       f"({k} games at {k}-seat tables)")
    return k


def _warn_about_the_cap(max_games: int, k: int) -> None:
    """Say at the start what the cap allows: whole sets only, and no verdict at all below
    MIN_SETS sets (such a test could only end inconclusive, and said so at its end)."""
    sets = max_games // k
    if max_games % k:
        print(f"arena: warning: --max-games {max_games} plays {sets * k} games: the test "
              f"plays whole duplicate sets of {k}", file=sys.stderr)
    if sets < MIN_SETS:
        print(f"arena: warning: --max-games {max_games} allows {sets} sets, and no verdict "
              f"is taken before {MIN_SETS} ({MIN_SETS * k} games): this test can only end "
              "inconclusive", file=sys.stderr)


def _scored(scores: Scores, group: list[GameRecord], candidate: str, baseline: str,
            teams: Teams) -> Scores:
    """The scores with one more set."""
    points, meetings = set_result(group, candidate, baseline, teams=teams)
    return scores.add(points / meetings, meetings=meetings)


def _games(config: Config, candidate: str, baseline: str, filler: str | None,
           max_games: int | None, folder: Path, *, start: int = 0
           ) -> Generator[GameRecord | None, None, None]:
    """The test's games from set ``start`` in set order, each as soon as it and every game
    before it are played, in batches of sets enough to keep every worker busy; None after
    each batch."""
    k = config.players
    per_batch = max(4, 4 * config.workers)
    limit = None if max_games is None else max_games // k
    while limit is None or start < limit:
        count = per_batch if limit is None else min(per_batch, limit - start)
        assert config.seed is not None  # settled by run_sprt
        pairings = sprt_pairings(candidate, baseline, players=k, seed=config.seed,
                                 sets=range(start, start + count), filler=filler,
                                 teams=config.game.team_labels(config.options))
        yield from play_pairings(config, pairings, logs=folder / "logs")
        yield None
        start += count


def _progress(scores: Scores, test: Sprt, k: int) -> str:
    lower, upper = test.bounds
    early = f"  (no verdict before {MIN_SETS} sets)" if scores.n < MIN_SETS else ""
    return (f"games {scores.n * k:>6}  sets {scores.n:>5}  LLR {llr(scores, test):+6.2f} "
            f"[{lower:+.2f}, {upper:+.2f}]  Elo {_gap(elo_estimate(scores))}{early}")


def _gap(gap: EloGap) -> str:
    """The Elo gap with its interval, or why it has none (a zero-width interval would claim
    a certainty no run of identical set scores gives); never a half-width printed as 0."""
    if gap.half is None:
        return f"{gap.elo:+.1f} (no interval: {gap.why_none})"
    digits = next((d for d in range(1, 4) if float(f"{gap.half:.{d}f}") > 0), 4)
    return f"{gap.elo:+.1f} ± {gap.half:.{digits}f}"


def _conclusion(verdict: Verdict, test: Sprt, candidate: str, baseline: str) -> str:
    estimate = (f"after {verdict.games} games, Elo {candidate} - {baseline} "
                f"{_gap(elo_estimate(verdict.scores))}")
    if verdict.edited:  # a verdict on two versions of a bot would pass or fail the wrong one
        return (f"no verdict: the code of {', '.join(verdict.edited)} changed while this test "
                f"played, so its games mix the old and the new version (run again with "
                f"--fresh); {estimate}")
    if verdict.result in ("H1", "H0"):
        meaning = _meaning(verdict.result, test, candidate, baseline)
        return f"{verdict.result} accepted: {meaning}; {estimate}"
    return f"inconclusive at the game limit; {estimate}"


def _meaning(result: str, test: Sprt, candidate: str, baseline: str) -> str:
    """What the accepted hypothesis says, in words only where they are true: with elo0 0,
    H1 is "stronger" and H0 "not stronger"; other bounds (a non-regression test at elo0
    -30, elo1 0) are said as the two gaps the test weighed."""
    likelier, other = (test.elo1, test.elo0) if result == "H1" else (test.elo0, test.elo1)
    weighed = f"Elo {likelier:g} is likelier than {other:g}"
    if test.elo0 == 0 and result == "H1":
        return f"{candidate} is stronger than {baseline}"
    if test.elo0 == 0:
        return f"{candidate} is not stronger than {baseline} ({weighed})"
    return f"{weighed} for {candidate} - {baseline}"
