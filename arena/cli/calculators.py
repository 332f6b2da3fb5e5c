"""The rules calculators (`arena hand`, `arena meld`, `arena open`) and `arena variants`."""

from __future__ import annotations

import json
import re
from typing import Annotated, Any

import typer
from tabulate import tabulate

from arena.actions import Placed, TakeBack
from arena.cards import Card, check_in_deck, format_cards
from arena.cli.common import (
    MAX_HAND,
    MAX_MELD,
    JsonArg,
    OptionArgs,
    RoundArg,
    WildArg,
    _cards,
    _placed,
    _wild,
    guarded,
)
from arena.engine.game import Game, MeldReport, OpeningReport
from arena.engine.options import parse_option_args
from arena.errors import BadInput, shown
from arena.seats.bot import ARENA_ROOT
from arena.variants import VARIANTS, find_variant


@guarded
def hand(
    variant: Annotated[str, typer.Argument(metavar="VARIANT",
                                           help="Variant name, e.g. indian13.")],
    cards: Annotated[list[str], typer.Argument(metavar="CARD",
                                               help="The cards, e.g. 3S 4S 5S 8H 8D 8C.")],
    wild: WildArg = None,
    round: RoundArg = None,
    option: OptionArgs = None,
    as_json: JsonArg = False,
) -> None:
    """Rules calculator: best arrangement, deadwood, points and whether it declares."""
    game_cls = find_variant(variant)
    options = parse_option_args(option)
    held = _cards(cards, MAX_HAND, "a hand", game_cls.deck_counts(options))
    report = game_cls.hand_report(held, wild=_wild(wild), round=round, options=options)
    if as_json:
        typer.echo(json.dumps(report.as_json()))
        return
    rows = [[m.kind, " ".join(cards)]
            for m, cards in zip(report.melds, report.meld_cards(), strict=True)]
    rows.append(["deadwood", format_cards(report.deadwood) or "-"])
    typer.echo(tabulate(rows, ["group", "cards"]))
    typer.echo(f"points: {report.points}")
    typer.echo("valid declaration: " + ("yes" if report.valid_declaration else
                                        "no" + _because(report.reason)))


@guarded
def meld(
    variant: Annotated[str, typer.Argument(metavar="VARIANT",
                                           help="Variant name, e.g. indian13.")],
    cards: Annotated[list[str], typer.Argument(
        metavar="CARD", help="The cards of one combination; a joker may name its card "
        "(JK=8H).")],
    wild: WildArg = None,
    round: RoundArg = None,
    option: OptionArgs = None,
    as_json: JsonArg = False,
) -> None:
    """Is this one valid combination, of which kind, and what does it count?"""
    game_cls = find_variant(variant)
    options = parse_option_args(option)
    group = _placed(cards, MAX_MELD, "one combination")
    _in_deck(game_cls, options, [p.card for p in group])
    check = game_cls.meld_report(group, wild=_wild(wild), round=round, options=options)
    typer.echo(json.dumps(check.as_json()) if as_json else "\n".join(_meld_lines(check)))


def _meld_lines(check: MeldReport) -> list[str]:
    if not check.valid:
        return [f"invalid: {check.reason}"]
    if not check.counted:
        return [f"valid: {check.kind}"]
    points = "not counted" if check.points is None else str(check.points)
    return [f"valid: {check.kind}", f"cards: {' '.join(map(str, check.cards))}",
            f"points: {points}" + _because(check.note)]


def _because(reason: str | None) -> str:
    return "" if reason is None else f" ({reason})"


LevelArg = Annotated[int | None, typer.Option(
    "--level", min=1, max=10_000, metavar="N",
    help="The threshold now, when earlier openings have raised it (default: the starting "
    "one, e.g. 51).")]


TableArg = Annotated[list[str] | None, typer.Option(
    "--table", metavar="'CARDS'", help="A combination already on the table, numbered from "
    "0 in the order given (repeatable), e.g. --table '6H 7H JK=8H'.")]


TakeArg = Annotated[list[str] | None, typer.Option(
    "--take", metavar="'N CARD'", help="A joker taken back first: the table combination's "
    "number and the card put down for it (repeatable), e.g. --take '0 8H'.")]


@guarded
def opening(
    variant: Annotated[str, typer.Argument(metavar="VARIANT",
                                           help="Variant name, e.g. rummy51.")],
    melds: Annotated[list[str], typer.Argument(
        metavar="MELD", help="The new combinations, each one quoted group, e.g. '9S 9H 9D' "
        "'KC KD KS'.")],
    level: LevelArg = None,
    table: TableArg = None,
    take: TakeArg = None,
    option: OptionArgs = None,
    as_json: JsonArg = False,
) -> None:
    """Opening calculator: do these combinations open now, what do they count, which rule
    refuses them?"""
    game_cls = find_variant(variant)
    options = parse_option_args(option)
    groups = [_group(text, "a combination") for text in melds]
    if len(groups) > 1 and all(len(g) == 1 for g in groups):
        raise BadInput(f"{len(groups)} combinations of one card each: quote each "
                       "combination as one argument, e.g. '9S 9H 9D' 'KC KD KS'")
    on_table = [_group(text, "a table combination") for text in table or []]
    takebacks = [_takeback(text) for text in take or []]
    _some_cards(groups)
    report = game_cls.opening_report(groups, level=level, options=options, table=on_table,
                                     takebacks=takebacks)
    typer.echo(json.dumps(report.as_json()) if as_json else "\n".join(_opening_lines(report)))


def _group(text: str, what: str) -> list[Placed]:
    return _placed(text.replace(",", " ").split(), MAX_MELD, what)


def _some_cards(groups: list[list[Placed]]) -> None:
    count = sum(map(len, groups))
    if count > MAX_HAND:
        raise BadInput(f"{count} cards: expected at most {MAX_HAND} in one opening")


def _takeback(text: str) -> TakeBack:
    taken = TakeBack.parse(text)
    if taken is None:
        raise BadInput(f"--take {shown(text)}: expected {TakeBack.EXPECTED}")
    return taken


def _in_deck(game_cls: type[Game], options: dict[str, Any], cards: list[Card]) -> None:
    held = game_cls.deck_counts(options)
    if held is not None:
        check_in_deck(cards, held)


def _opening_lines(report: OpeningReport) -> list[str]:
    rows = [[" ".join(map(str, m.cards)), "-" if m.points is None else m.points]
            for m in report.melds]
    total = "-" if report.total is None else report.total
    level = "" if report.level is None else f" (level {report.level})"
    verdict = "yes" if report.opens else f"no ({report.rule}: {report.reason})"
    return [tabulate(rows, ["combination", "points"], disable_numparse=True),
            f"total: {total}{level}", f"opens: {verdict}"]


@guarded
def variants(
    rule: Annotated[str | None, typer.Option(
        "--rule", metavar="RULE-ID",
        help="Print one rule of the rule book (docs/rules.md), e.g. R51-10.")] = None,
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
