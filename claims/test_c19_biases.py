"""C19 (Sec. 5.1): the account is not RoPE-specific: ALiBi and a T5-style learned relative bias as
encodings of the one-layer head, against rotary.

Protocol: the paper's one-layer head (d = 64, m = 20, lengths [8, 16], Adam 1e-3, batch 256, 4000 steps)
with the positional encoding replaced: T5 bias (``encodings/t5.py``: a learned scalar per distance bucket
and head, T5's causal bucketing with 32 buckets and max distance 128 -- distances 0..15 exact, 16..127 in
16 log-spaced buckets -- N(0, d^-1/2) init) or ALiBi (``encodings/alibi.py``: fixed penalty -slope * distance
with slope 1/2 for the one head, the steepest of ALiBi's 8-head set). K in {1, 2, 3}, seeds 0..4 (the
paper's validation-study count), evaluated at the paper's lengths; the RoPE rows are the C1 grid's models.

Two tests per scheme:

- ``test_selected_offset_is_length_invariant`` is the catalogue's assertion: for every K, seed and length
  L > 16, the selected offset (argmax of the mean attention, relative to the query) equals the seed's
  selected offset at L = 16, the longest training length. In- and out-of-range accuracy are reported.
- ``test_selects_the_target_like_rope`` reads "as for RoPE" as C3 does for RoPE: the selected offset is
  the target -K in every seed x length cell.

Measured at paper scale (5 seeds, 4096 sequences): both schemes are length-invariant in every cell. T5
selects -K everywhere; its accuracy is 1.00 in range and decays beyond it (mean over K: 0.94 at L = 20,
0.39 at L = 48, against RoPE's 0.82 / 0.99 / 0.96 for K = 1 / 2 / 3 at L = 48). The learned table
explains it: the target's bucket ends near +0.9, the trained non-target distances 0..15 near -1, while
the never-trained buckets of distances 16..47 keep their N(0, 1/8) initial values, so beyond the
training range 32 positions compete at about 0 (above the trained non-targets): the peak stays at -K,
the mass on it is diluted. That the check has teeth: in a 200-step development run (seeds 0, 1) one T5
seed for K = 2 and one for K = 3 moved its peak to -19/-20 at L >= 20 (an untrained bucket drawn above a
barely trained target). ALiBi cannot prefer offset -K for K >= 2: with no positional term in the queries
and keys the content logits cannot tell positions apart and the fixed monotone penalty always favours
the nearest tokens; the head suppresses its own position and selects -1 at every length and for every K.
K = 1 is solved at every length (0.98); K = 2 and K = 3 stay near chance even in distribution (0.10 and
0.07). ``test_selects_the_target_like_rope[alibi]`` is therefore a strict xfail at both scales with the
measured values in its reason.
"""

from __future__ import annotations

import dataclasses

import pytest

from lengthgen import figures
from lengthgen.experiments.biases import ENCODINGS, NAMES, BiasesResult, run_biases

from claims.support import memo

PAPER_SEEDS = 5  # the paper's validation-study count; RoPE seeds 0..4 are the C1 grid's
QUICK_SEEDS = 3  # quick budget (the assertions are per cell, "all", so fewer seeds loosen nothing)
OFFSETS = (1, 2, 3)
BIAS_SCHEMES = ("t5", "alibi")

ALIBI_NOT_REPRODUCED = ("ALiBi K=2 *", "ALiBi K=3 *")  # K = 1 is solved and selects -1
ALIBI_WHY = ("ALiBi's fixed monotone penalty favours the nearest token: a one-layer ALiBi head cannot prefer "
             "offset -K for K >= 2 and selects -1")

CHOICES = [
    "ALiBi slopes fixed at 2^-h for head h = 1..H (the H steepest of ALiBi's 8-head set): 1/2 for one head; "
    "the literal 2^(-8h/H) gives 1/256 at H = 1, a negligible penalty (practically NoPE)",
    "T5 bias: T5's causal bucketing, 32 buckets, max distance 128 (0..15 exact, 16..127 log-spaced), "
    "one learned scalar per bucket and head, N(0, d^-1/2) init, added to the scaled logits",
    "'does not change with length beyond the training range': at every L > 16 the selected offset equals "
    "the same seed's at L = 16, the longest training length",
    "K in {1, 2, 3}, seeds 0..4 (quick: 0..2); RoPE rows are the C1 grid's models (compared, not asserted)",
]


def seeds_scale(scale):
    return dataclasses.replace(scale, max_seeds=QUICK_SEEDS) if scale.name == "quick" else scale


def biases(scale, cache) -> BiasesResult:
    scale = seeds_scale(scale)
    return memo(
        ("biases", scale),
        lambda: run_biases(scale.seed_list(PAPER_SEEDS), scale.steps, OFFSETS, ENCODINGS, scale.evaluation(), cache),
    )


def record_common(claim, scale, result: BiasesResult, encoding: str, with_figures: bool = True) -> None:
    """Scale, choices, accuracies and notes of both C19 tests; the figures go with the first test only."""
    claim.set_scale(**seeds_scale(scale).describe(PAPER_SEEDS))
    for text in CHOICES:
        claim.choice(text)
    for scheme in (encoding, "rope"):
        for offset in result.offsets:
            claim.measure(f"{NAMES[scheme]} K={offset}: accuracy in range (mean over L <= {result.max_len})",
                          result.range_accuracy(scheme, offset, result.in_range))
            claim.measure(f"{NAMES[scheme]} K={offset}: accuracy beyond (mean over L > {result.max_len})",
                          result.range_accuracy(scheme, offset, result.beyond))
    for offset in result.offsets:
        chosen = {L: sorted(set(result.selected_offsets(encoding, offset, L))) for L in result.lengths}
        claim.note(f"{NAMES[encoding]} K={offset}: selected offsets per length (over seeds): "
                   + ", ".join(f"L={L}: {v}" for L, v in chosen.items()))
        if with_figures:
            claim.figure(f"{encoding}_accuracy_K{offset}", accuracy_figure(result, encoding, offset))
    if with_figures:
        claim.figure(f"{encoding}_selected_offset", selection_figure(result, encoding))


def accuracy_figure(result: BiasesResult, encoding: str, offset: int) -> dict:
    return figures.lines(
        f"{NAMES[encoding]} against RoPE: accuracy against length, K = {offset}",
        "evaluation length L",
        "accuracy",
        [
            figures.series(
                NAMES[scheme],
                result.lengths,
                per_seed=[[run.at(L).accuracy for L in result.lengths] for run in result.grid.runs[scheme, offset]],
                style=None if scheme == encoding else "dashed",
            )
            for scheme in ("rope", encoding)
        ],
        hlines=[(0.05, "chance")],
        vlines=[(result.max_len, "longest training length")],
    )


def selection_figure(result: BiasesResult, encoding: str) -> dict:
    return figures.lines(
        f"{NAMES[encoding]}: selected offset (argmax of the mean attention) against length",
        "evaluation length L",
        "selected offset t - n",
        [
            figures.series(f"K={offset}", result.lengths,
                           per_seed=[[run.at(L).selected_offset() for L in result.lengths]
                                     for run in result.grid.runs[encoding, offset]], style="points")
            for offset in result.offsets
        ],
        hlines=[(-k, f"-{k}") for k in result.offsets],
        vlines=[(result.max_len, "longest training length")],
    )


@pytest.mark.claim("C19")
@pytest.mark.parametrize("encoding", BIAS_SCHEMES)
def test_selected_offset_is_length_invariant(scale, cache, claim, encoding):
    result = biases(scale, cache)
    record_common(claim, scale, result, encoding)
    for offset in result.offsets:
        for length in result.beyond:
            claim.check(
                f"{NAMES[encoding]} K={offset} L={length}: selected offset minus its value at "
                f"L={result.reference_length}, every seed",
                [float(v) for v in result.selection_shift(encoding, offset, length)],
                "==",
                0.0,
                reduce="all",
                paper="length-invariant",
            )
    claim.verify()


@pytest.mark.claim("C19")
@pytest.mark.parametrize("encoding", BIAS_SCHEMES)
def test_selects_the_target_like_rope(scale, cache, claim, encoding):
    if encoding == "alibi":
        claim.expect_not_reproduced(scale, ALIBI_NOT_REPRODUCED, ALIBI_WHY, scales=("paper", "quick"))
    result = biases(scale, cache)
    record_common(claim, scale, result, encoding, with_figures=False)
    claim.choice("'as for RoPE' read as C3: the selected offset is the target -K in every seed x length cell")
    for offset in result.offsets:
        for length in result.lengths:
            claim.check(
                f"{NAMES[encoding]} K={offset} L={length}: selected offset of every seed",
                [float(v) for v in result.selected_offsets(encoding, offset, length)],
                "==",
                float(-offset),
                reduce="all",
                paper=f"-{offset} (as RoPE)",
            )
    claim.verify()
