"""P5 (prediction, from Sec. 2, positional selection): without a positional encoding (NoPE) a one-layer head
cannot select an offset, even in distribution.

Models: NoPE heads trained exactly as C1 (the paper's protocol with the encoding "nope": no position enters
the head at all; K in {1, 2, 3}, seeds 0..4; 15 new models), evaluated at the scale's evaluation lengths
(paper: 12..48; quick: 12..40), in range included. Without positions the logits depend on the tokens only,
so the target s[L-1-K] cannot be told from any other token of the sequence.

Assert (catalogue): seed-mean accuracy <= 0.35 at every (K, L).

At both scales every (K, L) cell stays below 0.35; the recorded run (docs/predictions.md, the report) has
the values.

Negative control: the grid's RoPE heads (the same K and seeds, trained the same way) in place of the NoPE
heads: they retrieve, so every check must fail.
"""

from __future__ import annotations

import pytest

from lengthgen.report import figure_specs as figures
from lengthgen.experiments.common import column_means
from lengthgen.experiments.phenomenon import PhenomenonResult
from lengthgen.experiments.predictions import run_nope

from claims.predictions import OFFSETS, VALIDATION_SEEDS
from claims.memo import memo
from claims.run import run_claim
from claims.costs import OWN_MODELS_COST
from claims.spec import ClaimSpec, LeftOut
from claims.support import refute

PAPER_SEEDS = VALIDATION_SEEDS
CANNOT_SELECT = 0.35  # catalogue: seed-mean accuracy at every L (chance 0.05)


def measure(scale, cache, encoding: str = "nope") -> PhenomenonResult:
    return memo(
        cache.runtime,
        ("predictions-nope", encoding),
        scale,
        lambda: run_nope(scale.context(PAPER_SEEDS), cache, OFFSETS, encoding),
    )


def check(claim, result: PhenomenonResult) -> None:
    encoding = result.encodings[0]
    for offset in result.offsets:
        for length in result.lengths:
            claim.check(
                f"K={offset} L={length}: accuracy",
                result.accuracy(encoding, offset, length),
                "<=",
                CANNOT_SELECT,
                paper="cannot select (predicted)",
                source="catalogue-prediction",
                source_note="seed-mean accuracy <= 0.35 at every L",
                at={"K": offset, "L": length},
            )
    in_range = [L for L in result.lengths if L <= result.max_len]
    claim.measure(
        f"accuracy in range (L = {', '.join(map(str, in_range))}; mean over K and L, per seed)",
        column_means([result.accuracy(encoding, K, L) for K in result.offsets for L in in_range]),
        headline=True,
    )


def accuracy_figure(result: PhenomenonResult) -> dict:
    encoding = result.encodings[0]
    return figures.lines(
        "NoPE accuracy against length",
        "evaluation length L",
        "accuracy",
        [
            figures.series(
                f"K={K}",
                result.lengths,
                per_seed=[[run.at(L).accuracy for L in result.lengths] for run in result.runs[encoding, K]],
            )
            for K in result.offsets
        ],
        hlines=[(0.05, "chance"), (CANNOT_SELECT, "threshold")],
        vlines=[(result.max_len, "longest training length")],
    )


CLAIM = ClaimSpec(
    id="P5",
    title="NoPE cannot select an offset",
    where="Sec. 2 (positional selection)",
    statement="without a positional encoding (NoPE) a one-layer head cannot select an offset, even in distribution",
    assertion=(
        "NoPE head trained as C1, K in {1,2,3}, 5 seeds: seed-mean accuracy <= 0.35 at every L, in range included"
    ),
    paper_seeds=PAPER_SEEDS,
    measure=measure,
    checks=(check,),
    families=("one-layer",),
    left_out=(LeftOut("lengths=per-batch", OWN_MODELS_COST), LeftOut("init=flax", OWN_MODELS_COST)),
    schedule=50,
)


@pytest.mark.claim("P5")
def test_nope_cannot_select_an_offset(scale, model_cache, until_decided, claim):
    result = run_claim(CLAIM, claim, scale, model_cache, plan=until_decided)
    claim.choice(
        "NoPE = the paper's one-layer head with no positional encoding, trained as C1 (same data, steps, init)"
    )
    claim.figure("nope_accuracy", accuracy_figure(result))
    claim.verify()


@pytest.mark.control("P5")
def test_nope_cannot_select_an_offset_control(scale, model_cache, control):
    refute(
        control,
        scale.describe(PAPER_SEEDS),
        "the grid's RoPE heads (same K and seeds, trained the same way) in place of the NoPE heads: they "
        "retrieve, so every accuracy check must fail",
        check,
        measure(scale, model_cache, "rope"),
    )
