"""The rules calculators (`arena hand`, `arena meld`) and `arena variants`."""

from __future__ import annotations

import json
import re
from typing import Annotated, Any

import typer
from tabulate import tabulate

from arena.cards import format_cards
from arena.cli.common import (
    MAX_HAND,
    MAX_MELD,
    JsonArg,
    OptionArgs,
    RoundArg,
    WildArg,
    _cards,
    _wild,
    guarded,
)
from arena.engine.options import parse_option_args
from arena.errors import BadInput
from arena.seats.bot import ARENA_ROOT
from arena.variants import VARIANTS, find_variant


@guarded
def hand(
    variant: Annotated[str, typer.Argument(help="Variant name, e.g. indian13.")],
    cards: Annotated[list[str], typer.Argument(help="The cards, e.g. 3S 4S 5S 8H 8D 8C.")],
    wild: WildArg = None,
    round: RoundArg = None,
    option: OptionArgs = None,
    as_json: JsonArg = False,
) -> None:
    """Rules calculator: best arrangement, deadwood, points and whether it declares."""
    game_cls = find_variant(variant)
    report = game_cls.hand_report(_cards(cards, MAX_HAND, "a hand"), wild=_wild(wild),
                                  round=round, options=parse_option_args(option))
    if as_json:
        typer.echo(json.dumps(report.as_json()))
        return
    rows = [[m.kind, str(m)] for m in report.melds]
    rows.append(["deadwood", format_cards(report.deadwood) or "-"])
    typer.echo(tabulate(rows, ["group", "cards"]))
    typer.echo(f"points: {report.points}")
    typer.echo(f"valid declaration: {'yes' if report.valid_declaration else 'no'}")


@guarded
def meld(
    variant: Annotated[str, typer.Argument(help="Variant name, e.g. indian13.")],
    cards: Annotated[list[str], typer.Argument(help="The cards of one combination.")],
    wild: WildArg = None,
    round: RoundArg = None,
    option: OptionArgs = None,
    as_json: JsonArg = False,
) -> None:
    """Is this one valid combination, and of which kind?"""
    game_cls = find_variant(variant)
    check = game_cls.meld_report(_cards(cards, MAX_MELD, "one combination"),
                                 wild=_wild(wild), round=round,
                                 options=parse_option_args(option))
    if as_json:
        typer.echo(json.dumps({"valid": check.valid, "kind": check.kind,
                               "reason": check.reason}))
        return
    typer.echo(f"valid: {check.kind}" if check.valid else f"invalid: {check.reason}")


@guarded
def variants(
    rule: Annotated[str | None, typer.Option(
        "--rule", help="Print one rule of the rule book (docs/rules.md), e.g. R51-10.")] = None,
) -> None:
    """List the variants with their options, defaults and allowed values, or print a rule."""
    if rule is not None:
        typer.echo(rule_text(rule))
        return
    for v in VARIANTS:
        typer.echo(f"{v.name} ({v.version}; aliases: {', '.join(v.aliases)})")
        rows: list[list[Any]] = [[o.name, json.dumps(o.default) if not callable(o.default)
                                  else "(depends)", o.expected, o.rule] for o in v.OPTIONS]
        typer.echo(tabulate(rows, ["option", "default", "allowed", "rule"]) + "\n")
    typer.echo(f"The rules, by ID: {RULE_BOOK} (arena variants --rule IND-17)")


RULE_BOOK = ARENA_ROOT / "docs" / "rules.md"
RULE_ID = re.compile(r"[A-Z][A-Z0-9]*-\d+")  # any variant's prefix


def rule_text(rule: str) -> str:
    """One entry of the rule book: its heading and text, up to the next entry."""
    wanted = rule.strip().upper()
    if not RULE_ID.fullmatch(wanted):
        raise BadInput(f"--rule {rule!r}: expected a rule ID such as IND-17 or R51-10")
    try:
        book = RULE_BOOK.read_text("utf-8").splitlines()
    except OSError as exc:
        raise BadInput(f"the rule book {RULE_BOOK} cannot be read ({exc.strerror}); "
                       "it comes with the repository") from exc
    heading = re.compile(rf"^#{{2,6}} {re.escape(wanted)}\b")
    start = next((i for i, line in enumerate(book) if heading.match(line)), None)
    if start is None:
        raise BadInput(f"--rule {wanted}: no such rule in {RULE_BOOK}")
    end = next((i for i in range(start + 1, len(book)) if book[i].startswith("#")), len(book))
    return "\n".join(book[start:end]).strip()
