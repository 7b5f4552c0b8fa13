"""Experiment results shared by the mechanism claims (C4-C7, C11, C14, C20), memoised per process.

C4, C5, C6, C7 and C20 read the RoPE models of the C1 grid (``paper_spec(ctx, task={"offset": K})``,
seeds 0..4: the paper's validation study uses 5 seeds), so they train nothing the C1 test does not; C11
and C14 train the linear heads and the other rotary bases. The negative controls read the same results
(C4, C5: their untrained initialisations; C20: the K = 2 heads; C7: the weight of the non-target
positions) or the C1 grid's APE heads (C6), so they train nothing either.
"""

from __future__ import annotations

from lengthgen.report import figure_specs as figures
from lengthgen.scale import Scale

from claims.memo import memo

VALIDATION_SEEDS = 5  # the paper: "5 seeds for the validation study (Table 2, Figs. 2-3)"
MECHANISM_OFFSETS = (2, 3)  # the paper states the mechanism claims for K >= 2 and treats K = 1 apart
GRID_MODELS = f"models: the C1 grid's RoPE heads (seeds 0..{VALIDATION_SEEDS - 1}), no extra training"  # a choice


def carrier_result(scale: Scale, cache):
    """Carrier geometry (and accuracy) of the grid's RoPE heads, K in {1, 2, 3} (C4, C5, C20)."""
    from lengthgen.experiments.carrier import run_carrier

    return memo(
        cache.runtime, ("carrier",), scale, lambda: run_carrier(scale.context(VALIDATION_SEEDS), cache, (1, 2, 3))
    )


def dilution_result(scale: Scale, cache, encoding: str = "rope"):
    """a*(L), the dilution fits and the margins of the grid's RoPE heads, K in {2, 3} (C6, C7);
    ``encoding="ape"``: the grid's APE heads, a*(L) and fits only (C6's negative control)."""
    from lengthgen.experiments.dilution import run_dilution

    return memo(
        cache.runtime,
        ("dilution", encoding),
        scale,
        lambda: run_dilution(scale.context(VALIDATION_SEEDS), cache, MECHANISM_OFFSETS, encoding=encoding),
    )


def profile_figure(result, offsets, title: str) -> dict:
    """phi_c(delta) / max abs phi_c per seed against delta, one band per K."""
    deltas = list(range(-(result.span - 1), 1))
    return figures.lines(
        title,
        "offset delta = t - n",
        "phi_c(delta) / max abs phi_c",
        [
            figures.series(
                f"K={K}",
                deltas,
                per_seed=[_normalised(r.trained.profile) for r in result.of(K)],
            )
            for K in offsets
        ],
        vlines=[(-K, f"-K = -{K}") for K in offsets],
    )


def _normalised(profile) -> list[float]:
    top = max(abs(v) for v in profile)
    return [v / top for v in profile]
