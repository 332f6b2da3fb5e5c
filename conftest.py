"""The doctest run over ``arena/`` skips a module that runs compiled (setup.py compiles the
solver): pytest cannot import its source as the module in use. It holds no doctests; its
tests under ``tests/`` run on both builds (``.ci/run``)."""

import arena.engine.solver as _solver

collect_ignore = [] if str(_solver.__file__).endswith(".py") else ["arena/engine/solver.py"]
