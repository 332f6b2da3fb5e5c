"""What one seat is shown, where bot authors import it: ``from arena.view import View``.

The engine builds views (:mod:`arena.engine.view`). A variant family adds its own part
(``view.part``), defined beside the variant: ``from arena.variants.laying import LayingPart``
for Rummy 51 and Moroccan rummy.
"""

from arena.engine.view import (
    Decision,
    EventKind,
    PlayKind,
    PublicEvent,
    RoundSummary,
    TableMeld,
    View,
    ViewPart,
)

__all__ = ["Decision", "EventKind", "PlayKind", "PublicEvent", "RoundSummary", "TableMeld",
           "View", "ViewPart"]
