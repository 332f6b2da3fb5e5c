"""What one seat is shown, where bot authors import it: ``from arena.view import View``.

The engine builds views (:mod:`arena.engine.view`); this is the path bots have always used.
"""

from arena.engine.view import Decision, EventKind, PublicEvent, RoundSummary, TableMeld, View

__all__ = ["Decision", "EventKind", "PublicEvent", "RoundSummary", "TableMeld", "View"]
