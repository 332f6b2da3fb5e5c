"""What a results folder says beyond its games: the team map of its records' variant and
the rating anchor of the config that made it. Read here, above the ratings, so the
leaderboard stays a pure function of the records and its arguments. And whether ``arena
run`` can use the folder at all, asked before it writes anything."""

from __future__ import annotations

import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from arena import safe_yaml
from arena.errors import BadInput, shown
from arena.ratings.terms import MAX_ELO, Anchor
from arena.records import GameRecord
from arena.seats.bot import stat_or_none
from arena.variants import find_variant

if TYPE_CHECKING:
    from arena.ratings.comparisons import Teams


def teams_of(records: Sequence[GameRecord]) -> Teams:
    """The records' team map (R51 2 v 2: partners are never compared), from their variant
    and options; None when everyone plays alone. One map must fit every record."""
    maps = {find_variant(r.variant).team_labels(r.options) for r in records}
    if len(maps) > 1:
        raise BadInput("the records mix team games and games without teams: rate them apart")
    return maps.pop() if maps else None


def sides(bots: Sequence[str], teams: Teams) -> str:
    """A game's bots as they played: ``a & c v b & d`` in a team game (R51-1), else
    ``a v b v c``; a list of seats hid who was whose partner."""
    if teams is None:
        return " v ".join(bots)
    labels = list(dict.fromkeys(teams))
    return " v ".join(" & ".join(b for b, t in zip(bots, teams, strict=True) if t == label)
                      for label in labels)


def stored_anchor(folder: Path) -> Anchor | None:
    """The anchor of the config that made a results folder (its ``config.yaml``), if any."""
    path = folder / "config.yaml"
    if not path.is_file():
        return None
    try:
        stored = safe_yaml.load_stored(path) or {}
    except OSError as exc:
        raise BadInput(f"{path}: not a readable config.yaml ({exc.strerror or exc})") from exc
    except safe_yaml.BadYaml as exc:
        raise BadInput(f"{path}: not a readable config.yaml ({exc.problem[:120]})") from exc
    identity = stored.get("identity") if isinstance(stored, dict) else None
    for holder in (stored, identity):
        rating = holder.get("rating") if isinstance(holder, dict) else None
        anchor = rating.get("anchor") if isinstance(rating, dict) else None
        if anchor is not None:
            return _stored_anchor(path, anchor)
    return None


def _stored_anchor(path: Path, anchor: object) -> Anchor:
    """The one bot and Elo a stored ``rating.anchor`` names; BadInput for anything else
    (the arena writes a valid one: another was edited in, and would be dropped unseen)."""
    if not isinstance(anchor, dict) or len(anchor) != 1:
        raise BadInput(f"{path}: rating.anchor: expected one bot and its Elo, e.g. "
                       f"{{random: 1000}}, got {shown(anchor)}")
    (name, elo), = anchor.items()
    if not isinstance(name, str) or not isinstance(elo, int | float) or \
            isinstance(elo, bool) or not abs(elo) <= MAX_ELO:
        raise BadInput(f"{path}: rating.anchor: expected a bot's name and an Elo number "
                       f"from {-MAX_ELO:g} to {MAX_ELO:g}, got {shown(anchor)}")
    return name, float(elo)


RUN_FILES = ("config.yaml", "games.jsonl", "arena.log", "arena.lock")  # arena run's own
APPENDED = ("games.jsonl", "arena.log")  # written to where they are when a run resumes


def check_results_folder(folder: Path, *, fresh: bool) -> None:
    """Refuse, in one line and before a bot starts, a results folder ``arena run`` cannot
    use: one it may not write, a file of its own that is no regular file (a named pipe or
    a device would make the run wait or read forever), or one a resumed run cannot append
    to. A folder not made yet is the run's to make (the config checked its parents)."""
    if not folder.is_dir():
        return
    try:
        with tempfile.TemporaryFile(dir=folder):  # nameless where it can be: nothing left
            pass
    except OSError as exc:
        raise BadInput(f"{folder}: cannot write the results folder "
                       f"({exc.strerror or exc})") from exc
    for name in RUN_FILES:
        _check_run_file(folder / name, append=not fresh and name in APPENDED)


def _check_run_file(path: Path, *, append: bool) -> None:
    """One of the run's files, if there: a regular file, and one it can append to."""
    try:
        found = stat_or_none(path)
        if found is not None and stat.S_ISREG(found.st_mode) and append:
            path.open("ab").close()  # nothing written: the run will append here
    except OSError as exc:
        raise BadInput(f"{path}: cannot be written ({exc.strerror or exc}); expected a "
                       "results folder this user may write") from exc
    if found is not None and not stat.S_ISREG(found.st_mode):
        raise BadInput(f"{path}: not a regular file (a folder, a named pipe or a device); "
                       "expected the arena's own file: move it aside")
