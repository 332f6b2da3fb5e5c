"""Rummy Arena: rummy variants, bots in their own processes, tournaments and ratings."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what type checkers see: a misspelt ``arena.x`` is an error there
    __version__: str
else:

    def __getattr__(name: str) -> str:
        """``arena.__version__``, the installed distribution's, as tools that log it expect;
        looked up when asked, so that importing the package stays cheap for bot processes."""
        if name != "__version__":
            raise AttributeError(f"module 'arena' has no attribute {name!r}")
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("rummy-arena")
        except PackageNotFoundError:  # a source tree that was never installed
            return "0+unknown"
