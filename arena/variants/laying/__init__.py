"""The laying family (Rummy 51, Moroccan rummy): combinations on the table, a play checked
whole, going out at once, the turn both variants play, and the family's part of a view."""

from arena.variants.laying.view import LayingPart

__all__ = ["LayingPart"]
