"""P4 (prediction, from Lemmas 1 and 2): position interpolation at inference (Chen et al. 2023) moves the
RoPE head's selected offset to -K*L/Lmax and breaks retrieval.

Models: the C1 grid's RoPE heads (the paper's 8 seeds; no retraining). At evaluation length L > Lmax = 16
the positions of the query and of every key are multiplied by 16/L before the rotation (fractional
angles; ``lengthgen/engine/evaluate_variants.py``, checked against a plain per-position reference and, at factor 1,
equal to the plain evaluation bit for bit). The head's logit depends on the scaled offset (t - n) 16/L, so
its learned preference for offset -K lands on the token at -K L/16.

Assert (catalogue): K in {2, 3}, L in {32, 48} (where -K L/16 is a whole offset: -4, -6, -6, -9): the
selected offset equals -K L/16 in >= 90% of the seed x K x L cells; the seed-mean accuracy <= 0.15 in each
(K, L). K = 1 is reported beside them without a verdict (the paper states its pre-rotated carrier for
K >= 2 only).

At both scales every seed selects exactly -K L/16 (-4, -6, -6, -9) in all 32 judged cells, and keeps doing
so up to L = 128 (the figure), with accuracy near chance. K = 1 (no verdict) does not move: it selects -1
in every seed and keeps much of its accuracy: its profile peaks at offset 0 (carriers centred at 0, C20),
and the key at -1, mapped to -16/L, is still the non-self offset nearest that peak. The recorded run
(docs/predictions.md, the report) has the values.

Negative control: the same cells without interpolation (factor 1, i.e. the plain evaluation): the head
selects -K, not -K L/16, and retrieves, so both kinds of check must fail.
"""

from __future__ import annotations

import pytest

from lengthgen.report import figure_specs as figures
from lengthgen.experiments.common import mean
from lengthgen.experiments.predictions import INTERPOLATION_LENGTHS, VariantResult

from claims.predictions import GRID_SEEDS, variant
from claims.run import run_claim
from claims.spec import ClaimSpec
from claims.support import refute

PAPER_SEEDS = GRID_SEEDS
JUDGED_OFFSETS = (2, 3)  # catalogue: K >= 2 judged; K = 1 reported
MOVED_SHARE = 0.9  # catalogue: share of cells selecting -K L/16
BROKEN = 0.15  # catalogue: seed-mean accuracy under interpolation


def measure(scale, cache, kind: str = "interpolate") -> VariantResult:
    return variant(scale, cache, kind)


def predicted_offset(offset: int, length: int, max_len: int) -> float:
    return -offset * length / max_len


def check(claim, result: VariantResult) -> None:
    moved = []
    for offset in JUDGED_OFFSETS:
        for length in INTERPOLATION_LENGTHS:
            target = predicted_offset(offset, length, result.max_len)
            moved += [float(s == target) for s in result.values("selected_offset", offset, length)]
            claim.check(
                f"K={offset} L={length}: accuracy under interpolation",
                result.values("accuracy", offset, length),
                "<=",
                BROKEN,
                paper="broken (predicted)",
                source="catalogue-prediction",
                source_note="seed-mean accuracy <= 0.15",
                at={"K": offset, "L": length},
            )
    claim.check(
        "share of seed x K x L cells (K = 2, 3; L = 32, 48) selecting -K L/16",
        moved,
        ">=",
        MOVED_SHARE,
        paper=">= 90% (predicted)",
        source="catalogue-prediction",
        source_note=">= 90% of cells at -K L/16",
    )
    for offset in result.offsets:
        for length in INTERPOLATION_LENGTHS:
            claim.measure(
                f"K={offset} L={length}: selected offset under interpolation (every seed; -K L/16 = "
                f"{predicted_offset(offset, length, result.max_len):g})",
                result.values("selected_offset", offset, length),
                headline=offset == 2 and length == 48,
            )
    for length in INTERPOLATION_LENGTHS:
        claim.measure(
            f"K=1 L={length}: accuracy under interpolation (reported, no verdict)", result.values("accuracy", 1, length)
        )


def offset_figure(result: VariantResult) -> dict:
    lengths = [L for L in result.lengths if L > result.max_len]
    series = []
    for K in result.offsets:
        series.append(
            figures.series(
                f"K={K} interpolated",
                lengths,
                per_seed=[
                    [result.values("selected_offset", K, L)[i] for L in lengths] for i in range(len(result.seeds))
                ],
            )
        )
        predicted = [predicted_offset(K, L, result.max_len) for L in lengths]
        series.append(figures.series(f"K={K}: -K L/16", lengths, y=predicted, style="dashed"))
    return figures.lines(
        "Selected offset under position interpolation (positions x 16/L)",
        "evaluation length L",
        "selected offset t - n",
        series,
        note="band: min to max over seeds; dashed: the prediction",
    )


CLAIM = ClaimSpec(
    id="P4",
    title="position interpolation moves the offset to -K L/16",
    where="Lemma 1, Lemma 2",
    statement=(
        "position interpolation at inference (positions scaled by Lmax/L, Chen et al. 2023) moves the selected "
        "token offset to -K*L/Lmax and breaks retrieval"
    ),
    assertion=(
        "C1 grid RoPE models, K in {2,3} (the paper states its pre-rotated carrier for K >= 2 only; report K = 1 "
        "beside it without a verdict), L in {32, 48}, positions of the query and keys multiplied by 16/L: selected "
        "offset equals -K*L/16 in >= 90% of seed x K x L cells; seed-mean accuracy <= 0.15"
    ),
    paper_seeds=PAPER_SEEDS,
    measure=measure,
    checks=(check,),
    families=("one-layer",),
    schedule=210,
)


@pytest.mark.claim("P4")
def test_position_interpolation_moves_the_selected_offset(scale, model_cache, until_decided, claim):
    result = run_claim(CLAIM, claim, scale, model_cache, plan=until_decided)
    claim.choice("interpolation: query and key positions multiplied by 16/L at L > 16, fractional rotation angles")
    claim.choice("a cell selects -K L/16 when its argmax offset equals it exactly")
    claim.figure("selected_offset_interpolated", offset_figure(result))
    claim.note(
        "accuracy without interpolation at the same cells: "
        + ", ".join(
            f"K={K} L={L}: {mean(result.values('accuracy', K, L, varied=False)):.3f}"
            for K in result.offsets
            for L in INTERPOLATION_LENGTHS
        )
    )
    claim.verify()


@pytest.mark.control("P4")
def test_position_interpolation_moves_the_selected_offset_control(scale, model_cache, control):
    refute(
        control,
        scale.describe(PAPER_SEEDS),
        "interpolation factor 1 (no interpolation: the plain evaluation of the same heads and cells): the "
        "head selects -K and retrieves, so 'selected offset = -K L/16' and 'accuracy <= 0.15' must fail",
        check,
        measure(scale, model_cache, "plain"),
    )
