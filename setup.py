"""The build: the solver compiled with mypyc where a C compiler is present, pure Python
otherwise (or with ARENA_PURE_PYTHON=1). The same source runs either way."""

from __future__ import annotations

import os
import sys
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

HOT = ["arena/engine/solver.py"]  # the modules worth compiling: the search every bot runs


class OptionalBuildExt(build_ext):
    """A compiler error leaves the pure-Python module in place instead of failing."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # no compiler, missing headers: the pure module serves
            _say(f"the solver stays pure Python ({type(exc).__name__}: {exc})")

    def build_extension(self, ext: Any) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
            _say(f"{ext.name} stays pure Python ({type(exc).__name__}: {exc})")


def _say(text: str) -> None:
    print(f"arena build: {text}", file=sys.stderr)


def extensions() -> list[Any]:
    """The compiled modules, or none when asked for pure Python or mypyc is missing."""
    if os.environ.get("ARENA_PURE_PYTHON"):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _say("mypyc is not installed: the solver stays pure Python")
        return []
    try:
        return list(mypycify(HOT, opt_level="3"))
    except (Exception, SystemExit) as exc:  # mypyc exits on a type error: never fail the install
        _say(f"mypyc could not compile the solver ({type(exc).__name__}: {exc}); it stays "
             "pure Python")
        return []


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
