"""C5 (Lemma 2 (iv)): the carrier-only profile phi_c(delta) = m_Q^T R_delta m_K peaks at the target -K.

Models: the RoPE heads of the C1 grid (no extra training), K in {2, 3}, seeds 0..4. m_Q, m_K are the
vocabulary means of W_Q x and W_K x; R_delta the RoPE rotation by offset delta = t - n, so phi_c is the
logit the mean query token gives the mean key token at offset delta (without the 1/sqrt(d) scale, which
does not move the argmax). Weights only: the profile is the same at every length, so the quick variant
differs only in the models' training steps (1000).

Check (catalogue), per K: argmax over delta in [-(48-1), 0] of phi_c equals -K for every seed.

Negative control: the same seeds' untrained initialisations in place of the trained heads. Their carriers
are random vectors, so phi_c of random weights peaks wherever the random rotation sum puts it; it cannot
peak at -K in every seed (the initialisation does not depend on K, so one seed's peak cannot be both -2
and -3), and the check must fail for at least one K. At both scales both checks fail (the untrained peaks
are the same for K = 2 and 3; the recorded run has them).
"""

from __future__ import annotations


import pytest

from lengthgen.experiments.carrier import CarrierResult
from lengthgen.scale import Scale

from claims.mechanism import GRID_MODELS, MECHANISM_OFFSETS, VALIDATION_SEEDS, carrier_result, profile_figure
from claims.memo import memo
from claims.robustness import carrier_at
from claims.run import run_claim
from claims.spec import ClaimSpec
from claims.support import refute

PAPER_SEEDS = VALIDATION_SEEDS  # the paper's validation study: 5 seeds


def measure(scale: Scale, cache) -> CarrierResult:
    """phi_c of the grid's RoPE heads, K in {2, 3}, and of their initialisations."""
    return memo(cache.runtime, ("C5",), scale, lambda: carrier_result(scale, cache).select(MECHANISM_OFFSETS))


def check(claim, result: CarrierResult) -> None:
    for offset in result.offsets:
        peaks = result.values(offset, "trained", "peak")
        claim.check(
            f"K={offset}: argmax of phi_c of every seed",
            peaks,
            "==",
            float(-offset),
            reduce="all",
            paper=f"-{offset}",
            source="suite-reading",
            source_note='"a relative kernel peaked at the target", "confirmed across seeds": read as every seed',
            at={"K": offset},
        )
        claim.measure(f"K={offset}: argmax of phi_c (trained)", peaks, headline=True)
        claim.measure(
            f"K={offset}: argmax of phi_c of the untrained baseline", result.values(offset, "baseline", "peak")
        )


CLAIM = ClaimSpec(
    id="C5",
    quote=(
        "Trained query and key representations share a dominant direction, pre-rotated to the target offset, which "
        "yields a relative kernel peaked at the target",
        "Both effects are confirmed across seeds and offsets K∈{2,3}.",
    ),
    title="phi_c peaks at -K",
    where="Lemma 2, (iv)",
    statement="the carrier-only profile phi_c(delta) peaks at the target offset",
    paper_value="peak at -K",
    assertion="argmax over delta in [-(48-1), 0] of phi_c equals -K for every seed, K in {2,3}",
    paper_seeds=PAPER_SEEDS,
    measure=measure,
    checks=(check,),
    families=("one-layer",),
    at_setting=carrier_at,
    settings=("offsets-far", "width-32", "width-128", "fresh-seeds"),
    schedule=160,
)


@pytest.mark.claim("C5")
def test_carrier_only_profile_peaks_at_the_target(scale, model_cache, until_decided, claim):
    result = run_claim(CLAIM, claim, scale, model_cache, plan=until_decided)
    claim.choice("phi_c without the 1/sqrt(d) logit scale (argmax unchanged); delta over [-47, 0] at both scales")
    claim.choice(GRID_MODELS)
    claim.figure("carrier_only_profile", profile_figure(result, result.offsets, "Carrier-only profile phi_c"))
    claim.verify()


@pytest.mark.control("C5")
def test_untrained_profile_does_not_peak_at_the_target(scale, model_cache, control):
    refute(
        control,
        scale.describe(PAPER_SEEDS),
        "the same seeds' untrained initialisations in place of the trained heads: phi_c of random weights peaks "
        "where chance puts it, and one K-independent initialisation per seed cannot peak at -2 and at -3, so "
        "'-K in every seed' must fail",
        check,
        measure(scale, model_cache).untrained(),
    )
