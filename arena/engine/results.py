"""Results, and the closed sets of words that records are written in: how a round ends, how a
game ends, what a fault is. Records store each as its value (``docs/records.md``).

>>> RoundEnd("declaration").won, RoundEnd.DEAD_STOCK.won, str(GameEnd.FORFEIT)
(True, False, 'forfeit')
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import msgspec


class RoundEnd(StrEnum):
    """How a round ended."""

    DECLARATION = "declaration"  # IND-17: a valid declaration
    INVALID_DECLARATION = "invalid_declaration"  # IND-20 with invalid_declaration: end_deal
    LAST_PLAYER = "last_player"  # IND-20: all others eliminated
    OUT = "out"  # TT-10, R51-15, MAR-14: a seat went out
    RAMI_SEC = "rami_sec"  # R51-14, MAR-15: the whole hand laid in one turn
    DRAW_CAP = "draw_cap"  # COM-9: the round reached its draw cap
    DEAD_STOCK = "dead_stock"  # COM-12: no card left to draw

    @property
    def won(self) -> bool:
        """Someone won the round (it did not stop at the draw cap or on a dead stock)."""
        return self not in (RoundEnd.DRAW_CAP, RoundEnd.DEAD_STOCK)


class GameEnd(StrEnum):
    """How a game ended."""

    NORMAL = "normal"  # its last round was won
    DRAW_CAP = "draw_cap"  # its last round stopped at the draw cap or on a dead stock
    FORFEIT = "forfeit"  # a seat forfeited (COM-6)


class Fault(StrEnum):
    """What a seat did wrong in one decision (COM-6)."""

    TIMEOUT = "timeout"
    ILLEGAL = "illegal"
    CRASH = "crash"
    UNREADABLE = "unreadable"


MAX_POINTS = 10**9  # far past any game's points: a leaderboard still sums them as floats
Points = Annotated[int, msgspec.Meta(ge=0, le=MAX_POINTS)]  # as records may hold: a penalty is
# never below 0 in any variant, and a negative total edited in led the leaderboard


class RoundResult(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """How one round ended and what each seat paid: the engine's result and the record's
    (a struct, so that records of it decode in C)."""

    round: int
    dealer: int
    reason: RoundEnd
    penalties: tuple[Points, ...]
