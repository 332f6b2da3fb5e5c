"""The ``arena`` command: thin typer commands over the library."""

from arena.cli.app import main

__all__ = ["main"]
