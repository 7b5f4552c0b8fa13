"""P1 (prediction, from Lemma 1): the RoPE head's selected offset stays -K far beyond the evaluation range.

Models: the C1 grid's RoPE heads (K in {1, 2, 3}, the paper's 8 seeds; no retraining), evaluated at
L in {64, 96, 128} on the shared evaluation sequences (4096 per length at paper scale, 1024 at quick).
The selected offset is the argmax of the mean attention relative to the query, as in C3.

Assert (catalogue): the selected offset is -K in every seed x length cell at L in {64, 96, 128}; recorded
per K and L (every seed must select -K) and as the fraction of cells.

Not reproduced, at both scales, for K = 1 at L >= 96 (the K = 2 and K = 3 cells all hold): at L = 96 some
seeds select -76, at L = 128 every seed selects -101. These are far offsets the head never saw in
training: the rotary kernel g(s) has local maxima at s = 76 and 101 (g/g(0) = 0.58, below its in-range
values), and the learned carrier-only profile of a K = 1 head, whose carriers are centred at 0 (C20), makes
them revivals that reach the target's logit (phi_c at -101 slightly above phi_c at -1). For K >= 2 the
revivals (at about -(100 + K) and -(75 + K)) stay below the target's peak, so -K holds there; they are
what makes P2 fail. The fraction of cells selecting -K falls below 1 accordingly. The recorded run
(docs/predictions.md, the report) has the values.

Negative control: the grid's APE heads in place of the RoPE heads (their table extended to 128 rows with
the seed's own initial rows, ``probes/ape_extension.py``): an APE head's peak stays at an absolute position
inside the training range, so no cell selects -K.
"""

from __future__ import annotations

import pytest

from lengthgen.report import figure_specs as figures
from lengthgen.experiments.common import mean
from lengthgen.experiments.predictions import FarResult

from claims.predictions import GRID_SEEDS, far
from claims.run import run_claim
from claims.spec import ClaimSpec, Declared
from claims.support import refute

PAPER_SEEDS = GRID_SEEDS
# K = 1 far out: the kernel revivals at -76 and -101 outdo the target (both scales)
FAR_REVIVAL = Declared(
    ("K=1 L=96: *", "K=1 L=128: *", "fraction of seed x length cells selecting -K"),
    "a K = 1 head (carriers centred at 0) selects a far revival of the rotary kernel (-76, -101) "
    "instead of -1 at L >= 96; every K = 2, 3 cell selects -K",
    scales=("paper", "quick"),
    gist="K = 1 selects a kernel revival far out",
    kind="structural",
    reason="every seed's K = 1 head selects -101 at L = 128 and 2 of 8 select -76 at L = 96: a far revival of the "
    "rotary kernel, beyond the lengths the paper's account covers",
)


def measure(scale, cache, encoding: str = "rope") -> FarResult:
    return far(scale, cache, encoding)


def check(claim, result: FarResult) -> None:
    hits = []
    for offset in result.offsets:
        for length in result.lengths:
            selected = result.selected_offsets(offset, length)
            hits += [float(s == -offset) for s in selected]
            claim.check(
                f"K={offset} L={length}: selected offset of every seed",
                [float(s) for s in selected],
                "==",
                float(-offset),
                reduce="all",
                paper=f"-{offset} (predicted)",
                source="catalogue-prediction",
                source_note="selected offset -K at L = 64, 96, 128",
                at={"K": offset, "L": length},
            )
    claim.check(
        "fraction of seed x length cells selecting -K",
        sum(hits) / len(hits),
        "==",
        1.0,
        paper="100% (predicted)",
        source="catalogue-prediction",
        source_note="100% of cells",
    )
    for offset in result.offsets:
        claim.measure(
            f"K={offset}: accuracy at L = {', '.join(map(str, result.lengths))} (mean over L, per seed)",
            [mean(v) for v in zip(*[result.accuracy(offset, L) for L in result.lengths])],
            headline=True,
        )


def selection_figure(result: FarResult) -> dict:
    return figures.lines(
        "Selected offset far beyond the training range (RoPE)",
        "evaluation length L",
        "selected offset t - n",
        [
            figures.series(
                f"K={K}",
                result.lengths,
                per_seed=[[result.selected_offsets(K, L)[i] for L in result.lengths] for i in range(len(result.seeds))],
            )
            for K in result.offsets
        ],
        hlines=[(-K, f"-{K}") for K in result.offsets],
        note="band: min to max over seeds",
    )


CLAIM = ClaimSpec(
    id="P1",
    title="selected offset stays -K far beyond range",
    where="Lemma 1",
    statement="the selected offset stays -K far beyond the evaluation range",
    assertion=(
        "C1 grid RoPE models, K in {1,2,3}, 8 seeds: selected offset -K in every seed x length cell at L in {64, "
        "96, 128}"
    ),
    paper_seeds=PAPER_SEEDS,
    measure=measure,
    checks=(check,),
    declared=(FAR_REVIVAL,),
    families=("one-layer",),
    schedule=180,
)


@pytest.mark.claim("P1")
def test_selected_offset_stays_at_target_far_out(scale, model_cache, until_decided, claim):
    result = run_claim(CLAIM, claim, scale, model_cache, plan=until_decided)
    claim.choice("the C1 grid's RoPE heads, no retraining; far lengths 64, 96, 128 with the scale's sequences")
    claim.choice("selected offset = argmax of the mean attention relative to the query (as C3)")
    claim.figure("selected_offset_far", selection_figure(result))
    claim.verify()


@pytest.mark.control("P1")
def test_selected_offset_stays_at_target_far_out_control(scale, model_cache, control):
    refute(
        control,
        scale.describe(PAPER_SEEDS),
        "the grid's APE heads (table extended with the seed's initial rows) in place of the RoPE heads: "
        "an APE head peaks at an absolute position inside the training range, never at -K, so every cell "
        "must fail",
        check,
        measure(scale, model_cache).replaced(measure(scale, model_cache, "ape")),
    )
