"""The local pool: pairings played on worker processes, and the games a dead worker took
with it played again.

A worker can die in the middle of a game: killed, out of memory, or ended by a bot that
runs inside it (``isolation: inprocess``). ``multiprocessing.Pool`` starts another in its
place but never returns the lost task, so a run would wait for it for ever. Here each
worker writes on a shared :class:`~arena.tournament.worker.Board` which task it plays; the
parent sees a dead worker's task and hands it to the pool again, as Dask does on a cluster
(docs/cluster.md), up to :data:`ALLOWED_FAILURES` times.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import queue
import signal
import threading
from collections import Counter
from collections.abc import Generator, Iterator
from multiprocessing.pool import Pool

from arena.errors import ArenaError
from arena.seats.sandbox import alive
from arena.tournament.schedule import Pairing
from arena.tournament.worker import SLOTS, Board, Job, init_worker, play_task

ALLOWED_FAILURES = 3  # workers a task may end before the run stops (Dask's default too)
WATCH_S = 0.5  # how long the parent waits for a result before it looks for dead workers
STRAY_S = 10.0  # quiet, once a worker died, before tasks no live worker plays are handed out
STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # Ctrl-C, kill, a closed terminal

Outcome = tuple[int, list[str]] | BaseException  # a task's index and lines, or its error


def pool_results(job: Job, pending: list[Pairing], workers: int,
                 cpus: tuple[int, ...]) -> Iterator[str]:
    """Record lines as games finish on a pool of ``workers``, each kept to one of ``cpus``
    in turn when there are any; a few pairings a task."""
    chunk = max(1, min(16, len(pending) // (workers * 8)))
    tasks = dict(enumerate(pending[i:i + chunk] for i in range(0, len(pending), chunk)))
    ctx = multiprocessing.get_context("fork")
    board = Board.new(ctx)
    pool = ctx.Pool(workers, initializer=init_worker, initargs=(job, cpus, board))
    try:
        lost = yield from _play(pool, tasks, board, workers)
        if lost:  # a lost task stays in the pool's books, and close() would wait for it
            pool.terminate()
        else:
            pool.close()
    except BaseException:
        with deaf_to_ctrl_c():
            pool.terminate()
        raise
    finally:
        pool.join()


def _play(pool: Pool, tasks: dict[int, list[Pairing]], board: Board,
          workers: int) -> Generator[str, None, bool]:
    """Hand out every task, yield their lines as they come, and hand out again the tasks of
    workers that died; return whether any was lost. A task that ended ALLOWED_FAILURES
    workers stops the run, once every other task is done."""
    done: queue.SimpleQueue[Outcome] = queue.SimpleQueue()
    for index, pairings in tasks.items():
        _submit(pool, done, index, pairings)
    left, failures, dead = set(tasks), Counter[int](), set[int]()
    given_up: set[int] = set()
    quiet = 0.0
    while left - given_up:
        try:
            outcome = done.get(timeout=WATCH_S)
        except queue.Empty:
            quiet += WATCH_S
        else:
            if isinstance(outcome, BaseException):
                raise outcome
            index, lines = outcome
            if index in left:  # a task handed out again may come back twice
                left.discard(index)
                yield from lines
            quiet = 0.0
        lost = _lost(board, workers, dead, left)
        if quiet >= STRAY_S and board.started.value > workers:
            lost += _strays(board, dead, left - given_up - set(lost))
            quiet = 0.0
        for index in lost:
            failures[index] += 1
            if failures[index] >= ALLOWED_FAILURES:
                given_up.add(index)
            else:
                _submit(pool, done, index, tasks[index])
    if given_up:
        raise ArenaError(_given_up(sorted(p.id for i in given_up for p in tasks[i])))
    return bool(failures)


def _submit(pool: Pool, done: queue.SimpleQueue[Outcome], index: int,
            pairings: list[Pairing]) -> None:
    pool.apply_async(play_task, ((index, pairings),), callback=done.put,
                     error_callback=done.put)


def _lost(board: Board, workers: int, dead: set[int], left: set[int]) -> list[int]:
    """The tasks still to come that workers found dead since the last look were playing.
    The pool starts a worker for each one that died, once it has reaped it, so a worker
    started past the pool's size says there is one more dead to find."""
    if board.started.value - workers <= len(dead):
        return []
    lost = []
    for slot, living in _slots(board, dead):
        if not living:
            dead.add(slot)
            if board.playing[slot] in left:
                lost.append(board.playing[slot])
    return lost


def _strays(board: Board, dead: set[int], outstanding: set[int]) -> list[int]:
    """Tasks still to come that no live worker plays, after a long quiet: a worker that died
    took one between taking it and saying so on the board (a live idle worker would have
    taken a task still queued long ago)."""
    playing = {board.playing[slot] for slot, living in _slots(board, dead) if living}
    return [] if playing & outstanding else sorted(outstanding)


def _slots(board: Board, dead: set[int]) -> Iterator[tuple[int, bool]]:
    """The board's slots not yet found dead, each with whether its worker is alive."""
    for slot in range(min(board.started.value, SLOTS)):
        if slot not in dead:
            yield slot, alive(board.pids[slot])


def _given_up(ids: list[str]) -> str:
    games = f"game {ids[0]}" if len(ids) == 1 else f"{len(ids)} games ({ids[0]} to {ids[-1]})"
    return (f"{games} ended the worker process that played them {ALLOWED_FAILURES} times "
            "(killed, out of memory, or a bot run in process that ended it); every other "
            "game is played and kept")


@contextlib.contextmanager
def deaf_to_ctrl_c() -> Iterator[None]:
    """Ignore Ctrl-C (and SIGTERM, SIGHUP) while workers and bots are stopped: a second
    one landing midway would leave them running, and the run waiting for them for ever.
    The first one, which started the stop, is raised after it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in STOPS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
