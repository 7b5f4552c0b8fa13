"""What the prediction tests (P1-P6) share: the memoised experiments on the C1 grid's heads.

Every prediction but P5 evaluates the C1 grid's trained heads anew (no retraining): the models come from
the cache under the grid's own keys, the evaluations under their own (plain ones under the plain key, the
longer APE table and the inference variants under theirs). The far lengths are evaluated with the
scale's number of sequences (4096 at paper scale, 1024 at quick) at both scales; only the steps and the
sequences differ at quick scale (the far lengths are the point of the predictions).
"""

from __future__ import annotations

from lengthgen.experiments import predictions as P
from lengthgen.scale import Scale

from claims.memo import memo

GRID_SEEDS = 8  # the C1 grid's seeds (P1, P3, P4, P6 extend C1 / C3 / C8)
VALIDATION_SEEDS = 5  # the validation study's seeds (P2 extends C6; P5 trains as C1 with 5 seeds)
OFFSETS = (1, 2, 3)


def far(scale: Scale, cache, encoding: str, seeds: int = GRID_SEEDS) -> P.FarResult:
    """The grid's heads of ``encoding`` at L in {64, 96, 128} (APE: the longer table)."""
    return memo(
        cache.runtime,
        ("predictions-far", encoding, seeds),
        scale,
        lambda: P.run_far(scale.context(seeds), cache, encoding, OFFSETS, P.FAR_LENGTHS),
    )


def variant(scale: Scale, cache, kind: str, offsets=OFFSETS, seeds: int = GRID_SEEDS) -> P.VariantResult:
    """The grid's RoPE heads, plain and under the inference variant ``kind``, at P6's lengths."""
    return memo(
        cache.runtime,
        ("predictions-variant", kind, tuple(offsets), seeds),
        scale,
        lambda: P.run_variant(scale.context(seeds), cache, kind, offsets, P.SCALING_LENGTHS),
    )
