"""What a results folder says beyond its games: the team map of its records' variant and
the rating anchor of the config that made it. Read here, above the ratings, so the
leaderboard stays a pure function of the records and its arguments."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from arena import safe_yaml
from arena.errors import BadInput
from arena.ratings.terms import MAX_ELO, Anchor
from arena.records import GameRecord
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
        if isinstance(anchor, dict) and len(anchor) == 1:
            (name, elo), = anchor.items()
            if isinstance(elo, int | float) and not isinstance(elo, bool) and \
                    abs(elo) <= MAX_ELO:
                return str(name), float(elo)
    return None
