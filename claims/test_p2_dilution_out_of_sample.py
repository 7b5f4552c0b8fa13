"""P2 (prediction, from Corollary 2): the dilution law fitted in range predicts a* out of sample.

Models: the C1 grid's RoPE heads, K in {2, 3}, seeds 0..4 (as C6; no retraining). The fit is C6's: linear
least squares of 1/a* on L - 1 on the seed-mean a*(L) over the scale's evaluation lengths (paper:
12..48; quick: 12..40, as C6 at quick scale), from the grid's own cached evaluations. The prediction
at L in {64, 96, 128} is 1/(a + c (L - 1)); the measured a* there is the seed-mean attention on the target
over the shared evaluation sequences.

Assert (catalogue): at each far L, |measured seed-mean a* - prediction| <= 0.05. The interval of each
check is a seed bootstrap of the whole computation (fit and far mean on resampled seeds). Reported: the
signed error per L, and per seed the error of that seed's own fit on its own a*.

Not reproduced, at both scales, at the far end: the law holds at L = 64 (K = 2 and 3) and for K = 3 at
L = 96, but the measured a* falls below the prediction faster than the law allows, by more than 0.05 at
K = 2, L = 96 and 128 and at K = 3, L = 128. Every seed's own fit misses the same way. The recorded run
(docs/predictions.md, the report) has the errors. The law assumes the competing logits keep the mean they
have in range; beyond L = 48 the head's carrier-only profile revives at offsets about -(75 + K) and
-(100 + K) (local maxima of the rotary kernel, see P1), so the new positions compete more than the in-range
ones and 1/a* grows faster than linearly.

Negative control: the far a* of the same heads under log-length logit scaling (P6's evaluation variant:
logits x log L / log 16), whose attention weights do not follow the law fitted on the unscaled in-range
a*: the prediction must miss it by more than 0.05.
"""

from __future__ import annotations

import dataclasses

import pytest

from lengthgen.report import figure_specs as figures
from lengthgen.experiments import predictions as P

from claims.predictions import VALIDATION_SEEDS, variant
from claims.memo import memo
from claims.run import run_claim
from claims.spec import ClaimSpec, Declared
from claims.support import refute

PAPER_SEEDS = VALIDATION_SEEDS
OFFSETS = (2, 3)  # as C6
TOLERANCE = 0.05  # catalogue: measured seed-mean a* within 0.05 of the prediction
# the far end, both scales: a* falls below the in-range law (kernel revivals at far offsets)
FAR_DECLINE = Declared(
    ("K=2 L=96: *", "K=2 L=128: *", "K=3 L=128: *"),
    "beyond L = 64 the measured a* falls below the law fitted in range (the carrier-only profile "
    "revives at far offsets, so 1/a* grows faster than linearly); L = 64 and K = 3 at L = 96 hold",
    scales=("paper", "quick"),
    gist="a* falls below the law beyond L = 64",
    kind="structural",
    reason="beyond L = 64 the seed-mean a* lies 0.065-0.117 below the law fitted in range: the carrier-only profile "
    "revives at far offsets, beyond the lengths the paper's account covers",
)


def measure(scale, cache) -> P.OutOfSampleResult:
    return memo(
        cache.runtime,
        ("predictions-out-of-sample",),
        scale,
        lambda: P.run_out_of_sample(scale.context(PAPER_SEEDS), cache, OFFSETS, P.FAR_LENGTHS),
    )


def check(claim, result: P.OutOfSampleResult) -> None:
    for offset in result.offsets:
        items = result.items(offset)
        errors = result.errors(items)
        for j, length in enumerate(result.far_lengths):
            claim.check(
                f"K={offset} L={length}: |measured - predicted| seed-mean a*",
                abs(errors[j]),
                "<=",
                TOLERANCE,
                paper="within 0.05 (predicted)",
                source="catalogue-prediction",
                source_note="within 0.05 of the in-range law",
                bootstrap=(items, lambda chosen, j=j: abs(result.errors(chosen)[j])),
                at={"K": offset, "L": length},
            )
            claim.measure(
                f"K={offset} L={length}: signed error measured - predicted (seed-mean)", errors[j], headline=True
            )
            claim.measure(
                f"K={offset} L={length}: per-seed error, each seed's own fit", result.seed_errors(offset, length)
            )
        fit = result.fit(offset)
        claim.measure(f"K={offset}: fit intercept a, slope c (seed-mean a*)", [fit.intercept, fit.slope])


def prediction_figure(result: P.OutOfSampleResult) -> dict:
    lengths = list(result.fit_lengths) + list(result.far_lengths)
    curve = list(range(min(lengths), max(lengths) + 1, 4))
    series = []
    for K in result.offsets:
        series.append(
            figures.series(f"K={K} measured", lengths, per_seed=[a + b for a, b in result.items(K)], style="points")
        )
        series.append(
            figures.series(
                f"K={K} prediction (fit on L <= {max(result.fit_lengths)})",
                curve,
                y=result.predicted(K, curve),
                style="dashed",
            )
        )
    return figures.lines(
        "a* measured against the dilution law fitted in range",
        "evaluation length L",
        "a* (mean attention on the target)",
        series,
        vlines=[(max(result.fit_lengths), "last fitted length")],
        note="points: seed mean, band: min to max over seeds; dashed: 1/(a + c (L-1)) from the fit",
    )


CLAIM = ClaimSpec(
    id="P2",
    title="the dilution law predicts a* out of sample",
    where="Corollary 2",
    statement="the dilution law fitted in range predicts a* out of sample",
    assertion=(
        "K in {2,3}, 5 seeds: fit 1/a* = a + c(L-1) on the seed-mean a*(L) over the paper's lengths (as C6); at L "
        "in {64, 96, 128} the measured seed-mean a* lies within 0.05 of 1/(a + c(L-1)); report the error per L and "
        "per seed"
    ),
    paper_seeds=PAPER_SEEDS,
    measure=measure,
    checks=(check,),
    declared=(FAR_DECLINE,),
    families=("one-layer",),
    schedule=220,
)


@pytest.mark.claim("P2")
def test_dilution_law_predicts_far_target_weight(scale, model_cache, until_decided, claim):
    result = run_claim(CLAIM, claim, scale, model_cache, plan=until_decided)
    claim.choice("fit as C6: 1/a* on L - 1 on the seed-mean a*(L) over the scale's evaluation lengths")
    claim.choice("the C1 grid's RoPE heads, K in {2, 3}, seeds 0..4, no retraining")
    claim.choice("interval: seed bootstrap of fit and far mean together")
    claim.figure("target_weight_out_of_sample", prediction_figure(result))
    claim.verify()


@pytest.mark.control("P2")
def test_dilution_law_predicts_far_target_weight_control(scale, model_cache, control):
    result = measure(scale, model_cache)
    scaled = variant(scale, model_cache, "log-scale", OFFSETS, PAPER_SEEDS)
    refute(
        control,
        scale.describe(PAPER_SEEDS),
        "the far a* of the same heads under log-length logit scaling (P6's variant) against the law fitted "
        "on their unscaled in-range a*: the scaled heads dilute more slowly, so the prediction must miss",
        check,
        dataclasses.replace(result, far_cells=scaled.varied),
    )
