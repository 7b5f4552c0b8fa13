"""The C1 grid (RoPE and APE heads, K in {1, 2, 3}, the paper's 8 seeds), memoised per process.

C1 and C3 measure it; C8's control reads its RoPE heads; the ``phenomenon`` fixture (claims/conftest.py)
returns it. One memo key, so each process evaluates the grid once at a scale.
"""

from __future__ import annotations

from lengthgen.scale import Scale

from claims.memo import memo

GRID_SEEDS = 8  # the paper: 8 seeds for the phenomenon (C1, C3, C8)


def phenomenon_result(scale: Scale, cache):
    """The grid at ``scale`` (its seeds: ``scale.seed_list(GRID_SEEDS)``, so explicit seeds are honoured)."""
    from lengthgen.experiments.phenomenon import run_phenomenon

    return memo(cache.runtime, ("phenomenon",), scale, lambda: run_phenomenon(scale.context(GRID_SEEDS), cache))
