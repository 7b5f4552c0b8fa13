"""Every claim and prediction, found by discovery: each module ``claims/test_<id>_<words>.py`` that declares a
``CLAIM`` (a ``claims.spec.ClaimSpec``) is one, and nothing lists them by hand. The robustness map, the multiverse, the
report's catalogue and the tests read them from here (``CLAIMS[claim_id]``), in the catalogue's order: the
paper's claims by number, then the predictions by number.

To add a claim: write its module with its ``CLAIM`` (ARCHITECTURE.md, "How to add a claim").
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path
from types import ModuleType

from lengthgen.catalogue import Catalogue, claim_order

from claims.spec import ClaimSpec

HERE = Path(__file__).parent
MODULE = re.compile(r"test_[a-z]+\d+_\w+")  # a claim module's name: test_<id>_<words>, e.g. test_c08_pinning


def claim_modules() -> tuple[ModuleType, ...]:
    """The test modules of this folder that declare a ``CLAIM``."""
    names = sorted(m.name for m in pkgutil.iter_modules([str(HERE)]) if MODULE.fullmatch(m.name))
    modules = (importlib.import_module(f"claims.{name}") for name in names)
    return tuple(m for m in modules if isinstance(getattr(m, "CLAIM", None), ClaimSpec))


def order(spec: ClaimSpec) -> tuple[int, str]:
    """The catalogue's order: the paper's claims before the predictions, each by its number
    (``lengthgen.catalogue.claim_order``)."""
    return claim_order(spec.id)


class DuplicateClaim(ValueError):
    """Two claim modules declare one id (one line naming both: the registry cannot choose)."""


def discovered(modules: tuple[ModuleType, ...]) -> dict[str, ClaimSpec]:
    """The claims ``modules`` declare, by id in the catalogue's order; :class:`DuplicateClaim` naming both modules
    where two declare one id."""
    found: dict[str, ClaimSpec] = {}
    where: dict[str, str] = {}
    for module in modules:
        spec = module.CLAIM
        if spec.id in found:
            raise DuplicateClaim(f"two claim modules declare {spec.id}: {where[spec.id]} and {module.__name__}")
        found[spec.id], where[spec.id] = spec, module.__name__
    return {spec.id: spec for spec in sorted(found.values(), key=order)}


CLAIMS: dict[str, ClaimSpec] = discovered(claim_modules())


def claim(claim_id: str) -> ClaimSpec:
    """The declaration of ``claim_id``; ValueError naming it (and the known ones) otherwise."""
    try:
        return CLAIMS[claim_id]
    except KeyError:
        raise ValueError(f"unknown claim {claim_id!r} (known: {', '.join(CLAIMS)})") from None


def catalogue() -> Catalogue:
    """The catalogue as a run records it: every claim's entry, in the catalogue's order."""
    return Catalogue(tuple(spec.entry for spec in CLAIMS.values()))
