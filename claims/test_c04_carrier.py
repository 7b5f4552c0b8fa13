"""C4 (Lemma 2, Sec. 5): trained queries and keys share a dominant carrier direction, pre-rotated to the
target offset.

Models: the RoPE heads of the C1 grid (no extra training), K in {2, 3}, seeds 0..4 (the paper's
validation study uses 5 seeds). Baseline: the same seed's untrained initialisation. Measured exactly as
the paper defines it: the carrier fraction ||mean_a v_a||^2 / mean_a ||v_a||^2 over the m = 20 vocabulary
entries v_a = W_Q x_a (queries) or W_K x_a (keys), x_a the token embedding, no position; and
cos(m_Q, R_{-K} m_K) with m the vocabulary means (``lengthgen/probes/carrier.py``).

Checks (catalogue), per K: the mean (over seeds) key and query carrier fractions lie in [0.65, 0.95]; each
is >= 10x the mean untrained baseline (a ratio of seed means: its interval is a seed bootstrap); the mean
cos(m_Q, R_{-K} m_K) >= 0.6.

The untrained baseline is reported beside the paper's 0.016: for i.i.d. zero-mean projections of m = 20
tokens its expectation is 1/m = 0.05, and that is what the definition gives here (the recorded run has the
per-seed values); the paper's 0.016 is lower than this definition yields.

Negative control: the same seeds' untrained initialisations in place of the trained heads (their
geometry is measured anyway, as the baseline). Their carrier fraction sits near the 1/m = 0.05 baseline,
far below [0.65, 0.95], their ratio to the baseline is 1, and their carriers are not aligned at -K, so
every check must fail. At both scales (the initialisation does not depend on the steps) every check of the
control fails; the recorded run has the control's values.

Choices: "mean" is the uniform mean over the vocabulary (tokens are uniform); projections are of the token
embeddings without any position (RoPE adds none); the 10x check compares the seed-mean fraction with the
seed-mean baseline fraction.
"""

from __future__ import annotations


import pytest

from lengthgen.report import figure_specs as figures
from lengthgen.experiments.carrier import CarrierResult
from lengthgen.experiments.common import mean
from lengthgen.scale import Scale

from claims.mechanism import GRID_MODELS, MECHANISM_OFFSETS, VALIDATION_SEEDS, carrier_result
from claims.memo import memo
from claims.robustness import carrier_at
from claims.run import run_claim
from lengthgen.catalogue import Stated
from claims.spec import ClaimSpec
from claims.support import refute

PAPER_SEEDS = VALIDATION_SEEDS  # the paper's validation study: 5 seeds
FRACTION_RANGE = (0.65, 0.95)  # catalogue (the paper's 0.72-0.86 across settings, widened)
BASELINE_FACTOR = 10.0  # catalogue: trained fraction >= 10x the untrained baseline
MIN_COSINE = 0.6  # catalogue (the paper: 0.83)
PAPER_BASELINE = 0.016  # the paper's untrained key carrier fraction

CHOICES = [
    "carrier fraction over the m = 20 vocabulary entries (uniform mean), projections W_Q x, W_K x of the token "
    "embeddings (no position)",
    "baseline: the same seed's untrained initialisation (embeddings N(0,1), projections U(-1/sqrt d, 1/sqrt d))",
    "'>= 10x the baseline' compares the seed-mean fraction with the seed-mean baseline fraction",
    GRID_MODELS,
]


def measure(scale: Scale, cache) -> CarrierResult:
    """Carrier geometry of the grid's RoPE heads, K in {2, 3}, and of their initialisations."""
    return memo(cache.runtime, ("C4",), scale, lambda: carrier_result(scale, cache).select(MECHANISM_OFFSETS))


def _ratio(pairs) -> float:
    """Seed-mean trained fraction over seed-mean baseline fraction, from per-seed (trained, baseline) pairs."""
    return mean([t for t, _ in pairs]) / mean([b for _, b in pairs])


def check(claim, result: CarrierResult) -> None:
    for offset in result.offsets:
        for side in ("key", "query"):
            trained = result.values(offset, "trained", f"{side}_fraction")
            baseline = result.values(offset, "baseline", f"{side}_fraction")
            claim.check(
                f"K={offset}: {side} carrier fraction (mean over seeds)",
                trained,
                "in",
                FRACTION_RANGE,
                paper="0.80 (key); 0.72-0.86 across settings",
                source="suite-reading",
                source_note="the paper's 0.80 (key) and 0.72-0.86 across settings, widened to [0.65, 0.95]",
                at={"K": offset},
            )
            pairs = list(zip(trained, baseline))
            claim.check(
                f"K={offset}: {side} carrier fraction / untrained baseline (seed means)",
                _ratio(pairs),
                ">=",
                BASELINE_FACTOR,
                paper="0.80 / 0.016 = 50",
                source="suite-reading",
                source_note="the paper's 0.80 against 0.016 (50x) read as >= 10x the baseline",
                bootstrap=(pairs, _ratio),
                at={"K": offset},
            )
            claim.measure(f"K={offset}: trained {side} carrier fraction", trained, headline=side == "key")
            claim.measure(f"K={offset}: untrained {side} carrier fraction (paper {PAPER_BASELINE})", baseline)
        claim.check(
            f"K={offset}: cos(m_Q, R_-K m_K) (mean over seeds)",
            result.values(offset, "trained", "cosine"),
            ">=",
            MIN_COSINE,
            paper="0.83",
            source="suite-reading",
            source_note="the paper's 0.83 read as >= 0.6",
            at={"K": offset},
        )
        claim.measure(
            f"K={offset}: cos(m_Q, R_-K m_K) of the untrained baseline", result.values(offset, "baseline", "cosine")
        )


KEY_K = (  # the one measurement of the paper's Sec. 7 numbers, named before comparing
    "the paper's sentence names no K; the suite reads it at K = 2, the first K its mechanism statement covers (K >= 2)"
)
CLAIM = ClaimSpec(
    id="C4",
    quote=(
        "Trained query and key representations share a dominant direction, pre-rotated to the target offset, which "
        "yields a relative kernel peaked at the target",
        "at d=64 the carrier inner product cos(m_Q,R_{−K}m_K) stays near 0.1 and the key carrier fraction drops to "
        "0.07 (baseline 0.016), against 0.83 and 0.80 under softmax.",
        "The carrier fraction holds in 0.72–0.86 across widths d∈{32,64,128}, vocabulary sizes {10,20,40}, length "
        "ranges, and softmax temperatures",
    ),
    title="target-aligned carrier",
    where="Lemma 2, Sec. 5",
    statement="trained queries and keys share a dominant carrier direction, pre-rotated to the target offset",
    paper_value=(
        "key carrier fraction 0.80 vs baseline 0.016; cos(m_Q, R_{-K} m_K) = 0.83; fractions 0.72-0.86 across settings"
    ),
    assertion=(
        "K in {2,3}, 5 seeds: mean key and query carrier fractions in [0.65, 0.95] and >= 10x the untrained "
        "baseline; cos(m_Q, R_{-K} m_K) >= 0.6"
    ),
    stated=(
        Stated(
            "key carrier fraction under softmax, d = 64",
            0.8,
            0.8,
            2,
            "Sec. 7",
            measures=("K=2: key carrier fraction (mean over seeds)",),
            why=KEY_K,
        ),
        Stated(
            "the untrained baseline of that fraction",
            0.016,
            0.016,
            3,
            "Sec. 7",
            measures=("K=2: untrained key carrier fraction (paper 0.016)",),
            why=KEY_K,
            baseline_width=64,
        ),
        Stated(
            "cos(m_Q, R_{-K} m_K) under softmax",
            0.83,
            0.83,
            2,
            "Sec. 7",
            measures=("K=2: cos(m_Q, R_-K m_K) (mean over seeds)",),
            why=KEY_K,
        ),
    ),
    paper_seeds=PAPER_SEEDS,
    measure=measure,
    checks=(check,),
    families=("one-layer",),
    at_setting=carrier_at,
    settings=("offsets-far", "width-32", "width-128", "fresh-seeds"),
    schedule=150,
)


@pytest.mark.claim("C4")
def test_trained_heads_carry_a_target_aligned_carrier(scale, model_cache, until_decided, claim):
    result = run_claim(CLAIM, claim, scale, model_cache, plan=until_decided)
    for text in CHOICES:
        claim.choice(text)
    baseline_keys = [v for K in result.offsets for v in result.values(K, "baseline", "key_fraction")]
    claim.note(
        f"untrained key carrier fraction: measured {mean(baseline_keys):.3f} (mean over seeds; range "
        f"{min(baseline_keys):.3f}-{max(baseline_keys):.3f}) against the paper's {PAPER_BASELINE}; "
        f"for i.i.d. zero-mean projections of m = 20 tokens the expectation is 1/m = 0.05"
    )
    groups = [f"K={K} {side}" for K in result.offsets for side in ("key", "query")]
    claim.figure(
        "carrier_fractions",
        figures.bars(
            "Carrier fraction ||mean||^2 / E||proj||^2, trained against untrained",
            "carrier fraction",
            groups,
            [
                {
                    "label": label,
                    "per_seed": [
                        result.values(K, which, f"{side}_fraction") for K in result.offsets for side in ("key", "query")
                    ],
                }
                for label, which in (("trained", "trained"), ("untrained baseline", "baseline"))
            ],
            hlines=[(FRACTION_RANGE[0], "0.65"), (1 / 20, "1/m")],
        ),
    )
    claim.verify()


@pytest.mark.control("C4")
def test_untrained_initialisations_carry_no_carrier(scale, model_cache, control):
    refute(
        control,
        scale.describe(PAPER_SEEDS),
        "the same seeds' untrained initialisations in place of the trained heads: their carrier fraction sits "
        "near the 1/m = 0.05 baseline (ratio 1 to it) and their carriers are not aligned at -K, so every check "
        "must fail",
        check,
        measure(scale, model_cache).untrained(),
    )
