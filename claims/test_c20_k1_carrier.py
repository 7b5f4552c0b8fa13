"""C20 (K = 1 paragraph): for K = 1 the carriers are near-parallel (kernel centred at 0) and suppressing
the self-logit suffices: the carrier-only profile phi_c peaks at delta = 0 while accuracy stays high.

Models: the RoPE heads of the C1 grid with K = 1 (no extra training), seeds 0..4, evaluated at the
paper's lengths (quick: up to L = 40). phi_c(delta) = m_Q^T R_delta m_K over delta in [-47, 0], as in C5.
Reported beside it: cos(m_Q, m_K), and the self-logit suppression p(-1) - p(0) of the mean logit profile
p(delta) = mean over token pairs of the exact logit table (at delta = 0 the key is the query token itself),
which is what moves the selection from the carriers' 0 to the target -1.

Checks: phi_c peaks at delta = 0 for every seed (the paper's "kernel centred at 0"); accuracy, mean over
seeds, at every evaluation length. The paragraph states no accuracy, so its threshold is a suite reading,
in two variants with their own verdicts (test ids ``c1-reading`` / ``first-reading``), as C12/C13 show their
widths:

- ``c1-reading`` (the catalogue's reading): accuracy read as C1 reads the same K = 1 models, >= 0.95 at
  every L <= 32 and >= 0.85 at L = 40, 48. Not reproduced at paper scale at L = 48 (declared): the mean
  over the catalogue's 5 seeds falls just below C1's 0.85, a close call (its 95% interval contains 0.85);
  C1's mean of the same models over its 8 seeds lies just above 0.85 (close too), so seeds 0..4 are the
  weaker five. L = 40 and every shorter length hold. Quick scale: reproduced, nothing declared.
- ``first-reading`` (a stricter reading, kept as a variant with its own verdict): >= 0.95 at every length,
  stricter than C1's reading of the same models. Not reproduced (declared at both scales): the seed mean
  falls below 0.95 at L = 40 and 48 (quick: at L = 40).

The recorded run (docs/findings.md, the report) has the values.

The declarations name only the accuracy checks: the kernel part holds (phi_c peaks at 0 in every seed; the
mean logit profile peaks at -1). With the paper's seeds a pass of a declared check is an unexpected pass.

Negative control (per variant): the grid's K = 2 heads in place of the K = 1 heads. Their carriers are
pre-rotated to the target (C5: phi_c peaks at -2 in every seed), not centred at 0, so the phi_c check must
fail. It does: phi_c peaks at -2 in every seed; the K = 2 heads' accuracy passes at every length, at both
scales.
"""

from __future__ import annotations

import functools

import pytest

from lengthgen.report import figure_specs as figures
from lengthgen.experiments.carrier import CarrierResult
from lengthgen.scale import Scale

from claims.mechanism import VALIDATION_SEEDS, carrier_result, profile_figure
from claims.memo import memo
from claims.run import run_claim
from claims.spec import ClaimSpec, Declared, Variant
from claims.support import refute

PAPER_SEEDS = VALIDATION_SEEDS  # the paper's validation study: 5 seeds
OFFSET = 1  # the claim is about K = 1
CONTROL_OFFSET = 2  # the control's heads: their carriers select -2
NEAR_LENGTH = 32  # C1's near range: L <= 32
NEAR_ACCURACY = 0.95  # C1: "near-perfect" read as >= 0.95 at every L <= 32
FAR_ACCURACY = 0.85  # C1: >= 0.85 at L = 40, 48 (the dilution of C6 erodes the far end)
CATALOGUE_READING = "c1-reading"  # the catalogue's reading: accuracy as C1 reads it
FIRST_READING = "first-reading"  # the suite's first reading: >= 0.95 at every length
READINGS = (CATALOGUE_READING, FIRST_READING)  # the variants (test ids)
# the catalogue's reading's declared accuracy check (paper scale; nothing at quick): the claim's own declaration,
# carried to the robustness map's fresh seeds (dilution at the far end is structural) and to the multiverse
FAR_END = Declared(
    ("K=1 L=48: accuracy*",),
    "dilution erodes the far end, as in C1: over the catalogue's 5 seeds the "
    "mean at L = 48 falls below C1's 0.85 (C1's 8 seeds of the same models reach it)",
    carried=True,
    gist="K = 1 dilutes below 0.85 at L = 48",
    kind="suite-reading",
    reason="over 5 seeds K = 1's mean at L = 48 is 0.823 against the 0.85 C1 reads; the paper states no accuracy "
    "for K = 1",
)
FIRST_WHY = "dilution erodes the far end, as in C1 (whose threshold there is 0.85)"
FIRST_GIST = "K = 1 dilutes below 0.95 far out"
FIRST_FAR_END = (
    Declared(
        ("K=1 L=40: accuracy*", "K=1 L=48: accuracy*"),
        FIRST_WHY,
        scales=("paper",),
        gist=FIRST_GIST,
        kind="suite-reading",
        reason="K = 1's seed means are 0.932 at L = 40 and 0.823 at L = 48 against the first reading's 0.95; the "
        "paper states no accuracy for K = 1",
    ),
    Declared(
        ("K=1 L=40: accuracy*",),
        FIRST_WHY,
        scales=("quick",),
        gist=FIRST_GIST,
        kind="suite-reading",
        reason="at quick scale K = 1's seed mean at L = 40 falls below the first reading's 0.95; the paper states "
        "no accuracy for K = 1",
    ),
)  # the first reading's, per scale


def min_accuracy(length: int, reading: str = CATALOGUE_READING) -> float:
    """The accuracy threshold at ``length`` under ``reading`` (see the module docstring)."""
    if reading == FIRST_READING:
        return NEAR_ACCURACY
    if reading == CATALOGUE_READING:
        return NEAR_ACCURACY if length <= NEAR_LENGTH else FAR_ACCURACY
    raise ValueError(f"unknown C20 reading {reading!r}; expected one of {', '.join(READINGS)}")


def measure(scale: Scale, cache) -> CarrierResult:
    """Carrier geometry and accuracy of the grid's RoPE heads with K = 1."""
    return memo(cache.runtime, ("C20",), scale, lambda: carrier_result(scale, cache).select((OFFSET,)))


def check(claim, result: CarrierResult, reading: str = CATALOGUE_READING) -> None:
    """Every check and measure of C20 under ``reading`` (a pure function of the result)."""
    (offset,) = result.offsets
    rows = result.of(offset)
    claim.check(
        f"K={offset}: argmax of phi_c of every seed",
        result.values(offset, "trained", "peak"),
        "==",
        0.0,
        reduce="all",
        paper="0 (kernel centred at 0)",
        source="suite-reading",
        source_note='"kernel centered at 0" read as phi_c peaking at 0 in every seed',
        at={"K": offset},
    )
    for length in result.evaluation.lengths:
        claim.check(
            f"K={offset} L={length}: accuracy (mean over seeds)",
            result.accuracy(offset, length),
            ">=",
            min_accuracy(length, reading),
            paper="high",
            source="suite-reading",
            source_note=(
                "the paragraph states no accuracy; read as C1 reads the same models"
                if reading == CATALOGUE_READING
                else "the paragraph states no accuracy; first read as >= 0.95 at every length"
            ),
            at={"K": offset, "L": length},
        )
    claim.measure(
        f"K={offset}: cos(m_Q, m_K) (1 for parallel carriers)", result.values(offset, "trained", "parallel_cosine")
    )
    claim.measure(f"K={offset}: key carrier fraction", result.values(offset, "trained", "key_fraction"))
    claim.measure(
        f"K={offset}: self-logit suppression p(-1) - p(0) of the mean logit profile",
        [r.logit_profile[-2] - r.logit_profile[-1] for r in rows],
    )
    deltas = list(range(-(result.span - 1), 1))
    claim.measure(
        f"K={offset}: argmax of the mean logit profile p(delta)",
        [deltas[max(range(len(deltas)), key=lambda i: r.logit_profile[i])] for r in rows],
    )


CLAIM = ClaimSpec(
    id="C20",
    quote=(
        "For the immediate neighbor the carriers are near-parallel (kernel centered at 0) and suppressing the "
        "self-logit suffices, via the content covariance of Remark 1",
    ),
    title="K = 1: carriers centred at 0",
    where="K=1 paragraph",
    statement="for K = 1 the carriers are near-parallel (kernel centred at 0) and suppressing the self-logit suffices",
    paper_value="centred at 0 (the paragraph states no accuracy)",
    assertion=(
        "for K = 1, 5 seeds: phi_c peaks at delta = 0 in every seed; accuracy read as C1 reads the same K = 1 "
        "models (mean over seeds >= 0.95 at every L <= 32, >= 0.85 at L = 40, 48); the first reading (>= 0.95 at "
        "every length), stricter than C1's on the same models, is reported beside it"
    ),
    paper_seeds=PAPER_SEEDS,
    measure=measure,
    checks=(check,),
    declared=(FAR_END,),
    families=("one-layer",),
    cell_variant=CATALOGUE_READING,  # the multiverse's cells check the catalogue's reading
    variants=(
        Variant(CATALOGUE_READING),  # the claim's own check and declaration
        Variant(FIRST_READING, checks=(functools.partial(check, reading=FIRST_READING),), declared=FIRST_FAR_END),
    ),
    settings=("fresh-seeds",),
    schedule=260,
)


@pytest.mark.claim("C20")
@pytest.mark.parametrize("reading", READINGS)
def test_k1_carrier_centred_at_zero_and_accurate(scale, model_cache, until_decided, claim, reading):
    result = run_claim(CLAIM.variant(reading), claim, scale, model_cache, plan=until_decided)
    claim.choice(reading_choice(reading))
    claim.choice("'everywhere' = every evaluation length, on the mean accuracy over seeds (as C1)")
    claim.choice("models: the C1 grid's RoPE heads with K = 1 (seeds 0..4), no extra training")
    rows = result.of(OFFSET)
    claim.figure("carrier_only_profile_K1", profile_figure(result, (OFFSET,), "Carrier-only profile phi_c, K = 1"))
    claim.figure(
        "accuracy_K1",
        figures.lines(
            "Accuracy against length, K = 1",
            "evaluation length L",
            "accuracy",
            [
                figures.series(
                    "RoPE K=1",
                    result.evaluation.lengths,
                    per_seed=[[r.accuracy[L] for L in result.evaluation.lengths] for r in rows],
                )
            ],
            hlines=[(NEAR_ACCURACY, "0.95"), (FAR_ACCURACY, "0.85 (C1, L = 40, 48)")],
        ),
    )
    claim.verify()


def reading_choice(reading: str) -> str:
    """The reading of this record, and which came first."""
    if reading == CATALOGUE_READING:
        return (
            "variant c1-reading (the catalogue's reading): the paragraph states no accuracy; accuracy "
            "is read as C1 reads the same K = 1 models (>= 0.95 at L <= 32, >= 0.85 at L = 40, 48). The first "
            "reading (>= 0.95 at every length) is reported beside it (test id first-reading)"
        )
    return (
        "variant first-reading (the suite's first reading): >= 0.95 at every length, stricter than C1's reading "
        "of the same models at L = 40, 48; kept with its own verdict beside the catalogue's c1-reading"
    )


@pytest.mark.control("C20")
@pytest.mark.parametrize("reading", READINGS)
def test_k2_carriers_are_not_centred_at_zero(scale, model_cache, control, reading):
    refute(
        control,
        scale.describe(PAPER_SEEDS),
        f"the grid's K = {CONTROL_OFFSET} heads in place of the K = 1 heads: their carriers are pre-rotated to "
        f"the target (phi_c peaks at -{CONTROL_OFFSET} in every seed, C5), not centred at 0, so the phi_c check "
        "must fail",
        check,
        carrier_result(scale, model_cache).select((CONTROL_OFFSET,)),
        reading,
    )
