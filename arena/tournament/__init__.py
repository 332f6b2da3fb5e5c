"""Tournaments: the config, the schedule, the runner and its results folder, the SPRT run."""
