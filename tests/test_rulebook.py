"""The rule book, the code and the tests cite the same rule IDs (docs/rules.md)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parent.parent
RULEBOOK = ROOT / "docs" / "rules.md"
ARENA = ROOT / "arena"
TESTS = ROOT / "tests"

PREFIXES = "COM|IND|R51|TT|MAR"
#: A rule ID as prose, comments and error messages write it: ``IND-17``.
CITED = re.compile(rf"\b(?:{PREFIXES})-\d+\b")
#: A rule defined in the book: a heading, or a bold label, that starts with its ID.
DEFINED = re.compile(rf"^(?:#{{2,6}}[ \t]+|\*\*)((?:{PREFIXES})-\d+)\b", re.MULTILINE)
#: A test function, whose name may cite rules in snake case: ``test_ind_17_...``.
TEST_NAME = re.compile(r"^\s*(?:async\s+)?def\s+(test_\w+)", re.MULTILINE)
SNAKE_ID = re.compile(rf"(?<=_)({PREFIXES.lower()})_(\d+)(?=_|$)")


def defined_ids() -> set[str]:
    """The IDs the rule book gives an entry of their own, so a citation has a place to point."""
    return set(DEFINED.findall(RULEBOOK.read_text(encoding="utf-8")))


def ids_cited_in(text: str) -> set[str]:
    """IDs cited as ``IND-17`` anywhere, or as ``ind_17`` in a test's name (``test_ind_17_x``)."""
    cited = set(CITED.findall(text))
    for name in TEST_NAME.findall(text):
        cited.update(f"{prefix.upper()}-{number}" for prefix, number in SNAKE_ID.findall(name))
    return cited


def id_key(rule: str) -> tuple[str, int]:
    """Sort IDs by section, then by number, so messages list COM-2 before COM-10."""
    prefix, number = rule.split("-")
    return prefix, int(number)


def test_every_rule_cited_in_the_code_is_in_the_rule_book() -> None:
    """An error message or comment that cites a rule must send the reader to a real entry."""
    book = defined_ids()
    missing: dict[str, list[str]] = {}
    for source in sorted(ARENA.rglob("*.py")):
        unknown = set(CITED.findall(source.read_text(encoding="utf-8"))) - book
        if unknown:
            missing[source.relative_to(ROOT).as_posix()] = sorted(unknown, key=id_key)
    assert not missing, "rule IDs cited in arena/ but missing from docs/rules.md:\n" + "\n".join(
        f"  {path}: {', '.join(ids)}" for path, ids in missing.items())


def test_every_rule_in_the_rule_book_is_cited_by_a_test() -> None:
    """A rule that no test cites is a rule nobody has shown the engine enforces."""
    book = defined_ids()
    assert book, f"no rule entries found in {RULEBOOK}"
    cited: set[str] = set()
    for source in sorted(TESTS.rglob("*.py")):
        if source.resolve() != Path(__file__).resolve():
            cited |= ids_cited_in(source.read_text(encoding="utf-8"))
    uncited = sorted(book - cited, key=id_key)
    assert not uncited, (f"{len(uncited)} rule(s) of docs/rules.md cited by no test in tests/: "
                         + ", ".join(uncited))
