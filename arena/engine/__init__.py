"""The rules engine: cards in play, combinations, the solver, views, the generic game.

It imports nothing above it: variants, seats, the referee and the tournament build on it.
The solver may be compiled (see setup.py); the pure-Python source is used instead when it is
newer than the compiled copy (an edit since the last ``pip install -e .``) or when
``ARENA_PURE_PYTHON`` is set.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path


def _use_source_if_compiled_is_stale(name: str) -> None:
    """Load ``name``'s ``.py`` in place of a compiled copy that no longer matches it."""
    here = Path(__file__).parent
    source = here / f"{name}.py"
    built = list(here.glob(f"{name}.*.so"))
    if not built or not source.is_file():
        return
    stale = source.stat().st_mtime > min(p.stat().st_mtime for p in built)
    if not (stale or os.environ.get("ARENA_PURE_PYTHON")):
        return
    if stale:  # one line, as the command's other warnings
        sys.stderr.write(f"arena: warning: {source} changed after it was compiled: the "
                         "pure-Python source runs (pip install -e . compiles it again)\n")
    spec = importlib.util.spec_from_file_location(f"{__name__}.{name}", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)


_use_source_if_compiled_is_stale("solver")
