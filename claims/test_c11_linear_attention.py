"""C11 (Sec. 7): trained linear attention (no softmax) fits the task in distribution but does not
extrapolate, and has no carrier; the softmax head of the same seed does both.

Linear head: the paper's RoPE head with ``attention="linear"``: the attention weights are the logits
themselves, l_t = q.k_t / sqrt(d), NOT normalised over positions (o = sum_t l_t v_t; padding has weight 0),
so the output's scale grows with L. Same protocol as every other model (Adam, lr 1e-3, batch 256, lengths
[8, 16], 4000 steps at paper scale): training at lr 1e-3 was stable (no divergence; final training loss
about 0.10 for K = 2 and 0.36 for K = 3 at 4000 steps, which fit K = 3 less well). Softmax comparator: the
C1 grid's RoPE head of the same K and seed (same initialisation, so one untrained baseline serves both).

Assert (catalogue), per K (mean over seeds): linear accuracy >= 0.85 at every L <= 16 and <= 0.2 at L = 48;
cos(m_Q, R_{-K} m_K) <= 0.3; key carrier fraction <= 0.2.

Choices: K in {2, 3} (the paper gives one number and does not say which K), seeds 0..4. "No carrier" is
the absence of alignment in either direction, so the cosine check applies the catalogue's bound 0.3 to the
seed mean of |cos(m_Q, R_-K m_K)| (per-seed cosines take either sign, and their signed mean is near 0
whatever their size, so a signed mean could hardly fail). Paper scale: 0.126 for K = 2 (the paper's "near
0.1") and 0.28 for K = 3 (per seed up to 0.38). Quick variant: K = 2 only (budget: it trains the linear
heads), 1000 steps, and the far length is the longest quick length L = 40; at 1000 steps K = 3 is weaker in
distribution and its far accuracy is about 0.22 at L = 40 (measured, not asserted).

Not reproduced at quick scale: after 1000 steps the linear K = 2 heads still carry |cos| = 0.32 on the seed
mean (0.31-0.33), above 0.3 (strict xfail at quick; the paper-scale variant reproduces).
"""

from __future__ import annotations

import pytest

from lengthgen import figures
from lengthgen.experiments.common import mean
from lengthgen.experiments.linear import HEADS, run_linear

from claims.support import memo
from claims.mechanism import VALIDATION_SEEDS

NOT_REPRODUCED_QUICK = ("linear K=2: |cos(m_Q, R_-K m_K)| (mean over seeds)",)  # quick scale only
NOT_REPRODUCED_WHY = "after 1000 steps the linear heads still carry a partial carrier alignment"

OFFSETS = {"quick": (2,), "paper": (2, 3)}
MIN_IN_DISTRIBUTION = 0.85  # catalogue (the paper: 0.96)
MAX_FAR = 0.2  # catalogue (the paper: 0.07 at L = 48, chance 0.05)
MAX_COSINE = 0.3  # catalogue (the paper: about 0.1)
MAX_KEY_FRACTION = 0.2  # catalogue (the paper: 0.07, against 0.80 under softmax)


@pytest.mark.claim("C11")
def test_linear_attention_fits_but_does_not_extrapolate(scale, cache, claim):
    claim.expect_not_reproduced(scale, NOT_REPRODUCED_QUICK, NOT_REPRODUCED_WHY, scales=("quick",))
    claim.set_scale(**scale.describe(VALIDATION_SEEDS))
    claim.choice("linear attention: weights = logits q.k/sqrt(d), unnormalised, padding weight 0; same protocol")
    claim.choice("K in {2, 3} at paper scale (the paper does not say which K); K = 2 only at quick scale")
    claim.choice("softmax comparator: the C1 grid's RoPE head of the same K and seed")
    claim.choice("no carrier = no alignment either way: the bound applies to the seed mean of |cos|")
    offsets = OFFSETS[scale.name]
    result = memo(
        ("linear", scale),
        lambda: run_linear(scale.seed_list(VALIDATION_SEEDS), scale.steps, offsets, scale.evaluation(), cache),
    )
    far = max(result.lengths)
    for offset in offsets:
        for length in result.lengths:
            if length <= result.spec.task.max_len:
                claim.check(
                    f"linear K={offset} L={length}: accuracy",
                    result.accuracy("linear", offset, length),
                    ">=",
                    MIN_IN_DISTRIBUTION,
                    paper="0.96",
                )
        claim.check(
            f"linear K={offset} L={far}: accuracy",
            result.accuracy("linear", offset, far),
            "<=",
            MAX_FAR,
            paper="0.07 at L=48",
        )
        cosines = result.geometry("linear", offset, "trained", "cosine")
        claim.check(
            f"linear K={offset}: |cos(m_Q, R_-K m_K)| (mean over seeds)",
            [abs(c) for c in cosines],
            "<=",
            MAX_COSINE,
            paper="about 0.1",
        )
        claim.check(
            f"linear K={offset}: key carrier fraction (mean over seeds)",
            result.geometry("linear", offset, "trained", "key_fraction"),
            "<=",
            MAX_KEY_FRACTION,
            paper="0.07",
        )
        claim.measure(f"linear K={offset}: signed cos(m_Q, R_-K m_K) per seed", cosines)
        claim.measure(
            f"linear K={offset}: query carrier fraction", result.geometry("linear", offset, "trained", "query_fraction")
        )
        claim.measure(f"softmax K={offset} L={far}: accuracy", result.accuracy("softmax", offset, far))
        claim.measure(
            f"softmax K={offset}: cos(m_Q, R_-K m_K)", result.geometry("softmax", offset, "trained", "cosine")
        )
        claim.measure(
            f"softmax K={offset}: key carrier fraction", result.geometry("softmax", offset, "trained", "key_fraction")
        )
        claim.measure(
            f"untrained K={offset}: key carrier fraction", result.geometry("linear", offset, "baseline", "key_fraction")
        )
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
                        per_seed=[r["accuracy"] for r in result.of(attention, offset)],
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
            for K in offsets
        )
    )
    claim.verify()
