"""The house's shape holds: imports run only down the wings, and no wing names a variant."""

from __future__ import annotations

import ast
from pathlib import Path

ARENA = Path(__file__).parent.parent / "arena"
# from the top floor down: a module may import only from its own wing or one listed after it
FLOORS = ("arena.cli", "arena.api", "arena.report", "arena.tournament", "arena.referee",
          "arena.ratings", "arena.seats", "arena.replay", "arena.records", "arena.advice",
          "arena.variants", "arena.engine",
          "arena.safe_yaml", "arena.actions", "arena.cards", "arena.errors")
FACES = {"arena.view": "arena.engine", "arena.bot": "arena.seats"}  # bot authors' paths


def module_name(path: Path) -> str:
    parts = path.relative_to(ARENA.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def wing(module: str) -> int:
    """The floor of a module: the index of the wing it belongs to (0 is the top)."""
    module = FACES.get(module, module)
    return next(i for i, w in enumerate(FLOORS) if module == w or module.startswith(w + "."))


def imports(path: Path) -> list[str]:
    """The arena modules a file imports, at any depth of its code."""
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("arena"):
            found += [node.module] if node.module != "arena" else \
                [f"arena.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("arena")]
    return found


def test_imports_run_only_down_the_wings() -> None:
    """An import that runs back up a floor makes a circle waiting to happen."""
    modules = [p for p in sorted(ARENA.rglob("*.py")) if p != ARENA / "__init__.py"]
    upward = [f"{module_name(p)} -> {target}" for p in modules
              for target in imports(p) if wing(target) < wing(module_name(p))]
    assert not upward, "imports that run back up:\n" + "\n".join(upward)


def test_every_module_has_a_floor() -> None:
    """A new top-level module must take its place in FLOORS, and so in the house's plan."""
    for path in ARENA.rglob("*.py"):
        if path != ARENA / "__init__.py":
            wing(module_name(path))  # raises StopIteration for a module of no wing


def test_the_ratings_read_nothing_but_records() -> None:
    """The leaderboard is a pure function of games.jsonl: ratings/ imports no variant, no
    config and no file reader (the team map and the anchor are its callers' arguments)."""
    allowed = ("arena.ratings", "arena.records", "arena.errors")
    found = [f"{module_name(p)} -> {t}" for p in sorted((ARENA / "ratings").rglob("*.py"))
             for t in imports(p) if not t.startswith(allowed)]
    assert not found, found


def _code_strings(path: Path) -> list[str]:
    """The string constants of a module's code, docstrings and comments aside."""
    tree = ast.parse(path.read_text("utf-8"))
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and n.body and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant)}
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
            and isinstance(n.value, str) and id(n) not in docs]


def test_no_shared_file_names_a_variant() -> None:
    """A variant plugs in with one module and one registry line: outside ``arena/variants/``
    no code names a variant, a version string or a rule-ID prefix of one."""
    from arena.variants import VARIANTS
    names = {n for v in VARIANTS for n in (v.name, v.version, *v.aliases)}
    prefixes = {v.draw_rule.split("-")[0] for v in VARIANTS}
    found = []
    for path in sorted(ARENA.rglob("*.py")):
        if (ARENA / "variants") in path.parents:
            continue
        for text in _code_strings(path):
            words = set(text.lower().replace("/", " ").split()) | {text.lower()}
            if words & names or any(text.startswith(f"{p}-") or text == p for p in prefixes):
                found.append(f"{module_name(path)}: {text!r}")
    assert not found, "shared code that names a variant:\n" + "\n".join(found)
