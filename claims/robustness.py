"""The robustness map's cells (``claims/test_robustness.py``): each claim's own ``check(claim, result)`` on a
result measured at a setting of ``lengthgen.experiments.robustness``, always at paper scale (4000 steps, 4096
evaluation sequences per length, the paper's evaluation lengths).

- A setting that changes the spec (width, vocabulary, training range) or K (offsets-far) measures with
  the claim's experiment function (``run_phenomenon``, ``run_pinning``, ``run_carrier``, ``run_dilution``)
  given the setting's base spec and offsets; the claims' K where the setting keeps it (C1, C3, C8:
  {1, 2, 3}; C4, C5, C6: the mechanism's {2, 3}).
- fresh-seeds calls the claim module's own ``measure(scale, cache)`` at a paper scale whose explicit seeds
  are 100.. (the first n of 100..107 for a claim of n seeds), then its checks.

Claims with several tests at the paper's point are one cell with every test's checks in one record: C19
(both schemes, the invariance and the selects-the-target checks); C12 and C13 at the width the suite
chose (d = 96; d = 64 is their declared non-reproduction variant, not rerun here).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import pkgutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from lengthgen.experiments.robustness import Setting
from lengthgen.scale import PAPER, Scale

from claims.support import memo

OWN_OFFSETS = {"C1": (1, 2, 3), "C3": (1, 2, 3), "C8": (1, 2, 3), "C4": (2, 3), "C5": (2, 3), "C6": (2, 3)}
# The claims' K where a setting keeps it (C4-C6: claims.mechanism.MECHANISM_OFFSETS, the claims' own).


def claim_module(claim_id: str):
    """The claim's test module, ``claims/test_cNN_*.py`` (C12 and C13 share ``claims/two_layer.py``)."""
    prefix = f"test_c{int(claim_id[1:]):02d}_"
    names = [m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if m.name.startswith(prefix)]
    if len(names) != 1:
        raise ValueError(f"claim {claim_id}: expected one module claims/{prefix}*.py, found {names}")
    return importlib.import_module(f"claims.{names[0]}")


def paper_seeds(claim_id: str) -> int:
    """The claim's seed count at the paper's point (its module's PAPER_SEEDS)."""
    module = claim_module(claim_id)
    count = getattr(module, "PAPER_SEEDS", None)
    if count is None:  # C12, C13 (claims/two_layer.py), C18 (C17's), C21, C22 (claims/multihead.py)
        source = {"C12": "claims.two_layer", "C13": "claims.two_layer", "C18": "claims.test_c17_carrier_sweep",
                  "C21": "claims.multihead", "C22": "claims.multihead"}.get(claim_id)
        count = getattr(importlib.import_module(source), "PAPER_SEEDS", None) if source else None
    if not isinstance(count, int) or count < 1:
        raise ValueError(f"claim {claim_id}: no PAPER_SEEDS seed count in its module")
    return count


def cell_scale(setting: Setting, claim_id: str) -> Scale:
    """Paper scale with the cell's seeds explicit (so every measure function honours them)."""
    return dataclasses.replace(PAPER, seeds=setting.seed_list(paper_seeds(claim_id)))


@dataclass(frozen=True)
class Cell:
    """What one cell measures and checks."""

    measure: Callable[[Scale, Any], Any]  # (scale, cache) -> the claim's result type at the setting
    checks: tuple[Callable[[Any, Any], None], ...]  # the claim's check functions, each (claim, result)


def _grid(setting: Setting, claim_id: str, scale: Scale, cache, encodings=("rope", "ape")):
    from lengthgen.experiments.phenomenon import run_phenomenon

    offsets = setting.offsets or OWN_OFFSETS[claim_id]
    return memo(("robustness", setting.name, "phenomenon", scale, offsets, encodings),
                lambda: run_phenomenon(scale.seeds, scale.steps, offsets, encodings, scale.evaluation(), cache,
                                       base=setting.spec(scale.steps)))


def _pinning(setting: Setting, scale: Scale, cache):
    from lengthgen.experiments.pinning import run_pinning

    offsets = setting.offsets or OWN_OFFSETS["C8"]
    return memo(("robustness", setting.name, "pinning", scale, offsets),
                lambda: run_pinning(scale.seeds, scale.steps, offsets, scale.evaluation(), cache,
                                    base=setting.spec(scale.steps)))


def _carrier(setting: Setting, claim_id: str, scale: Scale, cache):
    from lengthgen.experiments.carrier import run_carrier

    offsets = setting.offsets or OWN_OFFSETS[claim_id]
    return memo(("robustness", setting.name, "carrier", scale, offsets),
                lambda: run_carrier(scale.seeds, scale.steps, offsets, scale.evaluation(), cache,
                                    base=setting.spec(scale.steps)))


def _dilution(setting: Setting, scale: Scale, cache):
    from lengthgen.experiments.dilution import run_dilution

    if setting.changes_spec:  # run_dilution trains the paper's spec; the catalogue runs C6 at offsets-far only
        raise ValueError(f"C6 at {setting.name}: the dilution experiment takes other K, not another spec")
    offsets = setting.offsets or OWN_OFFSETS["C6"]
    return memo(("robustness", setting.name, "dilution", scale, offsets),
                lambda: run_dilution(scale.seeds, scale.steps, offsets, scale.evaluation(), cache))


def cell(setting: Setting, claim_id: str) -> Cell:
    """The measure and checks of one (setting, claim) cell; ValueError for a claim the setting does not cover."""
    if claim_id not in setting.claims:
        raise ValueError(f"the catalogue does not run {claim_id} at {setting.name} "
                         f"(it runs {', '.join(setting.claims)})")
    module = claim_module(claim_id)
    if setting.seeds is not None:  # fresh-seeds: the claim's own measure at other seeds
        if claim_id == "C19":
            checks = tuple(functools.partial(f, encoding=e) for e in module.BIAS_SCHEMES
                           for f in (module.check_invariance, module.check_target))
        else:
            checks = (module.check,)
        return Cell(lambda scale, cache: module.measure(scale, cache), checks)
    if claim_id in ("C1", "C3"):
        measure = lambda scale, cache: _grid(setting, claim_id, scale, cache)  # noqa: E731
    elif claim_id == "C8":
        measure = lambda scale, cache: _pinning(setting, scale, cache)  # noqa: E731
    elif claim_id in ("C4", "C5"):
        measure = lambda scale, cache: _carrier(setting, claim_id, scale, cache)  # noqa: E731
    elif claim_id == "C6":
        measure = lambda scale, cache: _dilution(setting, scale, cache)  # noqa: E731
    else:
        raise ValueError(f"no robustness measure for {claim_id} at {setting.name}")
    return Cell(measure, (module.check,))


def carried_declaration(claim_id: str) -> tuple[tuple[str, ...], str] | None:
    """A claim's own declared non-reproduction at the paper's point, where its reason is structural (not one
    seed's), carried to fresh-seeds unchanged: C10 (fixes at L <= 24), C19 (ALiBi K >= 2), C20 (K = 1 at
    the far end: the catalogue's reading's declaration, L = 48, since fresh-seeds runs that reading's check;
    the first reading is not rerun there). C8's (one seed's flat profile) is seed-specific and not carried."""
    module = claim_module(claim_id)
    if claim_id == "C10":
        return tuple(module.NOT_REPRODUCED_CHECKS), module.NOT_REPRODUCED_WHY
    if claim_id == "C19":
        return tuple(module.ALIBI_NOT_TARGET) + tuple(module.ALIBI_NOT_SOLVED), module.ALIBI_WHY
    if claim_id == "C20":
        return tuple(module.NOT_REPRODUCED["paper"]), module.NOT_REPRODUCED_WHY
    return None
