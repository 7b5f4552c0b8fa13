"""The robustness map's measures (``claims/test_robustness.py``): each claim's own experiment at a setting of
``lengthgen.experiments.robustness`` that changes the spec (width, vocabulary, training range) or K
(offsets-far), always at paper scale (4000 steps, 4096 evaluation sequences per length, the paper's
evaluation lengths). A claim names its own in its spec (``ClaimSpec.at_setting``): the claim's experiment
function (``run_phenomenon``, ``run_pinning``, ``run_carrier``, ``run_dilution``) given the setting's base spec
and offsets; the claims' K where the setting keeps it (C1, C3, C8: {1, 2, 3}; C4, C5, C6: the mechanism's
{2, 3}). At fresh-seeds a claim runs its own ``measure(scale, cache)`` at a paper scale whose explicit seeds
are 100.. (the first n of 100..107 for a claim of n seeds), then its checks (``claims.run.run_claim``).

Claims with several tests at the paper's point are one cell with every test's checks in one record (the
spec's ``checks``): C19 (both schemes, the invariance and the selects-the-target checks); C12 and C13 at the
width the suite chose (d = 96; d = 64 is their declared non-reproduction variant, not rerun here).
"""

from __future__ import annotations

import dataclasses

from lengthgen.context import Context
from lengthgen.experiments.robustness import Setting
from lengthgen.scale import PAPER, Scale

from claims.mechanism import MECHANISM_OFFSETS
from claims.memo import memo

GRID_OFFSETS = (1, 2, 3)  # the C1 grid's K: the claims that read it keep it where a setting keeps K


def cell_scale(setting: Setting, paper_seeds: int, scale: Scale = PAPER) -> Scale:
    """``scale`` (paper scale) with the cell's seeds explicit, for a claim of ``paper_seeds`` seeds (so every
    measure function honours them)."""
    return dataclasses.replace(scale, seeds=setting.seed_list(paper_seeds))


def cell_context(scale: Scale) -> Context:
    """The experiments' context at a cell's scale (:func:`cell_scale`: its seeds explicit), from which the
    setting's base spec is built (``setting.spec(ctx)``)."""
    return scale.context(len(scale.seeds))


def grid_at(setting: Setting, scale: Scale, cache, encodings=("rope", "ape")):
    """The C1 grid at the setting (its K where the setting keeps K)."""
    from lengthgen.experiments.phenomenon import run_phenomenon

    offsets = setting.offsets or GRID_OFFSETS
    ctx = cell_context(scale)
    return memo(
        cache.runtime,
        ("robustness", setting.name, "phenomenon", offsets, encodings),
        scale,
        lambda: run_phenomenon(ctx, cache, offsets, encodings, base=setting.spec(ctx)),
    )


def pinning_at(setting: Setting, scale: Scale, cache):
    """The grid's APE peak positions at the setting (its K where the setting keeps K)."""
    from lengthgen.experiments.pinning import run_pinning

    offsets = setting.offsets or GRID_OFFSETS
    ctx = cell_context(scale)
    return memo(
        cache.runtime,
        ("robustness", setting.name, "pinning", offsets),
        scale,
        lambda: run_pinning(ctx, cache, offsets, base=setting.spec(ctx)),
    )


def carrier_at(setting: Setting, scale: Scale, cache):
    """The carrier geometry at the setting (the mechanism's K where the setting keeps K)."""
    from lengthgen.experiments.carrier import run_carrier

    offsets = setting.offsets or MECHANISM_OFFSETS
    ctx = cell_context(scale)
    return memo(
        cache.runtime,
        ("robustness", setting.name, "carrier", offsets),
        scale,
        lambda: run_carrier(ctx, cache, offsets, base=setting.spec(ctx)),
    )


def dilution_at(setting: Setting, scale: Scale, cache):
    """The dilution fits at the setting (other K only: the experiment trains the paper's spec)."""
    from lengthgen.experiments.dilution import run_dilution

    if setting.changes_spec:  # run_dilution trains the paper's spec; the catalogue runs it at offsets-far only
        raise ValueError(f"dilution at {setting.name}: the experiment takes other K, not another spec")
    offsets = setting.offsets or MECHANISM_OFFSETS
    ctx = cell_context(scale)
    return memo(
        cache.runtime,
        ("robustness", setting.name, "dilution", offsets),
        scale,
        lambda: run_dilution(ctx, cache, offsets),
    )
