"""The ``arena`` command: thin typer commands over the library. Bad input exits 2, in one
line."""

from __future__ import annotations

import sys
from collections import Counter
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated, Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from arena.cli import calculators, games, replay, report, scaffold, tournaments
from arena.cli.common import INTERRUPTED, stop_as_on_ctrl_c, stop_reason


class _OneLineErrors(TyperGroup):
    """Usage errors in one line (``arena: error: ...``) with exit code 2, like every other
    bad input."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        try:
            code = super().main(*args, **kwargs)
        except typer.TyperException as exc:  # usage errors of typer's own (vendored) click
            message = exc.format_message()
            if type(exc).__name__ == "NoArgsIsHelpError":
                typer.echo(message)  # plain `arena`: the help text
                sys.exit(0)
            typer.echo(f"arena: error: {message}", err=True)
            sys.exit(exc.exit_code)
        except typer.Abort:
            typer.echo("arena: interrupted", err=True)
            sys.exit(INTERRUPTED)
        sys.exit(code if isinstance(code, int) else 0)


class _OptionsOnce(TyperCommand):
    """An option that takes one value, given twice, is refused: the last one silently won
    (``--wild 7C --wild 3C`` rated the hand with 3C), as --anchor given twice is."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        _, _, order = self.make_parser(ctx).parse_args(args=list(args))
        given = Counter(p for p in order if isinstance(p, TyperOption) and not p.multiple
                        and not p.is_flag and not p.count)
        for option, times in given.items():
            if times > 1:
                ctx.fail(f"{option.opts[-1]} given {times} times: expected it once")
        return super().parse_args(ctx, args)


def _named_in_words(self: TyperArgument, ctx: Any) -> str | None:
    """An argument given a metavar in words (``CARDS...``) shows it alone, as an option
    does, rather than the Python type beside it (``<list[str]>``)."""
    return None if self.metavar is not None else _python_type(self, ctx)


_python_type = TyperArgument.display_type_rich
TyperArgument.display_type_rich = _named_in_words  # type: ignore[method-assign, assignment]

app = typer.Typer(cls=_OneLineErrors, no_args_is_help=True, rich_markup_mode=None,
                  pretty_exceptions_enable=False,
                  context_settings={"help_option_names": ["-h", "--help"]},
                  help="Rummy Arena: play rummy bots against each other and rate them.")


def _version(asked: bool) -> None:
    if asked:
        try:
            typer.echo(f"arena {version('rummy-arena')}")
        except PackageNotFoundError:  # run from a source tree that was never installed
            typer.echo("arena (not installed)")
        raise typer.Exit()


@app.callback()
def _root(
    show_version: Annotated[bool, typer.Option(
        "--version", is_eager=True, callback=_version,
        help="Print the version and exit.")] = False,
) -> None:
    """Rummy Arena: play rummy bots against each other and rate them."""

for _name, _command in (("play", games.play), ("replay", replay.replay),
                       ("hand", calculators.hand), ("meld", calculators.meld),
                       ("open", calculators.opening), ("run", tournaments.run),
                       ("validate", tournaments.validate),
                       ("leaderboard", tournaments.leaderboard), ("sprt", tournaments.sprt),
                       ("variants", calculators.variants), ("new-bot", scaffold.new_bot),
                       ("report", report.report)):
    app.command(_name, cls=_OptionsOnce)(_command)


def main() -> None:
    """Console entry point."""
    stop_as_on_ctrl_c()
    try:
        app()
    except KeyboardInterrupt as exc:
        reason, code = stop_reason(exc)
        typer.echo(f"arena: {reason}", err=True)
        sys.exit(code)


if __name__ == "__main__":
    main()
