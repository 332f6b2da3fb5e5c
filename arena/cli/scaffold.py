"""`arena new-bot`: a bot that already plays legal moves and a tournament that seats it
against the built-in bots, so a new bot author starts from something that runs."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template
from typing import Annotated

import typer

from arena.cli.common import BUILTIN_BOTS, guarded
from arena.cli.human import HUMAN
from arena.engine.game import Game
from arena.errors import BadInput, shown
from arena.tournament.config import SPRT_SUFFIX
from arena.variants import VARIANTS, find_variant


@dataclass(frozen=True, slots=True)
class Language:
    """How a bot in one language is written, and how its tournament names it."""

    name: str
    aliases: tuple[str, ...]
    suffix: str  # of the bot's file
    template: str  # in arena/cli/templates/
    entry: str  # its lines under `bots:`, with {file} and {cls}


LANGUAGES = (
    Language("python", ("py",), ".py", "bot.py.tmpl", "    module: {file}:{cls}"),
    Language("javascript", ("js", "node"), ".js", "bot.js.tmpl",
             "    command: [node, {file}]   # Node.js needs a memory_mb limit of 800 or more "
             "(the default: 1024)"),
)


LANGUAGE_NAMES = " or ".join(language.name for language in LANGUAGES)


NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")  # a file, class, bot and tournament name


CONFIG = "tournament.yaml"


DEFAULT_VARIANT = VARIANTS[0]  # the first registered, the game quickstart.yaml plays


@guarded
def new_bot(
    name: Annotated[str, typer.Argument(metavar="NAME",
                                        help="The bot's name: letters, digits, _ or -.")],
    variant: Annotated[str | None, typer.Option(
        metavar="VARIANT", show_default=False,
        help=f"The variant of its tournament (default: {DEFAULT_VARIANT.name}).")] = None,
    lang: Annotated[str, typer.Option(
        metavar="python|javascript",
        help=f"The bot's language: {LANGUAGE_NAMES}.")] = LANGUAGES[0].name,
    directory: Annotated[str | None, typer.Option(  # text: '' is no folder, '.' is here
        "--dir", metavar="FOLDER", show_default=False,
        help="Where to make the bot's folder (default: here).")] = None,
) -> None:
    """Write a bot that plays legal moves, and a tournament that seats it against the
    built-in bots, in a new folder NAME/."""
    game = DEFAULT_VARIANT if variant is None else find_variant(variant)
    language = find_language(lang)
    check_name(name)
    folder = parent_folder(directory) / name
    files = {folder / f"{name}{language.suffix}": bot_text(name, language),
             folder / CONFIG: config_text(name, game, language)}
    write_new(folder, files)
    written = " and ".join(shlex.quote(str(path)) for path in files)
    config = shlex.quote(str(folder / CONFIG))
    typer.echo(f"wrote {written}\ntry it:\n  arena validate {config}\n  arena run {config}")


def find_language(text: str) -> Language:
    """A language by its name or an alias (``js``), in any letter case."""
    wanted = text.strip().lower()
    for language in LANGUAGES:
        if wanted in (language.name, *language.aliases):
            return language
    known = ", ".join(language.name for language in LANGUAGES)
    raise BadInput(f"--lang {shown(text)}: expected one of {known}")


def check_name(name: str) -> None:
    """The name becomes a file, a class, a bot and a tournament: kept to safe characters,
    and unlike the built-in bots it meets there."""
    if not NAME.fullmatch(name):
        raise BadInput(f"bot name {shown(name)}: expected an ASCII letter, then ASCII letters, "
                       "digits, '_' or '-' (at most 64 characters)")
    if name.endswith(SPRT_SUFFIX):  # the tournament it writes: validate refused it after
        raise BadInput(f"bot name {name!r}: expected a name that does not end in "
                       f"{SPRT_SUFFIX!r}, which the tournament it names keeps for "
                       "`arena sprt`'s games")
    if name.lower() in BUILTIN_BOTS:  # "Random" gave a class RandomBot beside the built-in's
        raise BadInput(f"bot name {name!r}: a built-in bot's ({', '.join(BUILTIN_BOTS)}), "
                       "which configs and arena play would take for it (in any case: its "
                       "class would share the built-in's name); expected another name")
    if name.lower() == HUMAN:  # `arena play VARIANT human` seats a person, not this bot
        raise BadInput(f"bot name {name!r}: `arena play` seats a person for it; expected "
                       "another name")


def parent_folder(directory: str | None) -> Path:
    """The folder --dir names, or the current one; an empty --dir names none, as an empty
    output: is no results folder."""
    if directory is None:
        return Path()
    if not directory or "\0" in directory:
        raise BadInput(f"--dir {shown(directory)}: expected a folder path (leave --dir out "
                       "for the current folder)")
    return Path(directory)


def class_name(name: str) -> str:
    """The bot's Python class: ``my_bot`` gives ``MyBot``, ``alice`` gives ``AliceBot`` (the
    suffix keeps it clear of keywords and of the names the bot imports)."""
    words = "".join(word[:1].upper() + word[1:] for word in re.split(r"[-_]+", name))
    return words if words.endswith("Bot") else f"{words}Bot"


def bot_text(name: str, language: Language) -> str:
    """The bot's source, from its language's template."""
    return _template(language.template).substitute(name=name, class_name=class_name(name))


def config_text(name: str, game: type[Game], language: Language) -> str:
    """The tournament: the new bot, ``random`` and ``greedy`` at two-seat tables."""
    entry = language.entry.format(file=f"{name}{language.suffix}", cls=class_name(name))
    return _template("tournament.yaml.tmpl").substitute(name=name, variant=game.name,
                                                        bot=entry)


def write_new(folder: Path, files: dict[Path, str]) -> None:
    """Write every file or, if any exists already, none of them."""
    if folder.exists() and not folder.is_dir():
        raise BadInput(f"{shown(str(folder))} is a file: expected a folder for the bot, "
                       "or another --dir")
    for path in files:
        if path.exists():
            raise BadInput(f"{shown(str(path))} already exists: expected another bot name "
                           "or --dir (nothing was written)")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for path, text in files.items():
            with path.open("x", encoding="utf-8") as out:
                out.write(text)
    except OSError as exc:
        raise BadInput(f"--dir {shown(str(folder.parent))}: cannot write "
                       f"{shown(str(exc.filename or folder))} ({exc.strerror or exc})") from exc


def _template(name: str) -> Template:
    return Template(resources.files("arena.cli").joinpath("templates", name)
                    .read_text("utf-8"))
