"""The ``arena`` command: thin typer commands over the library. Bad input exits 2, in one
line."""

from __future__ import annotations

import sys
from typing import Any

import typer
from typer.core import TyperGroup

from arena.cli import calculators, games, tournaments


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
            sys.exit(130)
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(cls=_OneLineErrors, add_completion=False, no_args_is_help=True,
                  rich_markup_mode=None, pretty_exceptions_enable=False,
                  help="Rummy Arena: play rummy bots against each other and rate them.")

app.command()(games.play)
app.command()(calculators.hand)
app.command()(calculators.meld)
app.command()(tournaments.run)
app.command()(tournaments.validate)
app.command()(tournaments.leaderboard)
app.command()(tournaments.sprt)
app.command()(calculators.variants)


def main() -> None:
    """Console entry point."""
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("arena: interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
