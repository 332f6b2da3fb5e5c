"""Ratings: pure functions of game records (comparisons, Bradley-Terry, openskill, the
leaderboard and its rendering, the SPRT statistics)."""
