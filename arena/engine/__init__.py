"""The rules engine: cards in play, combinations, the solver, views, the generic game.

It imports nothing above it: variants, seats, the referee and the tournament build on it.
"""
