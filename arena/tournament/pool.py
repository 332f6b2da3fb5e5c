"""The local pool: pairings played on worker processes, each with a pipe of its own, and
the games a dead worker took with it played again.

A worker can die at any moment: in the middle of a game (killed, out of memory, or ended by
a bot that runs inside it, ``isolation: inprocess``) or while it waits for its next task.
``multiprocessing.Pool`` never returns a lost task, and its workers share one task queue
behind one lock: a worker killed while it waits holds that lock for ever, and every other
worker, the pool's ``close`` and its ``terminate`` wait for it. So each worker here has its
own pipe, the parent knows which task each one plays, and a dead worker's task goes to the
worker started in its place, up to :data:`ALLOWED_FAILURES` times (as Dask does on a
cluster, docs/cluster.md).
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import signal
import threading
import time
from collections import Counter, deque
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any

from arena.errors import ArenaError
from arena.tournament.logs import Relay, end_relays, relays_for_worker
from arena.tournament.schedule import Pairing
from arena.tournament.worker import GameFailed, Job, failed_text, serve

ALLOWED_FAILURES = 3  # workers a task may end before the run stops (Dask's default too)
WATCH_S = 0.5  # how long the parent waits for a result before it looks for dead workers
STOP_S = 30.0  # how long a worker told to stop (its bots closed first) may take before
# it is killed; a loaded machine's room
STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # Ctrl-C, kill, a closed terminal

Task = tuple[int, list[Pairing]]  # a task's index and its pairings
log = logging.getLogger("arena.tournament.pool")
PARENT_ONLY: set[int] = set()  # descriptors a worker closes at once: the results folder's
# lock (runner.writing), which a worker orphaned by kill -9 would otherwise hold


@dataclass(slots=True)
class Worker:
    """A worker process, the parent's end of its pipe, and the task it plays, if any."""

    process: BaseProcess
    pipe: Connection
    cpu: int | None
    relays: list[Relay]  # its own, for its log records (arena.tournament.logs)
    task: int | None = None


class Crew:
    """The pool's workers: started, given tasks one at a time, replaced when they die."""

    def __init__(self, job: Job, size: int, cpus: tuple[int, ...]) -> None:
        self.job, self.size, self.cpus = job, size, cpus
        self.ctx = multiprocessing.get_context("fork")  # multiprocessing-logging needs fork
        self.started = 0
        self.workers: list[Worker] = []
        for _ in range(size):
            self.start()

    def start(self) -> Worker:
        """Fork a worker; it keeps to the CPU the fewest live workers keep to, if any."""
        cpu = pick_cpu(self.cpus, self.started, Counter(w.cpu for w in self.workers))
        mine, theirs = self.ctx.Pipe()
        relays = relays_for_worker()
        others = [mine] + [w.pipe for w in self.workers]  # the parent's ends, closed in
        # the child: a worker must see its pipe close when the parent dies, and a copy of
        # the parent's end, its own or a sibling's, would keep it open
        process = self.ctx.Process(target=serve, name=f"arena-worker-{self.started}",
                                   args=(theirs, others, sorted(PARENT_ONLY), self.job, cpu,
                                         relays), daemon=True)
        with signals_held():
            process.start()
        theirs.close()
        self.started += 1
        self.workers.append(Worker(process, mine, cpu, relays))
        return self.workers[-1]

    def hand_out(self, tasks: deque[Task]) -> None:
        """Give each idle worker the next task, while there are any, after starting workers
        in place of dead ones for the tasks that idle workers cannot take."""
        idle = sum(worker.task is None for worker in self.workers)
        for _ in range(min(self.size - len(self.workers), len(tasks) - idle)):
            self.start()
        for worker in self.workers:
            if worker.task is None and tasks:
                worker.task = tasks[0][0]
                with contextlib.suppress(OSError):  # dead: found at the next look
                    worker.pipe.send(tasks.popleft())

    def outcomes(self) -> Iterator[tuple[Worker, Any]]:
        """Each worker that answered or died since the last look, with its answer (a task's
        index and lines, or an error) or None for a dead worker."""
        ready = wait([w.pipe for w in self.workers], timeout=WATCH_S)
        for worker in list(self.workers):
            answer = _answer(worker) if worker.pipe in ready else None
            if answer is not None:
                worker.task = None
                yield worker, answer
            elif worker.pipe in ready or not worker.process.is_alive():
                self.bury(worker)  # its pipe closed: dead, or it can no longer answer
                yield worker, None

    def bury(self, worker: Worker) -> None:
        """Forget a worker that is dead or whose pipe closed, killing it if need be
        (:meth:`hand_out` starts one in its place if work is left)."""
        worker.pipe.close()
        worker.process.kill()
        worker.process.join()
        end_relays(worker.relays)
        self.workers.remove(worker)

    def close(self) -> None:
        """Tell every worker to stop (each closes its bots first) and wait for it."""
        for worker in self.workers:
            with contextlib.suppress(OSError):
                worker.pipe.send(None)
        self.stop(wait_s=STOP_S)

    def stop(self, *, wait_s: float = 0.0) -> None:
        """End every worker, killing those still running ``wait_s`` seconds from now (their
        bots die with them), one deadline for all. SIGKILL, not SIGTERM: a worker just
        forked still has the parent's handlers, and would print the parent's
        KeyboardInterrupt or worse."""
        deadline = time.monotonic() + wait_s
        for worker in self.workers:
            worker.process.join(max(0.0, deadline - time.monotonic()))
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.pipe.close()
            end_relays(worker.relays)
        self.workers.clear()


def _answer(worker: Worker) -> Any:
    """What a worker whose pipe is ready sent; None when the pipe closed (it died)."""
    try:
        return worker.pipe.recv()
    except (EOFError, OSError):
        return None


def pick_cpu(cpus: tuple[int, ...], turn: int, taken: Counter[int | None]) -> int | None:
    """The CPU for the ``turn``-th worker started: one the fewest live workers keep to
    (``taken``), the workers taking the CPUs in turn on a tie, so that a worker started in
    place of one that died takes its CPU; none when the pool pins nothing."""
    if not cpus:
        return None
    return min(cpus, key=lambda c: (taken[c], (cpus.index(c) - turn) % len(cpus)))


def pool_results(job: Job, pending: list[Pairing], workers: int,
                 cpus: tuple[int, ...]) -> Iterator[str]:
    """Record lines as games finish on a pool of ``workers``, each kept to one of ``cpus``
    in turn when there are any; a few pairings a task."""
    chunk = max(1, min(16, len(pending) // (workers * 8)))
    tasks = dict(enumerate(pending[i:i + chunk] for i in range(0, len(pending), chunk)))
    crew = Crew(job, workers, cpus)
    try:
        yield from _play(crew, tasks)
        crew.close()
    except BaseException:
        with deaf_to_ctrl_c():
            crew.stop()
        raise


def _play(crew: Crew, tasks: dict[int, list[Pairing]]) -> Generator[str, None, None]:
    """Hand out every task, yield their lines as they come, and hand out again the games of
    workers that died. A game that ended ALLOWED_FAILURES workers stops the run, once every
    other game is played."""
    ledger = Ledger.of(tasks)
    while ledger.open:
        crew.hand_out(ledger.queue)
        for worker, outcome in crew.outcomes():
            if isinstance(outcome, BaseException):
                raise outcome
            if outcome is not None:
                index, lines = outcome
                if isinstance(lines, GameFailed):  # logged by its worker, which plays on
                    ledger.died(index, lines)
                elif ledger.back(index):
                    crew.hand_out(ledger.queue)  # the worker plays on while its lines are
                    yield from lines  # written
            elif worker.task is not None:  # it died playing this task
                log.warning("a worker (pid %s, exit code %s) ended during games %s: they "
                            "are given out again, one at a time", worker.process.pid,
                            worker.process.exitcode,  # -9: killed (the out-of-memory killer)
                            ", ".join(p.id for p in ledger.tasks[worker.task]))
                ledger.died(worker.task)
    if ledger.given_up:
        raise ArenaError(ledger.given_up_text())


@dataclass(slots=True)
class Ledger:
    """A run's tasks: those to hand out, those not back yet, the workers each one ended."""

    tasks: dict[int, list[Pairing]]
    queue: deque[Task]
    left: set[int]
    failures: Counter[int]
    given_up: set[int]
    errors: dict[int, GameFailed]  # a task's last failure, when an error of the arena
    # said why

    @classmethod
    def of(cls, tasks: dict[int, list[Pairing]]) -> Ledger:
        """Every task still to hand out."""
        return cls(dict(tasks), deque(tasks.items()), set(tasks), Counter(), set(), {})

    @property
    def open(self) -> bool:
        """Whether a task is still to come back, other than those given up."""
        return bool(self.left - self.given_up)

    def back(self, index: int) -> bool:
        """Note a task back; False if it was already."""
        if index not in self.left:
            return False
        self.left.discard(index)
        return True

    def died(self, index: int, error: GameFailed | None = None) -> None:
        """Hand out again the task whose worker died (or that an ``error`` of the arena
        stopped), one game a task: the others must not share its fate (its games finished
        before are played again, and recorded once)."""
        self.failures[index] += 1
        if error is not None:
            self.errors[index] = error
        pairings = self.tasks[index]
        if self.failures[index] >= ALLOWED_FAILURES:
            self.given_up.add(index)
        elif len(pairings) == 1:
            self.queue.appendleft((index, pairings))
        else:
            self.left.discard(index)
            for pairing in reversed(pairings):
                single = len(self.tasks)  # the tasks are numbered from 0, none dropped
                self.tasks[single] = [pairing]
                self.failures[single] = self.failures[index]
                if error is not None and error.game == pairing.id:
                    self.errors[single] = error
                self.left.add(single)
                self.queue.appendleft((single, [pairing]))

    def given_up_text(self) -> str:
        """The run's one-line error: the games given up, and why."""
        failed = sorted(str(self.errors[i]) for i in self.given_up if i in self.errors)
        ended = sorted(p.id for i in self.given_up if i not in self.errors
                       for p in self.tasks[i])
        parts = [_given_up(ended)] if ended else []
        if failed:
            parts.append(failed_text(failed, tries=ALLOWED_FAILURES))
        return "; ".join(parts) + "; every other game is played and kept"


def _given_up(ids: list[str]) -> str:
    games = f"game {ids[0]}" if len(ids) == 1 else f"{len(ids)} games ({ids[0]} to {ids[-1]})"
    them = "it" if len(ids) == 1 else "them"
    return (f"{games} ended the worker process that played {them} {ALLOWED_FAILURES} times "
            "(killed, out of memory, or a bot run in process that ended it)")


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold Ctrl-C (and SIGTERM, SIGHUP) while a worker is forked, and raise it right after:
    raised inside Python's fork hooks it left logging's lock taken, and the run hung as it
    stopped; in the child, before its own handlers, it printed a traceback."""
    held: list[int] = []
    with _stops_handled_by(lambda sig, _: held.append(sig)):
        yield
    if held:
        signal.raise_signal(held[0])


@contextlib.contextmanager
def deaf_to_ctrl_c() -> Iterator[None]:
    """Ignore Ctrl-C (and SIGTERM, SIGHUP) while workers and bots are stopped: a second
    one landing midway would leave them running, and the run waiting for them for ever.
    The first one, which started the stop, is raised after it."""
    with _stops_handled_by(signal.SIG_IGN):
        yield


@contextlib.contextmanager
def _stops_handled_by(handler: Any) -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP go to ``handler`` in the block, then back to their own;
    in the main thread only, the one where Python lets handlers be set."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, handler) for sig in STOPS}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old if old is not None else signal.SIG_DFL)
