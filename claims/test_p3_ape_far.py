"""P3 (prediction, from Prop. 2): APE stays pinned and at chance at any longer length.

Models: the C1 grid's APE heads (K in {1, 2, 3}, the paper's 8 seeds; no retraining). Their 48-row table
is extended to 128 rows for evaluation at L in {64, 96, 128}: rows 0..47 are the trained table unchanged
(rows 16..47 never got a gradient and hold their initial values), rows 48..127 are the rows the same
seed's initialisation draws for a 128-row table (the init generator continued; ``probes/ape_extension.py``).
So every row past Lmax keeps its initial value, as the catalogue asks.

Assert (catalogue): seed-mean accuracy <= 0.15 at each K and L; the peak of the mean attention lies at an
absolute position < Lmax = 16 in >= 90% of the seed x K x L cells.

At both scales the accuracy stays near chance in every (K, L), and all but a rare cell peak at positions
inside the training range (the exception peaks on an untrained row). The recorded
run (docs/predictions.md, the report) has the values.

Negative control: the grid's RoPE heads in place of the APE heads: they retrieve at the far lengths and
peak at L - 1 - K, far past Lmax, so both kinds of check must fail.
"""

from __future__ import annotations

import pytest

from lengthgen.report import figure_specs as figures
from lengthgen.experiments.predictions import FarResult

from claims.predictions import GRID_SEEDS, far
from claims.run import run_claim
from claims.spec import ClaimSpec
from claims.support import refute

PAPER_SEEDS = GRID_SEEDS
APE_OUT = 0.15  # catalogue: seed-mean accuracy (chance 0.05)
PINNED_SHARE = 0.9  # catalogue: share of seed x K x L cells peaking inside the training range


def measure(scale, cache, encoding: str = "ape") -> FarResult:
    return far(scale, cache, encoding)


def check(claim, result: FarResult) -> None:
    pinned = []
    for offset in result.offsets:
        for length in result.lengths:
            claim.check(
                f"K={offset} L={length}: accuracy",
                result.accuracy(offset, length),
                "<=",
                APE_OUT,
                paper="chance (predicted)",
                source="catalogue-prediction",
                source_note="seed-mean accuracy <= 0.15",
                at={"K": offset, "L": length},
            )
            pinned += [float(p < result.max_len) for p in result.peak_positions(offset, length)]
    claim.check(
        f"share of seed x K x L cells peaking at an absolute position < {result.max_len}",
        pinned,
        ">=",
        PINNED_SHARE,
        paper=">= 90% (predicted)",
        source="catalogue-prediction",
        source_note=">= 90% of cells pinned",
    )
    for offset in result.offsets:
        claim.measure(
            f"K={offset}: peak positions at L = {', '.join(map(str, result.lengths))} (every seed)",
            [p for L in result.lengths for p in result.peak_positions(offset, L)],
        )


def peak_figure(result: FarResult) -> dict:
    return figures.lines(
        "APE: absolute position of the attention peak far beyond the table's trained rows",
        "evaluation length L",
        "peak position",
        [
            figures.series(
                f"K={K}",
                result.lengths,
                per_seed=[[result.peak_positions(K, L)[i] for L in result.lengths] for i in range(len(result.seeds))],
            )
            for K in result.offsets
        ],
        hlines=[(result.max_len, "Lmax")],
        note="band: min to max over seeds",
    )


CLAIM = ClaimSpec(
    id="P3",
    title="APE stays pinned and at chance at any length",
    where="Prop. 2",
    statement="APE stays pinned and at chance at any longer length",
    assertion=(
        "C1 grid APE models (table rows past Lmax keep their initial values): seed-mean accuracy <= 0.15 at L in "
        "{64, 96, 128}; the peak lies at an absolute position < Lmax in >= 90% of seed x K x L cells"
    ),
    paper_seeds=PAPER_SEEDS,
    measure=measure,
    checks=(check,),
    families=("one-layer",),
    reads_ape=True,
    schedule=190,
)


@pytest.mark.claim("P3")
def test_ape_stays_pinned_and_at_chance_far_out(scale, model_cache, until_decided, claim):
    result = run_claim(CLAIM, claim, scale, model_cache, plan=until_decided)
    claim.choice(
        "APE table extended to 128 rows: trained rows unchanged, rows 48..127 = the seed's own initial rows "
        "(the init generator continued)"
    )
    claim.choice("peak = argmax of the mean attention over absolute positions (as C8)")
    claim.figure("ape_peak_far", peak_figure(result))
    claim.verify()


@pytest.mark.control("P3")
def test_ape_stays_pinned_and_at_chance_far_out_control(scale, model_cache, control):
    refute(
        control,
        scale.describe(PAPER_SEEDS),
        "the grid's RoPE heads in place of the APE heads: they retrieve far out and peak at L-1-K, so the "
        "accuracy and pinning checks must fail",
        check,
        measure(scale, model_cache).replaced(measure(scale, model_cache, "rope")),
    )
