"""The variant registry: ``find_variant("ind")`` finds Indian Rummy by name, alias or version."""

from __future__ import annotations

from arena.engine.game import Game
from arena.errors import BadInput
from arena.variants.indian13 import Indian13
from arena.variants.moroccan import Moroccan
from arena.variants.rummy51 import Rummy51, Rummy71
from arena.variants.three_thirteen import ThreeThirteen

VARIANTS: tuple[type[Game], ...] = (Indian13, ThreeThirteen, Rummy51, Rummy71, Moroccan)


def find_variant(name: str) -> type[Game]:
    """The variant class for a name, an alias or a versioned name such as ``indian13/v1``."""
    wanted = name.strip().lower()
    for variant in VARIANTS:
        if wanted in (variant.name, variant.version, *variant.aliases):
            return variant
    known = ", ".join(v.name for v in VARIANTS)
    raise BadInput(f"unknown variant {name!r}: expected one of {known}")
