"""Hostile bots for the isolation tests: each attacks the referee or the other seats.

Run them only in their own process (``isolation="process"``): they sleep, spin, exit, write
junk, flood, hog memory, fork, and snoop. Every one of them otherwise plays the simplest legal
game (draw from the stock, discard that card), so any fault counted against them comes from
the attack. Loaded by file path (``tests/bots/adversarial.py:Sleeper``).
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import json
import os
import re
import signal
import stat
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena.actions import Draw, Play
from arena.cards import Card
from arena.engine.game import SEEDS
from arena.engine.view import RoundSummary, View
from arena.seats.bot import GameInfo

PROCESS = os.urandom(8).hex()  # names this process (a confined bot is always pid 1)


def _cpu_now() -> float:
    """The Peeker's clock for its budget: CPU seconds of the calling thread."""
    return time.thread_time()


class _Honest:
    """Draws from the stock and discards the drawn card (or its last discardable card).

    Every bot here takes ``tag`` (it lands on the command line of the bot's process, so a
    test can look for leftover processes) and ``report``: a JSON-lines file to which the bot
    notes each game's start (``{"start": PROCESS}``) and what its attack achieved. An attack
    made at every decision goes in :meth:`attack`.
    """

    def __init__(self, tag: str = "", report: str = "") -> None:
        self.tag = tag
        self.report_path = report

    def note(self, **fields: Any) -> None:
        """One line in the report file, if there is one."""
        if self.report_path:
            with contextlib.suppress(OSError), open(self.report_path, "a") as out:
                out.write(json.dumps(fields) + "\n")

    def start_game(self, info: GameInfo) -> None:
        self.note(start=PROCESS, bot_seed=info.seed)

    def attack(self, view: View) -> None:
        """What the bot does before each answer (nothing: it is honest)."""

    def draw(self, view: View) -> Draw:
        self.attack(view)
        return Draw("stock")

    def play(self, view: View) -> Play:
        self.attack(view)
        if view.drawn is not None and view.drawn_from == "stock":
            return Play(discard=view.drawn)
        return Play(discard=view.discardable[-1])


class Sleeper(_Honest):
    """Sleeps ``seconds`` in every decision (past any deadline), then answers late. With
    ``plays=False`` it sleeps in its draws only and plays at once."""

    def __init__(self, seconds: float = 3600.0, plays: bool = True, **kw: str) -> None:
        super().__init__(**kw)
        self.seconds = seconds
        self.plays = plays

    def draw(self, view: View) -> Draw:
        time.sleep(self.seconds)
        return Draw("discard") if "discard" in view.legal_draws else Draw("stock")

    def play(self, view: View) -> Play:
        if self.plays:
            time.sleep(self.seconds)
        return super().play(view)


class LateOnce(_Honest):
    """Answers its first ``times`` decisions ``seconds`` late, then every one at once: late,
    not silent, so it is never restarted for it."""

    def __init__(self, seconds: float = 0.3, times: int = 1, **kw: str) -> None:
        super().__init__(**kw)
        self.seconds = seconds
        self.times = times

    def attack(self, view: View) -> None:
        if self.times > 0:
            self.times -= 1
            time.sleep(self.seconds)


class SlowStarter(_Honest):
    """Takes ``seconds`` to start each game: past its start-up limit, but it must not make
    the seats whose start is read after its own fault too."""

    def __init__(self, seconds: float = 3.0, **kw: str) -> None:
        super().__init__(**kw)
        self.seconds = seconds

    def start_game(self, info: GameInfo) -> None:
        super().start_game(info)
        time.sleep(self.seconds)


class InfiniteLoop(_Honest):
    """Busy-loops forever on its first play decision (and never reads stdin again)."""

    def play(self, view: View) -> Play:
        n = 0
        while True:
            n += 1


class Burner(_Honest):
    """Answers every decision in time, after ``pause_s``, but from its start burns CPU in a
    thread of its game: only ``limits.cpu_s_per_game`` stops it."""

    def __init__(self, pause_s: float = 0.01, **kw: str) -> None:
        super().__init__(**kw)
        self.pause_s = pause_s

    def start_game(self, info: GameInfo) -> None:
        super().start_game(info)
        threading.Thread(target=_spin, daemon=True).start()

    def attack(self, view: View) -> None:
        time.sleep(self.pause_s)


def _spin() -> None:
    while True:
        pass


class Crasher(_Honest):
    """Exits the process without a word on its ``at``-th decision (each new process too),
    with status ``code`` (0 looks like a clean exit)."""

    def __init__(self, at: int = 5, code: int = 3, **kw: str) -> None:
        super().__init__(**kw)
        self.at = at
        self.code = code
        self.decisions = 0

    def attack(self, view: View) -> None:
        self.decisions += 1
        if self.decisions == self.at:
            os._exit(self.code)


JUNK = (b"garbage\n", b'{"id": 1, "action": \n', b"[1, 2, 3]\n", b"\xff\xfe not utf-8\n",
        b'{"id": "1", "action": "stock"}\n', b"null\n")


def protocol_out() -> int:
    """The host keeps the protocol on a copy of stdout and points fd 1 at stderr, so a bot's
    print() is harmless; a hostile bot looks for the pipe itself: the lowest written pipe
    above stderr."""
    for name in sorted(os.listdir("/proc/self/fd"), key=int):
        fd = int(name)
        if fd > 2 and os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:"):
            with contextlib.suppress(OSError):
                if os.get_blocking(fd) is not None and fcntl.fcntl(fd, fcntl.F_GETFL) & 3:
                    return fd
    return 1


class GarbageWriter(_Honest):
    """Writes a junk line to the protocol channel before every ``every``-th answer."""

    def __init__(self, every: int = 1, **kw: str) -> None:
        super().__init__(**kw)
        self.every = every
        self.decisions = 0

    def attack(self, view: View) -> None:
        self.decisions += 1
        if self.decisions % self.every == 0:
            os.write(protocol_out(), JUNK[self.decisions % len(JUNK)])


class Flooder(_Honest):
    """Writes ``megabytes`` MB without a newline on its first play, then answers."""

    def __init__(self, megabytes: int = 8, **kw: str) -> None:
        super().__init__(**kw)
        self.megabytes = megabytes
        self.flooded = False

    def play(self, view: View) -> Play:
        if not self.flooded:
            self.flooded = True
            chunk = b"x" * (1 << 20)
            out = protocol_out()
            for _ in range(self.megabytes):
                view_left = memoryview(chunk)
                while view_left:
                    view_left = view_left[os.write(out, view_left):]
        return super().play(view)


class MemoryHog(_Honest):
    """Allocates (and touches) memory until the allocation fails, and keeps all of it."""

    def __init__(self, chunk_mb: int = 32, limit_mb: int = 4096, **kw: str) -> None:
        super().__init__(**kw)
        self.chunk = chunk_mb << 20
        self.limit = limit_mb << 20  # a safety cap in case no address-space limit stops it
        self.hoard: list[bytes] = []

    def play(self, view: View) -> Play:
        try:
            while len(self.hoard) * self.chunk < self.limit:  # RLIMIT_AS ends this with
                self.hoard.append(b"\x01" * self.chunk)  # MemoryError
        finally:
            self.note(hoarded_mb=len(self.hoard) * self.chunk >> 20)
        return super().play(view)


class ForkBomb(_Honest):
    """On its first decision forks until it cannot; the children leave the process group
    (``setsid``), so only the pids cgroup finds them, and spin (or sleep) forever."""

    def __init__(self, limit: int = 1000, spin: bool = True, **kw: str) -> None:
        super().__init__(**kw)
        self.limit = limit  # a safety cap in case no pids cgroup stops the bomb
        self.spin = spin
        self.forked = False

    def draw(self, view: View) -> Draw:
        if not self.forked:
            self.forked = True
            self._bomb()
        return super().draw(view)

    def _bomb(self) -> None:
        children = 0
        while children < self.limit:
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                self._child()
            children += 1
        self.note(children=children)

    def _child(self) -> None:
        with contextlib.suppress(OSError):
            os.setsid()
        with contextlib.suppress(OSError):  # one more generation, while pids are left
            if os.fork() == 0:
                os.setsid()
        while True:
            if not self.spin:
                time.sleep(3600)


# --------------------------------------------------------------------------- the peeker

HAND_RE = re.compile(
    rb'"seat":\s*(\d+),\s*"players":\s*\d+,\s*"decision":\s*"(?:draw|play)",\s*'
    rb'"round":\s*(\d+),\s*"dealer":\s*\d+,\s*"hand":\s*\[([^\]]{0,400})\]')
CARD_RE = re.compile(rb'"(10|[2-9AJQK])([SHDC])"|"(JK)"')
Claim = tuple[str, int | None, tuple[Card, ...], str]  # technique, seat, cards, source


def _cards_in(text: bytes) -> tuple[Card, ...]:
    out = []
    for m in CARD_RE.finditer(text):
        out.append(Card.parse((m.group(3) or m.group(1) + m.group(2)).decode()))
    return tuple(out)


def _hands_in(blob: bytes) -> Iterator[tuple[int, int, tuple[Card, ...]]]:
    """(seat, round, hand) of every encoded view in ``blob``."""
    for m in HAND_RE.finditer(blob):
        yield int(m.group(1)), int(m.group(2)), _cards_in(m.group(3))


class Peeker(_Honest):
    """Tries every way it knows to see the other seats' cards, and writes down what it found.

    Techniques: walking its view and its call stack; ``gc.get_objects()``; the memory,
    environment, command line and open files of its parent (the referee) and of every other
    bot process (``/proc``); files under ``results/`` and ``/tmp``; and rebuilding the deal
    from a game seed it can find in those files or guess (the engine is deterministic).

    Findings go to ``report`` (a JSON-lines file; default ``$PEEKER_REPORT``): a claim
    ``{"claim": technique, "seat", "cards", "round", "draws", "decision", "bot_seed"}`` names
    cards it believes seat ``seat`` (None: unknown) holds now; a probe line
    ``{"probe", "ok", "detail"}`` says what it could open. The test decides whether any claim
    was right about hidden cards. Each decision's probes run within shares of ``budget_s``
    CPU seconds (so it does the same work on a busy machine as on an idle one, only slower);
    the start of a game may take four times that (files, then candidate deals).
    """

    def __init__(self, report: str = "", budget_s: float = 0.5, raw_seeds: int = 2000,
                 tournament_seeds: int = 32, tables: int = 64, blocks: int = 4,
                 roots: tuple[str, ...] | list[str] = (), tag: str = "") -> None:
        report = report or os.environ.get("PEEKER_REPORT", "")
        super().__init__(tag, report)
        self.report = Path(report or os.devnull)
        self.budget_s = budget_s
        self.guess = (raw_seeds, tournament_seeds, tables, blocks)
        self.roots = [*roots, *self._default_roots()]
        self.info: GameInfo | None = None
        self.decisions = 0
        self.claimed: set[tuple[str, int | None, tuple[int, ...]]] = set()
        self.probed: set[tuple[str, bool, str]] = set()
        self.public: list[tuple[Card, ...]] = []  # final hands shown at round ends
        self.seeds: deque[int] = deque()  # candidate game seeds, in the order found
        self.known: set[int] = set()
        self.deals: dict[int, Any] = {}  # seed -> the game it deals (round 1)
        self.match: Any = None
        self.first_hand: tuple[Card, ...] | None = None
        self.files_seen: set[str] = set()

    # ------------------------------------------------------------------ bot interface

    def start_game(self, info: GameInfo) -> None:
        super().start_game(info)
        self.info = info
        self._scan_files(_cpu_now() + 2 * self.budget_s)
        self._guess_seeds()
        self._deal_candidates(_cpu_now() + 2 * self.budget_s)

    def attack(self, view: View) -> None:
        self._peek(view)

    def end_round(self, summary: RoundSummary) -> None:
        self.public.extend(summary.hands)

    def end_game(self, totals: tuple[int, ...]) -> None:
        print(f"peeker: {len(self.claimed)} claims, probes: "
              f"{sorted(p for p in self.probed if p[1])}", file=sys.stderr, flush=True)

    # ------------------------------------------------------------------ one decision

    def _peek(self, view: View) -> None:
        """Run the probes, each within its share of ``budget_s`` (CPU seconds)."""
        self.decisions += 1
        self.view = view
        if view.round == 1 and self.first_hand is None and self.decisions == 1:
            self.first_hand = view.hand
        steps = [(self._walk_view, 0.15), (self._walk_gc, 0.15), (self._match_seed, 0.1)]
        if self.decisions % 4 == 1:
            steps += [(self._scan_parent, 0.15), (self._scan_processes, 0.3)]
        if self.decisions % 8 == 1:
            steps += [(self._scan_files_now, 0.3)]
        for step, share in steps:
            try:
                step(_cpu_now() + share * self.budget_s)
            except Exception as exc:
                self._probe(step.__name__, False, f"{type(exc).__name__}: {exc}")

    def _claim(self, technique: str, seat: int | None, cards: tuple[Card, ...],
               source: str) -> None:
        view = self.view
        if not cards or seat == view.seat:
            return
        mine = sum((Counter(cards) & Counter(view.hand)).values())
        if (seat is None and mine >= len(cards) - 2) or \
                any(Counter(cards) == Counter(h) for h in self.public):
            return  # its own hand (now or a turn ago), or one shown at an earlier round end
        key = (technique, seat, tuple(sorted(c.code for c in cards)))
        if key in self.claimed:
            return
        self.claimed.add(key)
        assert self.info is not None
        self.note(claim=technique, seat=seat, cards=[str(c) for c in cards], round=view.round,
                  draws=view.draws, decision=view.decision, bot_seed=self.info.seed,
                  source=source[:200])

    def _probe(self, what: str, ok: bool, detail: str = "") -> None:
        key = (what, ok, detail[:80])
        if key not in self.probed:
            self.probed.add(key)
            self.note(probe=what, ok=ok, detail=detail[:200])

    # ------------------------------------------------------------------ in this process

    def _walk_view(self, deadline: float) -> None:
        """Everything reachable from the view and from the frames of the call stack."""
        frames = []
        frame = sys._getframe()
        while frame is not None:
            frames.append(frame)
            frame = frame.f_back  # type: ignore[assignment]
        # dict(): from Python 3.13 a frame's f_locals is a proxy, not a dict (PEP 667)
        self._search([self.view, *(dict(f.f_locals) for f in frames)], "view_walk", deadline,
                     depth=4)
        self._search([f.f_globals for f in frames], "view_walk", deadline, depth=3)

    def _walk_gc(self, deadline: float) -> None:
        self._search(gc.get_objects(), "gc", deadline, depth=1)

    def _search(self, roots: list[Any], technique: str, deadline: float, depth: int) -> None:
        """Breadth first from ``roots``, ``depth`` references deep, until the deadline."""
        seen = _reachable(self, depth=2)  # its own notes are no finding
        queue = deque((r, 0) for r in roots)
        while queue and _cpu_now() < deadline:
            obj, level = queue.popleft()
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            self._inspect(obj, technique)
            if level < depth:
                queue.extend((child, level + 1) for child in _children(obj))

    def _inspect(self, obj: Any, technique: str) -> None:
        """A Card sequence shaped like a hand, a list of hands, or text holding a view."""
        players = self.view.players
        if isinstance(obj, str) and '"hand"' in obj:
            self._from_blob(obj.encode(errors="replace"), technique, "text")
        elif isinstance(obj, bytes | bytearray) and b'"hand"' in obj:
            self._from_blob(bytes(obj), technique, "bytes")
        elif isinstance(obj, list | tuple) and len(obj) == players and all(
                isinstance(h, list | tuple) and h and all(isinstance(c, Card) for c in h)
                for h in obj):
            for seat, hand in enumerate(obj):  # e.g. a game's hands, indexed by seat
                self._claim(technique, seat, tuple(hand), type(obj).__name__ + " of hands")
        elif isinstance(obj, list | tuple) and 7 <= len(obj) <= 15 and \
                all(isinstance(c, Card) for c in obj):
            self._claim(technique, None, tuple(obj), f"{type(obj).__name__} of cards")

    def _from_blob(self, blob: bytes, technique: str, source: str) -> None:
        for seat, rnd, hand in _hands_in(blob):
            if rnd == self.view.round:
                self._claim(technique, seat, hand, source)

    # ------------------------------------------------------------------ other processes

    def _scan_parent(self, deadline: float) -> None:
        self._scan_pid(os.getppid(), "parent", deadline)

    def _scan_processes(self, deadline: float) -> None:
        """Siblings (the other seats of this referee) and cousins (the seats of the other
        workers of a tournament); processes of other runs on the machine are left alone."""
        me, parent = os.getpid(), os.getppid()
        grandparent = _ppid(parent)
        pids = _pids()
        self._probe("processes", True, f"{len(pids)} visible")
        for pid in pids:
            if pid in (me, parent) or _cpu_now() > deadline:
                continue
            ppid = _ppid(pid)
            if ppid == parent:
                self._scan_pid(pid, "sibling", deadline)
            elif ppid is not None and grandparent not in (None, 1) and \
                    _ppid(ppid) == grandparent:
                self._scan_pid(pid, "cousin", deadline)

    def _scan_pid(self, pid: int, who: str, deadline: float) -> None:
        for name in ("cmdline", "environ"):
            try:
                data = Path(f"/proc/{pid}/{name}").read_bytes()
                self._probe(f"{who} {name}", True)
                self._from_blob(data, f"{who}_{name}", f"/proc/{pid}/{name}")
            except OSError as exc:
                self._probe(f"{who} {name}", False, exc.strerror or "")
        self._read_fds(pid, who)
        self._read_mem(pid, who, deadline)

    def _read_fds(self, pid: int, who: str) -> None:
        """List the process's files; open its stdin (where requests arrive) through /proc and
        read what is waiting there."""
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
            self._probe(f"{who} fd list", True)
        except OSError as exc:
            self._probe(f"{who} fd list", False, exc.strerror or "")
            return
        for fd in [f for f in fds if f == "0" and who == "sibling"]:
            path = f"/proc/{pid}/fd/{fd}"
            try:
                target = os.readlink(path)
                if not target.startswith("pipe:"):
                    continue
                handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            except OSError as exc:
                self._probe(f"{who} fd open", False, exc.strerror or "")
                continue
            self._probe(f"{who} fd open", True, target)
            try:
                data = os.read(handle, 1 << 16)
                self._from_blob(data, f"{who}_pipe", path)
            except OSError:
                pass
            finally:
                os.close(handle)

    def _read_mem(self, pid: int, who: str, deadline: float) -> None:
        try:
            maps = Path(f"/proc/{pid}/maps").read_text().splitlines()
            mem = open(f"/proc/{pid}/mem", "rb", 0)  # noqa: SIM115
        except OSError as exc:
            self._probe(f"{who} mem", False, exc.strerror or "")
            return
        total = 0
        with mem:
            for line in maps:
                fields = line.split()
                if "rw" not in fields[1] or _cpu_now() > deadline:
                    continue
                lo, hi = (int(x, 16) for x in fields[0].split("-"))
                for start in range(lo, min(hi, lo + (64 << 20)), 1 << 20):
                    try:
                        mem.seek(start)
                        blob = mem.read(min((1 << 20) + 4096, hi - start))  # overlap
                    except OSError:
                        break
                    total += len(blob)
                    self._from_blob(blob, f"{who}_mem", f"/proc/{pid}/mem")
        self._probe(f"{who} mem", total > 0, f"{total} bytes read")

    # ------------------------------------------------------------------ files and seeds

    @staticmethod
    def _default_roots() -> list[str]:
        paths = [p for p in os.environ.get("PYTHONPATH", "").split(":") if p]
        return [*(str(Path(p) / "results") for p in paths), "/tmp"]

    def _scan_files_now(self, deadline: float) -> None:
        self._scan_files(deadline)
        self._deal_candidates(deadline)

    def _scan_files(self, deadline: float) -> None:
        """The newest files with game data (records, configs, logs) first."""
        wanted = (".jsonl", ".json", ".yaml", ".yml", ".log", ".txt")
        found = []
        for path in _walk(self.roots, deadline):
            if path.suffix in wanted and path != self.report:
                with contextlib.suppress(OSError):
                    info = path.stat()
                    if stat.S_ISREG(info.st_mode):  # a named pipe would hold it for ever
                        found.append((info.st_mtime, path))
        found.sort(reverse=True)
        for _, path in found[:300]:
            if _cpu_now() > deadline:
                return
            key = str(path)
            if key in self.files_seen and path.name != "games.jsonl":
                continue
            try:
                data = path.read_bytes()[:4 << 20]
            except OSError as exc:
                self._probe("file", False, f"{path}: {exc.strerror}")
                continue
            self._probe("file", True, str(path))
            self._seeds_from(path, data)
            if hasattr(self, "view"):
                self.files_seen.add(key)
                self._from_blob(data, "files", key)

    def _seeds_from(self, path: Path, data: bytes) -> None:
        """Game seeds in records (``games.jsonl``) or derived from a stored config."""
        from arena.tournament.schedule import make_schedule

        if path.name == "games.jsonl":
            for line in data.splitlines():
                with contextlib.suppress(ValueError, KeyError, TypeError):
                    self._add_seed(int(json.loads(line)["seed"]))
        elif path.name == "config.yaml" and b"identity" in data:
            import yaml

            with contextlib.suppress(Exception):
                ident = yaml.safe_load(data)["identity"]
                fmt = ident["format"]
                schedule = make_schedule(
                    [b["name"] for b in ident["bots"]], players=ident["options"]["players"],
                    kind=fmt["type"], candidate=fmt["candidate"],
                    games_per_table=fmt["games"], duplicate=fmt["duplicate"],
                    seed=ident["seed"])
                for pairing in schedule:
                    self._add_seed(pairing.seed)

    def _add_seed(self, seed: int) -> None:
        if not 0 <= seed < SEEDS:  # no game has it (a test's record of a refused seed, found
            return  # under /tmp): dealing it raised, and the peeker's start crashed
        if seed not in self.known:
            self.known.add(seed)
            self.seeds.append(seed)

    def _guess_seeds(self) -> None:
        """Seeds a tournament with a small seed would use, and small raw seeds."""
        from arena.tournament.schedule import derive_seed

        raw, tournaments, tables, blocks = self.guess
        for t_seed in range(tournaments):
            for table in range(tables):
                for block in range(blocks):
                    self._add_seed(derive_seed(t_seed, table, block))
        for seed in range(raw):
            self._add_seed(seed)

    def _deal_candidates(self, deadline: float) -> None:
        from arena.variants import find_variant

        assert self.info is not None
        variant = find_variant(self.info.variant)
        while self.seeds and _cpu_now() < deadline:
            seed = self.seeds.popleft()
            game = variant(seed=seed, options=self.info.options)
            self.deals[seed] = _pack([[game.indicator() or Card.JOKER], *game.hands])

    def _match_seed(self, deadline: float) -> None:
        """Find the seed whose deal gave this hand, then name what the others still hold."""
        view = self.view
        if self.match is None and self.first_hand is not None:
            mine = Counter(self.first_hand)
            for seed, packed in self.deals.items():
                indicator, *hands = _unpack(packed)
                if indicator[0] == (view.part.indicator or Card.JOKER) and \
                        Counter(hands[view.seat]) == mine:
                    self.match = hands
                    self._probe("seed", True, str(seed))
                    break
        if self.match is None or view.round != 1:
            return
        gone: list[Counter[Card]] = [Counter() for _ in range(view.players)]
        for event in view.history:
            if event.kind != "take":
                gone[event.seat].update(event.cards)
        for seat, hand in enumerate(self.match):
            left = Counter(hand) - gone[seat]
            self._claim("seed", seat, tuple(left.elements()), "deal rebuilt from the seed")


def _pack(groups: list[list[Card]]) -> bytes:
    """Card groups as bytes, which the garbage collector does not track (so a gc walk of
    its own process does not find the peeker's notes)."""
    return b"\xff".join(bytes(c.code for c in g) for g in groups)


def _unpack(packed: bytes) -> list[tuple[Card, ...]]:
    return [tuple(Card(code) for code in g) for g in packed.split(b"\xff")]


def _reachable(root: Any, depth: int) -> set[int]:
    seen: set[int] = set()
    level = [root]
    for _ in range(depth + 1):
        nxt = []
        for obj in level:
            if id(obj) not in seen:
                seen.add(id(obj))
                nxt.extend(_children(obj))
        level = nxt
    return seen


def _children(obj: Any) -> list[Any]:
    if isinstance(obj, dict):
        return [*obj.keys(), *obj.values()]
    if isinstance(obj, list | tuple | set | frozenset):
        return list(obj)
    out = []
    for name in getattr(type(obj), "__slots__", ()):
        with contextlib.suppress(AttributeError):
            out.append(getattr(obj, name))
    if hasattr(obj, "__dict__") and not isinstance(obj, type):
        with contextlib.suppress(TypeError):
            out.extend(vars(obj).values())
    return out


def _ppid(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def _pids() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def _walk(roots: list[str], deadline: float, limit: int = 50_000) -> Iterator[Path]:
    """Files under ``roots``: at most ``limit`` names, at most six folders deep."""
    count = 0
    for root in roots:
        base = len(Path(root).parts)
        for folder, dirs, files in os.walk(root):
            if len(Path(folder).parts) - base >= 6 or _cpu_now() > deadline:
                dirs[:] = []
            for name in files:
                count += 1
                if count > limit or _cpu_now() > deadline:
                    return
                yield Path(folder) / name


class Killer(_Honest):
    """On its first decision sends SIGKILL to the other seats' processes (``siblings``) or to
    the referee (``parent``): every process of the same uid may signal the others."""

    def __init__(self, target: str = "siblings", **kw: str) -> None:
        super().__init__(**kw)
        self.target = target
        self.done = False

    def draw(self, view: View) -> Draw:
        if not self.done:
            self.done = True
            parent = os.getppid()
            victims = [parent] if self.target == "parent" else \
                [p for p in _pids() if p != os.getpid() and _ppid(p) == parent]
            for pid in victims:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
                    self.note(killed=pid)
        return super().draw(view)


GAMES_HERE: list[int] = []  # the games this process has started


class Forger(_Honest):
    """Writes the Python host's word that its game is over itself, at ``end_game``, on the
    protocol's pipe (its game child shares it), then stays to read the next game's start
    and play it with the last game in memory. Each start notes how many games this process
    played before."""

    def start_game(self, info: GameInfo) -> None:
        super().start_game(info)
        self.note(played_here=len(GAMES_HERE))
        GAMES_HERE.append(info.seed)

    def end_game(self, totals: tuple[int, ...]) -> None:
        frame = sys._getframe()
        while frame is not None and not {"reader", "stdout"} <= set(frame.f_locals):
            frame = frame.f_back
        if frame is None:
            return  # in process: there is no host to forge
        reader, out = frame.f_locals["reader"], frame.f_locals["stdout"]
        out.write(b'{"type":"game_over"}\n')
        out.flush()
        from arena.seats import host
        while (raw := reader.next()) is not None:
            message = json.loads(raw)
            if message.get("type") == "start_game":
                params = {"tag": self.tag, "report": self.report_path}
                host.play(type(self), params, message, reader, out)
        os._exit(0)


class Chatty(_Honest):
    """Not hostile: prints its thoughts with ``print()``, as bot authors do while debugging."""

    def draw(self, view: View) -> Draw:
        print(f"my hand: {' '.join(map(str, view.hand))}")
        return super().draw(view)


REMEMBERED: list[str] = []  # module state: lives as long as the process that imported it


LOCKED = {"locked": Path("locked"), "locked_shm": Path("/dev/shm/locked")}


class Rememberer(_Honest):
    """Tries to carry memory from one game to the next (with duplicate deals, the hands it
    saw in one game are the other seats' hands in the next): a module global, a file in its
    working folder and in /dev/shm, and a child process left running that keeps a file
    fresh. At each start it notes which of them survived."""

    def start_game(self, info: GameInfo) -> None:
        super().start_game(info)
        places = {"global": bool(REMEMBERED), "tmp": Path("memo").exists(),
                  "shm": Path("/dev/shm/memo").exists(), "daemon": Path("daemon").exists(),
                  **{name: (folder / "memo").exists() for name, folder in LOCKED.items()}}
        self.note(remembered=sorted(k for k, v in places.items() if v))
        REMEMBERED.append(str(info.seed))
        own_folder = Path.cwd() == Path("/tmp") or Path.cwd().name.startswith("arena-bot-")
        if not own_folder:
            return  # in process (the control): the folder is the caller's, leave it alone
        Path("memo").write_text(str(info.seed))
        with contextlib.suppress(OSError):
            Path("/dev/shm/memo").write_text(str(info.seed))
        self._leave_daemon()
        left = ["global", "tmp", "shm", "daemon"]
        for name, folder in LOCKED.items():  # a folder its owner made read-only: whoever
            with contextlib.suppress(OSError):  # empties it as the same user cannot delete
                folder.mkdir()  # its files, unless it makes it writable again first
                (folder / "memo").write_text(str(info.seed))
                folder.chmod(0o500)
                left.append(name)
        self.note(left=left)

    def _leave_daemon(self) -> None:
        if os.fork() == 0:
            os.setsid()
            for _ in range(3000):
                with contextlib.suppress(OSError):
                    Path("daemon").write_text("alive")
                time.sleep(0.01)
            os._exit(0)
