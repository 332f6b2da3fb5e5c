"""A run's log, ``arena.log``, and the relays that carry the pool workers' records to it.

A relay is multiprocessing-logging's handler: a queue that worker processes write to and a
thread of this process that hands each record on. Its queue has one write lock for every
process that writes to it, so a worker killed while it wrote (the pool kills workers that
died or will not stop; the kernel kills them out of memory) held that lock for ever: no
later record of any worker reached the log, and every worker told to stop waited on it
until it was killed. So each worker writes to relays of its own, made here before its fork,
and a relay ends with its worker.
"""

from __future__ import annotations

import logging
import logging.handlers
import threading
from pathlib import Path

from multiprocessing_logging import MultiProcessingHandler as Relay  # type: ignore[import-untyped]

__all__ = ["LOG_BYTES", "Relay", "end_relays", "relays_for_worker", "start_logging",
           "stop_logging", "use_relays"]

LOG_BYTES = 64 << 20  # arena.log, then arena.log.1: at most twice this on disk
_ending: list[threading.Thread] = []  # the relays of workers gone, closing
_open: set[Relay] = set()  # the relays of live workers


def start_logging(folder: Path) -> logging.Handler:
    """Log the run to ``folder/arena.log``, this process's records and its workers'."""
    handler = logging.handlers.RotatingFileHandler(  # capped: bots decide what is logged
        folder / "arena.log", maxBytes=LOG_BYTES, backupCount=1, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(processName)s %(name)s "
                                           "%(levelname)s %(message)s"))
    root = logging.getLogger()
    root.setLevel(logging.INFO)
    root.addHandler(handler)
    for index, each in enumerate(list(root.handlers)):
        root.removeHandler(each)
        root.addHandler(Relay(f"mp-handler-{index}", sub_handler=_Through(each)))
    return handler


def relays_for_worker() -> list[Relay]:
    """Relays of its own for a worker about to be forked, one for each of the run's."""
    made = [Relay(f"{relay.name}-worker", sub_handler=relay.sub_handler)
            for relay in _relays()]
    _open.update(made)
    return made


def use_relays(relays: list[Relay]) -> None:
    """In a worker just forked: write to its own relays instead of the run's."""
    root = logging.getLogger()
    for relay in _relays():
        root.removeHandler(relay)
    for relay in relays:
        root.addHandler(relay)


def end_relays(relays: list[Relay]) -> None:
    """Close the relays of a worker that is gone, once they have written what they hold
    (a relay whose worker died in the middle of a record gives up after 5 s), without
    waiting for them here."""
    for relay in relays:
        _open.discard(relay)
        _ending.append(threading.Thread(target=relay.close, daemon=True))
        _ending[-1].start()


def stop_logging(handler: logging.Handler) -> None:
    """Detach arena.log once the run ends. Each relay is closed first, which writes what it
    still holds and stops its thread: merely unwrapped, the relays lived on, one thread a
    run, and could reopen arena.log after the run had returned. Handlers that are not the
    run's own are put back as they were, open."""
    root = logging.getLogger()
    relays = _relays()
    for relay in relays:
        root.removeHandler(relay)
        target = relay.sub_handler
        if isinstance(target, _Through) and target.target is not handler:
            root.addHandler(target.target)
    end_relays([*relays, *_open])
    while _ending:
        _ending.pop().join()
    root.removeHandler(handler)
    handler.close()


def _relays() -> list[Relay]:
    return [h for h in logging.getLogger().handlers if isinstance(h, Relay)]


class _Through(logging.Handler):
    """Hands a relay's records to a handler under that handler's lock and filters, since
    several relays write to it from threads of their own, and leaves it open when the
    relay closes: a handler that is not the run's own goes back on the root logger."""

    def __init__(self, target: logging.Handler) -> None:
        super().__init__(target.level)
        self.target = target

    def emit(self, record: logging.LogRecord) -> None:
        self.target.handle(record)
