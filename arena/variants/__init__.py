"""The variant registry: ``find_variant("ind")`` finds Indian Rummy by name, alias or version."""

from __future__ import annotations

from arena.engine.game import Game
from arena.errors import BadInput
from arena.variants.indian13 import Indian13
from arena.variants.moroccan import Moroccan
from arena.variants.rummy51 import Rummy51, Rummy71
from arena.variants.three_thirteen import ThreeThirteen

VARIANTS: list[type[Game]] = [Indian13, ThreeThirteen, Rummy51, Rummy71, Moroccan]


def register(variant: type[Game]) -> type[Game]:
    """Add a variant (a :class:`Game` subclass with its name, version, aliases and options)
    to the registry, so configs, ``arena play`` and the calculators find it; usable as a
    class decorator. A name, version or alias already taken is refused."""
    taken = {n for v in VARIANTS for n in (v.name, v.version, *v.aliases)}
    clash = taken & {variant.name, variant.version, *variant.aliases}
    if clash and variant not in VARIANTS:
        raise BadInput(f"variant {variant.name!r}: {', '.join(sorted(clash))} already taken")
    if variant not in VARIANTS:
        VARIANTS.append(variant)
    return variant


def find_variant(name: str) -> type[Game]:
    """The variant class for a name, an alias or a versioned name such as ``indian13/v1``."""
    known = ", ".join(v.name for v in VARIANTS)
    if not isinstance(name, str):
        raise BadInput(f"variant {name!r}: expected a variant's name, one of {known}")
    wanted = name.strip().lower()
    for variant in VARIANTS:
        if wanted in (variant.name, variant.version, *variant.aliases):
            return variant
    raise BadInput(f"unknown variant {name!r}: expected one of {known}")
