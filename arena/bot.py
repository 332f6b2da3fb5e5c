"""The bot interface, where bot authors import it: ``from arena.bot import Bot, GameInfo``.

Seats load and run bots (:mod:`arena.seats.bot`); this is the path bots have always used.
"""

from arena.seats.bot import Bot, BotSpec, GameInfo

__all__ = ["Bot", "BotSpec", "GameInfo"]
