"""C11 (Sec. 7): trained linear attention (no softmax) fits the task in distribution but does not
extrapolate, and has no carrier; the softmax head of the same seed does both.

Linear head: the paper's RoPE head with ``attention="linear"``: the attention weights are the logits
themselves, l_t = q.k_t / sqrt(d), NOT normalised over positions (o = sum_t l_t v_t; padding has weight 0),
so the output's scale grows with L. Same protocol as every other model (Adam, lr 1e-3, batch 256, lengths
[8, 16], 4000 steps at paper scale): training at lr 1e-3 is stable (no divergence; the final training loss
is higher for K = 3, which the linear head fits less well than K = 2). Softmax comparator: the
C1 grid's RoPE head of the same K and seed (same initialisation, so one untrained baseline serves both).

Checks (catalogue), per K (mean over seeds): linear accuracy >= 0.85 at every L <= 16 and <= 0.2 at
L = 48; cos(m_Q, R_{-K} m_K) <= 0.3; key carrier fraction <= 0.2.

Choices: K in {2, 3} (the paper gives one number and does not say which K), seeds 0..4. "No carrier" is
the absence of alignment in either direction, so the cosine check applies the catalogue's bound 0.3 to the
seed mean of |cos(m_Q, R_-K m_K)| (per-seed cosines take either sign, and their signed mean is near 0
whatever their size, so a signed mean could hardly fail). At paper scale the K = 2 mean is close to the
paper's "near 0.1" and the K = 3 mean is higher but below 0.3 (the recorded run has both). Quick variant:
K = 2 only (budget: it trains the linear heads), 1000 steps, and the far length is the longest quick length
L = 40; at 1000 steps K = 3 is weaker in distribution and its far accuracy at L = 40 lies above 0.2 (seen
in development, not asserted).

Not reproduced at quick scale (declared at quick only; the paper-scale variant reproduces): after 1000
steps the linear K = 2 heads still carry a seed-mean |cos| just above 0.3 (the recorded quick run has it). The
declaration names only that cosine check: the accuracy checks (in distribution and far) and the key
fraction are checked at quick scale too and hold; any of them failing, or an exception, is "failed".

Negative control: the grid's softmax RoPE heads (the comparators, same K and seeds) put through the same
checks in place of the linear heads. They extrapolate (near-perfect accuracy at the far length) and carry
a carrier pre-rotated to -K (C4), so the far-accuracy, cosine and key-fraction checks must fail (their
in-distribution accuracy passes, as it should). At both scales exactly these checks of the control fail
(6 of 10 at paper scale, 3 of 5 at quick, K = 2 only); the recorded run has the values.
"""

from __future__ import annotations

import pytest

from lengthgen.report import figure_specs as figures
from lengthgen.experiments.common import mean
from lengthgen.experiments.linear import HEADS, LinearResult, run_linear
from lengthgen.scale import Scale

from claims.mechanism import VALIDATION_SEEDS
from claims.memo import memo
from claims.run import run_claim
from claims.costs import OWN_MODELS_COST
from lengthgen.catalogue import Stated
from claims.spec import ClaimSpec, Declared, LeftOut
from claims.support import refute

PAPER_SEEDS = VALIDATION_SEEDS  # the paper's validation study: 5 seeds
PARTIAL_ALIGNMENT = Declared(
    ("linear K=2: |cos(m_Q, R_-K m_K)| (mean over seeds)",),
    "after 1000 steps the linear heads still carry a partial carrier alignment",
    scales=("quick",),
    kind="suite-reading",
    reason='at quick scale (1000 steps) the K = 2 linear heads\' |cos| stays above the 0.3 read for "near 0.1"',
)  # quick scale only

OFFSETS = {"quick": (2,), "paper": (2, 3)}
MIN_IN_DISTRIBUTION = 0.85  # catalogue (the paper: 0.96)
MAX_FAR = 0.2  # catalogue (the paper: 0.07 at L = 48, chance 0.05)
MAX_COSINE = 0.3  # catalogue (the paper: about 0.1)
MAX_KEY_FRACTION = 0.2  # catalogue (the paper: 0.07, against 0.80 under softmax)


def measure(scale: Scale, cache) -> LinearResult:
    """The linear heads and their softmax comparators (the grid's RoPE heads), K as in ``OFFSETS``."""
    return memo(
        cache.runtime,
        ("linear",),
        scale,
        lambda: run_linear(scale.context(PAPER_SEEDS), cache, OFFSETS[scale.name]),
    )


def check(claim, result: LinearResult, head: str = "linear") -> None:
    """The catalogue's checks on the heads ``head`` of the result (the claim: "linear"; the control: "softmax")."""
    far = max(result.lengths)
    for offset in result.offsets:
        for length in result.lengths:
            if length <= result.spec.task.max_len:
                claim.check(
                    f"{head} K={offset} L={length}: accuracy",
                    result.accuracy(head, offset, length),
                    ">=",
                    MIN_IN_DISTRIBUTION,
                    paper="0.96",
                    source="suite-reading",
                    source_note="the paper's 0.96 in distribution read as >= 0.85",
                    at={"attention": head, "K": offset, "L": length},
                )
        claim.check(
            f"{head} K={offset} L={far}: accuracy",
            result.accuracy(head, offset, far),
            "<=",
            MAX_FAR,
            paper="0.07 at L=48",
            source="suite-reading",
            source_note="the paper's 0.07 at L = 48 (chance 0.05) read as <= 0.2",
            at={"attention": head, "K": offset, "L": far},
        )
        cosines = result.geometry(head, offset, "trained", "cosine")
        claim.check(
            f"{head} K={offset}: |cos(m_Q, R_-K m_K)| (mean over seeds)",
            [abs(c) for c in cosines],
            "<=",
            MAX_COSINE,
            paper="about 0.1",
            source="suite-reading",
            source_note="the paper's cos about 0.1 read as |cos| <= 0.3",
            at={"attention": head, "K": offset},
        )
        claim.check(
            f"{head} K={offset}: key carrier fraction (mean over seeds)",
            result.geometry(head, offset, "trained", "key_fraction"),
            "<=",
            MAX_KEY_FRACTION,
            paper="0.07",
            source="suite-reading",
            source_note="the paper's 0.07 (softmax 0.80) read as <= 0.2",
            at={"attention": head, "K": offset},
        )
        claim.measure(f"{head} K={offset}: signed cos(m_Q, R_-K m_K) per seed", cosines)
        claim.measure(
            f"{head} K={offset}: query carrier fraction", result.geometry(head, offset, "trained", "query_fraction")
        )
        other = next(h for h in HEADS if h != head)
        claim.measure(f"{other} K={offset} L={far}: accuracy", result.accuracy(other, offset, far))
        claim.measure(f"{other} K={offset}: cos(m_Q, R_-K m_K)", result.geometry(other, offset, "trained", "cosine"))
        claim.measure(
            f"{other} K={offset}: key carrier fraction", result.geometry(other, offset, "trained", "key_fraction")
        )
        claim.measure(
            f"untrained K={offset}: key carrier fraction", result.geometry(head, offset, "baseline", "key_fraction")
        )


# The robustness map's finding, declared after its first cold run reported it as "failed" with exactly this
# failed check (the verdict's reason adds this run's measured value)
FRESH_SEEDS = Declared(
    ("linear K=3: |cos(m_Q, R_-K m_K)| (mean over seeds)",),
    "at seeds 100..104 the trained linear heads for K = 3 keep a partial carrier alignment in every seed, above "
    "the 0.3 read as 'no carrier' (their key carrier fraction stays low and the accuracy checks hold)",
    at="fresh-seeds",
    kind="suite-reading",
    reason='seeds 100..104: the K = 3 linear heads\' |cos| seed mean is 0.408 against the 0.3 read for "near 0.1"; '
    "the key carrier fraction and accuracy checks hold",
)

STATED_K = "the paper's sentence names no K; the suite reads it at K = 2, the first K it trains here"
CLAIM = ClaimSpec(
    id="C11",
    quote=(
        "Trained linear attention fits the in-distribution task by a min-norm interpolation across rotary "
        "frequencies rather than a target-aligned carrier: at d=64 the carrier inner product cos(m_Q,R_{−K}m_K) "
        "stays near 0.1 and the key carrier fraction drops to 0.07 (baseline 0.016), against 0.83 and 0.80 "
        "under softmax.",
        "It does not extrapolate (0.96 in distribution, 0.07 at L=48, chance 0.05, softmax 1.00).",
    ),
    title="linear attention fits, fails far, no carrier",
    where="Sec. 7",
    statement="trained linear attention (no softmax) fits in distribution but does not extrapolate, and has no carrier",
    paper_value=(
        "0.96 in distribution, 0.07 at L=48 (chance 0.05), softmax 1.00; cos ~0.1, key carrier fraction 0.07 vs 0.80"
    ),
    assertion=(
        "linear: accuracy >= 0.85 at L <= 16 and <= 0.2 at L = 48; cos(m_Q, R_{-K} m_K) <= 0.3; key carrier "
        "fraction <= 0.2"
    ),
    stated=(
        Stated(
            "linear attention, accuracy in distribution",
            0.96,
            0.96,
            2,
            "Sec. 7",
            measures=("linear K=2 L=12: accuracy", "linear K=2 L=16: accuracy"),
            why="in distribution: each seed's mean over the in-range lengths L = 12, 16; " + STATED_K,
        ),
        Stated(
            "linear attention, accuracy at L = 48",
            0.07,
            0.07,
            2,
            "Sec. 7",
            measures=("linear K=2 L=48: accuracy",),
            why=STATED_K,
        ),
        Stated(
            "softmax (RoPE) accuracy at L = 48, beside it",
            1.0,
            1.0,
            2,
            "Sec. 7",
            measures=("softmax K=2 L=48: accuracy",),
            why=STATED_K,
        ),
        Stated(
            "linear attention, cos(m_Q, R_{-K} m_K)",
            0.1,
            0.1,
            1,
            "Sec. 7",
            measures=("linear K=2: |cos(m_Q, R_-K m_K)| (mean over seeds)",),
            why=STATED_K,
        ),
        Stated(
            "linear attention, key carrier fraction",
            0.07,
            0.07,
            2,
            "Sec. 7",
            measures=("linear K=2: key carrier fraction (mean over seeds)",),
            why=STATED_K,
        ),
    ),
    paper_seeds=PAPER_SEEDS,
    measure=measure,
    checks=(check,),
    declared=(PARTIAL_ALIGNMENT, FRESH_SEEDS),
    families=("one-layer",),
    settings=("fresh-seeds",),
    left_out=(LeftOut("lengths=per-batch", OWN_MODELS_COST), LeftOut("init=flax", OWN_MODELS_COST)),
    schedule=90,
)


@pytest.mark.claim("C11")
def test_linear_attention_fits_but_does_not_extrapolate(scale, model_cache, until_decided, claim):
    result = run_claim(CLAIM, claim, scale, model_cache, plan=until_decided)
    claim.choice("linear attention: weights = logits q.k/sqrt(d), unnormalised, padding weight 0; same protocol")
    claim.choice("K in {2, 3} at paper scale (the paper does not say which K); K = 2 only at quick scale")
    claim.choice("softmax comparator: the C1 grid's RoPE head of the same K and seed")
    claim.choice("no carrier = no alignment either way: the bound applies to the seed mean of |cos|")
    for offset in result.offsets:
        claim.figure(
            f"linear_vs_softmax_K{offset}",
            figures.lines(
                f"Linear against softmax attention (RoPE), K = {offset}",
                "evaluation length L",
                "accuracy",
                [
                    figures.series(
                        attention,
                        result.lengths,
                        per_seed=[r.accuracy for r in result.of(attention, offset)],
                        style=None if attention == "softmax" else "dashed",
                    )
                    for attention in HEADS
                ],
                hlines=[(0.05, "chance")],
                vlines=[(result.spec.task.max_len, "longest training length")],
            ),
        )
    claim.note(
        "softmax vs linear key carrier fraction (seed means): "
        + "; ".join(
            f"K={K}: {mean(result.geometry('softmax', K, 'trained', 'key_fraction')):.3f} vs "
            f"{mean(result.geometry('linear', K, 'trained', 'key_fraction')):.3f}"
            for K in result.offsets
        )
    )
    claim.verify()


@pytest.mark.control("C11")
def test_softmax_heads_fail_the_linear_checks(scale, model_cache, control):
    refute(
        control,
        scale.describe(PAPER_SEEDS),
        "the grid's softmax RoPE heads (same K and seeds) in place of the linear heads: they extrapolate "
        "(accuracy about 1 at the far length, not <= 0.2) and carry a carrier pre-rotated to -K (key fraction "
        "about 0.8, cos about 0.8), so the far-accuracy and carrier checks must fail",
        check,
        measure(scale, model_cache),
        head="softmax",
    )
