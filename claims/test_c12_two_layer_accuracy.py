"""C12 (Sec. 5.2): in a two-layer, four-head transformer (MLP, LayerNorm) trained on a full-sequence shift
task, RoPE generalizes and APE degrades beyond the training range.

Protocol (``lengthgen/experiments/two_layer.py``; the paper gives no sizes): a causal 2-layer 4-head
transformer, MLP 4d, pre-LayerNorm, trained on the shift task (every position t >= K = 2 predicts s[t-2])
with lengths uniform in [8, 16], Adam lr 1e-3, batch 32, 300 steps, seeds 0..4 at both scales (quick:
100 steps, 256 sequences, L <= 40; why, in ``lengthgen/scale.py``). Accuracy beyond the training range =
accuracy over every position t >= 16 (0-indexed; never trained) of the evaluation sequences, up to the
longest evaluation length (48; quick 40), per seed; per length L > 16 (over positions 16..L-1) it is
reported.

Two width variants, each with its own verdict (test ids ``d64`` / ``d96``):

- d = 64 (heads of 16 dimensions, 8 rotary frequencies) was the first width tried. It failed C13 in the
  development run, and d = 96 was chosen *after* seeing that; d = 64 is kept as a variant, not replaced.
  Its RoPE model generalizes only partly beyond the range, so RoPE minus APE falls below the 0.7 margin
  in some seeds at both scales. Declared not reproduced at both scales, through that check only (APE
  near chance and both fitting the range hold).
- d = 96 (heads of 24 dimensions, 12 frequencies), chosen after seeing d = 64: RoPE is near-perfect beyond
  the range in every seed, APE near chance.

The recorded run (docs/findings.md, the report) has the per-seed values of both widths.

Assert (catalogue: "RoPE clearly above APE (state the margin); APE near chance there"):
- per seed, RoPE's beyond-range accuracy exceeds APE's by at least MARGIN = 0.7: the gap C1's
  thresholds imply for the one-layer head (RoPE >= 0.85 at the far end, APE <= 0.15);
- APE near chance beyond the range: its beyond-range accuracy, mean over seeds, <= 0.15 (C1's "near
  chance"; chance = 0.05). The catalogue asks for "near chance there", on the positions beyond 16, so the
  check pools them; the per-length values (over 4 positions at L = 20, so noisier) are reported;
- both fit the training range (mean accuracy >= 0.95 at L <= 16, C1's in-range threshold), so APE's
  failure is a degradation out of range, not a failure to learn.

Negative control (``test_two_layer_control``, per variant): the same checks on the same trained models with
the roles swapped (APE's transformers read as RoPE's and RoPE's as APE's). The margin is then negative
and "APE" (RoPE's model) is far above chance, so the checks must fail.
"""

from __future__ import annotations

import pytest

from claims.run import run_claim
from claims.costs import LONGER_COST
from claims.spec import ClaimSpec, Declared, LeftOut
from claims.support import refute
from claims.two_layer import (
    FIRST_WIDTH,
    PAPER_SEEDS,
    SWAP_WHY,
    WIDTHS,
    WIDTH_IDS,
    choices,
    measure,
    run_scale,
    swapped,
    width_variants,
)
from lengthgen.report import figure_specs as figures
from lengthgen.experiments.two_layer import TwoLayerResult

MARGIN = 0.7  # RoPE minus APE beyond-range accuracy, per seed (C1's 0.85 - 0.15)
APE_OUT = 0.15  # "near chance" beyond the training range, as in C1 (chance 1/m = 0.05)
IN_RANGE = 0.95  # both encodings fit the training range, as in C1

MARGIN_CHECK = "RoPE minus APE accuracy beyond the training range"  # the start of the margin check's name
FIRST_WIDTH_WHY = (
    f"at d = {FIRST_WIDTH} (8 rotary frequencies per head) the RoPE transformer generalizes only "
    "partly beyond the training range (the 8-frequency rotary kernel nearly repeats 19 positions "
    "from the target), so RoPE is not 0.7 above APE in every seed"
)


def check(claim, result: TwoLayerResult) -> None:
    """Every check and measure of C12 on a two-layer result (a pure function of it)."""
    rope, ape = result.beyond_range_accuracy("rope"), result.beyond_range_accuracy("ape")
    claim.check(
        f"{MARGIN_CHECK} (positions >= {result.max_len}), every seed",
        [r - a for r, a in zip(rope, ape)],
        ">=",
        MARGIN,
        reduce="all",
        paper="RoPE generalizes, APE degrades",
        source="suite-reading",
        source_note='"RoPE generalizes, APE degrades" read as C1\'s 0.85 - 0.15 = 0.7 per seed',
    )
    claim.check(
        f"APE accuracy beyond the training range (positions >= {result.max_len}, mean over seeds)",
        ape,
        "<=",
        APE_OUT,
        paper="degrades (near chance 0.05)",
        source="suite-reading",
        source_note='"degrades" read as near chance, <= 1/m + 0.10',
        at={"encoding": "ape"},
    )
    claim.measure(
        f"RoPE accuracy beyond the training range (positions >= {result.max_len}, per seed)", rope, headline=True
    )
    claim.measure(
        f"APE accuracy beyond the training range (positions >= {result.max_len}, per seed)", ape, headline=True
    )
    for length in result.lengths:
        if length <= result.max_len:
            for encoding in result.encodings:
                claim.check(
                    f"{encoding.upper()} L={length}: accuracy (positions {result.offset}..{length - 1})",
                    result.accuracy(encoding, length),
                    ">=",
                    IN_RANGE,
                    paper="fits the training range",
                    source="suite-reading",
                    source_note="both fit the training range, read as C1's >= 0.95",
                    at={"encoding": encoding, "L": length},
                )
        else:
            for encoding in result.encodings:
                claim.measure(
                    f"{encoding.upper()} L={length}: accuracy on positions {result.max_len}..{length - 1}",
                    result.beyond_range_accuracy(encoding, length),
                )


FIRST_WIDTH_MARGIN = Declared(  # d = 64's margin
    (f"{MARGIN_CHECK}*",),
    FIRST_WIDTH_WHY,
    scales=("paper", "quick"),
    gist="RoPE not 0.7 above APE at d = 64",
    kind="suite-reading",
    reason='d = 64: RoPE beats APE beyond the range by 0.52-0.80 per seed, so "RoPE generalizes, APE degrades" '
    "holds; the 0.7 per-seed margin read from C1 does not",
)
CLAIM = ClaimSpec(
    id="C12",
    quote=(
        "In a two-layer, four-head transformer with MLP and LayerNorm trained on a full-sequence shift task, all "
        "three findings transfer: RoPE generalizes while APE degrades out of range",
    ),
    title="2-layer transformer: RoPE generalizes, APE degrades",
    where="Sec. 5.2",
    statement=(
        "in a 2-layer, 4-head transformer (MLP, LayerNorm) on a full-sequence shift task, RoPE generalizes and APE "
        "degrades out of range"
    ),
    paper_value="RoPE generalizes, APE degrades",
    assertion="RoPE accuracy on positions beyond 16 clearly above APE's (state the margin); APE near chance there",
    paper_seeds=PAPER_SEEDS,
    measure=measure,
    checks=(check,),
    run_scale=run_scale,
    families=("two-layer",),
    reads_ape=True,
    variants=width_variants((FIRST_WIDTH_MARGIN,)),
    settings=("fresh-seeds",),
    left_out=(LeftOut("two-layer-steps=900", LONGER_COST),),
    schedule=30,
)


def accuracy_figure(result: TwoLayerResult) -> dict:
    width = len(result.runs["rope"][0].eval.position_accuracy)
    positions = list(range(result.offset, width))
    return figures.lines(
        f"Two-layer transformer (d = {result.spec.model.d}), shift task K = {result.offset}: accuracy at each position",
        "position t (0-indexed)",
        "accuracy",
        [
            figures.series(
                "RoPE" if encoding == "rope" else "APE",
                positions,
                per_seed=[[run.eval.position_accuracy[t] for t in positions] for run in result.runs[encoding]],
            )
            for encoding in result.encodings
        ],
        hlines=[(0.05, "chance")],
        vlines=[(result.max_len - 0.5, "last trained position")],
    )


@pytest.mark.claim("C12")
@pytest.mark.parametrize("width", WIDTHS, ids=WIDTH_IDS)
def test_two_layer_rope_generalizes_ape_degrades(scale, model_cache, until_decided, claim, width):
    result = run_claim(CLAIM.variant(f"d{width}"), claim, scale, model_cache, plan=until_decided)
    for text in choices(width):
        claim.choice(text)
    for encoding in result.encodings:
        seconds = result.runs[encoding][0].model.seconds
        claim.note(
            f"{encoding} training: {seconds:.1f} s per model when it was trained (ensemble pass wall time / "
            "members, stored with the cached model)"
        )
    claim.figure("two_layer_accuracy_by_position", accuracy_figure(result))
    claim.verify()


@pytest.mark.control("C12")
@pytest.mark.parametrize("width", WIDTHS, ids=WIDTH_IDS)
def test_two_layer_control(scale, model_cache, control, width):
    refute(
        control, run_scale(scale).describe(PAPER_SEEDS), SWAP_WHY, check, swapped(measure(scale, model_cache, width))
    )
