"""The tournament report: one html file of a results folder that opens offline, with the
leaderboard, its plots and a replay viewer for every game (``arena report``).

:mod:`~arena.report.summary` says what the tournament was, :mod:`~arena.report.replays`
packs each game's steps for the viewer, :mod:`~arena.report.plots` draws the plots as inline
SVG and :mod:`~arena.report.page` puts them into the page's template.
"""
