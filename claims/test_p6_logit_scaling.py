"""P6 (prediction, from Corollary 2): dilution comes from the softmax normaliser growing with L, so scaling
the attention logits by log(L)/log(Lmax) for L > Lmax raises the target's weight without moving the
selection.

Models: the C1 grid's RoPE heads (K in {1, 2, 3}, the paper's 8 seeds; no retraining), evaluated at
L in {24, 32, 48, 64, 96, 128} unscaled and with the attention logits multiplied by log(L)/log(16) before
the softmax (``lengthgen/engine/evaluate_variants.py``; factor 1 at L <= 16 and, forced, bit-identical to the
plain evaluation).

Assert (catalogue), over the K x L cells where the unscaled head selects -K (P1): the scaled head selects
-K in every such cell; the seed-mean a*(L) with the scaling > without in every such cell; the seed-mean
accuracy at the longest such L with the scaling >= without, for every K.
Choices: a (K, L) cell counts as "the unscaled head selects -K" when every seed's unscaled head selects
-K there (P1's per-seed cells, all seeds of the cell), and "the scaled head selects -K" likewise for every
seed. The a* and accuracy comparisons are of seed means (recorded as the mean of the per-seed differences,
which is the same number, with its t-interval).

At paper scale 16 cells qualify (K = 1 at L = 96, 128 does not: P1); in all 16 the scaled head selects -K
in every seed and a* rises, most at the longest L; accuracy at the longest cell rises for every K, by little
for K = 1 at L = 64, a close call (its interval contains 0). The recorded run (docs/predictions.md, the
report) has the values.

Negative control: the inverse scaling, logits divided by log(L)/log(16) (flatter attention: more
dilution, not less): the scaled a* falls below the unscaled, so the a* checks must fail.
"""

from __future__ import annotations

import pytest

from lengthgen.report import figure_specs as figures
from lengthgen.experiments.predictions import VariantResult

from claims.predictions import GRID_SEEDS, variant
from claims.run import run_claim
from claims.spec import ClaimSpec
from claims.support import refute

PAPER_SEEDS = GRID_SEEDS


def measure(scale, cache, kind: str = "log-scale") -> VariantResult:
    return variant(scale, cache, kind)


def selecting_cells(result: VariantResult) -> list[tuple[int, int]]:
    """(K, L) cells where every seed's unscaled head selects -K."""
    return [
        (K, L)
        for K in result.offsets
        for L in result.lengths
        if all(s == -K for s in result.values("selected_offset", K, L, varied=False))
    ]


def differences(result: VariantResult, key: str, offset: int, length: int) -> list[float]:
    """Per seed: scaled minus unscaled."""
    return [a - b for a, b in zip(result.values(key, offset, length), result.values(key, offset, length, varied=False))]


def check(claim, result: VariantResult) -> None:
    cells = selecting_cells(result)
    for offset, length in cells:
        claim.check(
            f"K={offset} L={length}: scaled selected offset of every seed",
            [float(s) for s in result.values("selected_offset", offset, length)],
            "==",
            float(-offset),
            reduce="all",
            paper=f"-{offset} (predicted)",
            source="catalogue-prediction",
            source_note="-K kept in every selecting cell",
            at={"K": offset, "L": length},
        )
        claim.check(
            f"K={offset} L={length}: seed-mean a* scaled - unscaled",
            differences(result, "target_weight", offset, length),
            ">",
            0.0,
            paper="> 0 (predicted)",
            source="catalogue-prediction",
            source_note="a* scaled > unscaled",
            at={"K": offset, "L": length},
        )
    for offset in result.offsets:
        lengths = [L for K, L in cells if K == offset]
        if lengths:
            claim.check(
                f"K={offset} L={max(lengths)} (longest selecting -K): seed-mean accuracy scaled - unscaled",
                differences(result, "accuracy", offset, max(lengths)),
                ">=",
                0.0,
                paper=">= 0 (predicted)",
                source="catalogue-prediction",
                source_note="accuracy scaled >= unscaled at the longest selecting L",
                at={"K": offset, "L": max(lengths)},
            )
    claim.measure("K x L cells where every seed's unscaled head selects -K", float(len(cells)))
    longest = max(result.lengths)
    for offset in result.offsets:
        claim.measure(
            f"K={offset} L={longest}: a* scaled - unscaled (per seed)",
            differences(result, "target_weight", offset, longest),
            headline=True,
        )


def weight_figure(result: VariantResult) -> dict:
    series = []
    for K in result.offsets:
        for varied, style in ((False, "dashed"), (True, None)):
            per_seed = [
                [result.values("target_weight", K, L, varied)[i] for L in result.lengths]
                for i in range(len(result.seeds))
            ]
            series.append(
                figures.series(
                    f"K={K} {'scaled' if varied else 'unscaled'}", result.lengths, per_seed=per_seed, style=style
                )
            )
    return figures.lines(
        "a* with and without log-length logit scaling (logits x log L / log 16)",
        "evaluation length L",
        "a* (mean attention on the target)",
        series,
        note="band: min to max over seeds",
    )


CLAIM = ClaimSpec(
    id="P6",
    title="log-length logit scaling raises a*, keeps -K",
    where="Corollary 2",
    statement=(
        "dilution comes from the softmax normaliser growing with L, so scaling the logits by log(L)/log(Lmax) for "
        "L > Lmax raises the target's weight without moving the selection"
    ),
    assertion=(
        "C1 grid RoPE models, L in {24, 32, 48, 64, 96, 128}, over the K x L cells where the unscaled head selects "
        "-K (P1): the scaled head selects -K in every such cell; seed-mean a*(L) with the scaling > without in "
        "every such cell; accuracy at the longest such L with the scaling >= without for every K"
    ),
    paper_seeds=PAPER_SEEDS,
    measure=measure,
    checks=(check,),
    families=("one-layer",),
    schedule=200,
)


@pytest.mark.claim("P6")
def test_log_length_scaling_raises_target_weight(scale, model_cache, until_decided, claim):
    result = run_claim(CLAIM, claim, scale, model_cache, plan=until_decided)
    claim.choice("scaling on the attention logits (before the softmax), factor log(L)/log(16) at L > 16")
    claim.choice("a (K, L) cell 'selects -K' when every seed does (P1's cells); comparisons of seed means")
    claim.figure("target_weight_scaled", weight_figure(result))
    claim.verify()


@pytest.mark.control("P6")
def test_log_length_scaling_raises_target_weight_control(scale, model_cache, control):
    refute(
        control,
        scale.describe(PAPER_SEEDS),
        "the inverse scaling (logits divided by log(L)/log(16): flatter attention, more dilution) in place "
        "of the scaling: the scaled a* falls below the unscaled, so the a* checks must fail",
        check,
        measure(scale, model_cache, "inverse-log-scale"),
    )
