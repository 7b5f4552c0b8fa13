"""C15 (Fig. 4, Lemma 2): the rotary kernel g(s) = sum_j cos(s theta_j) has a unique integer maximum at
s = 0, and max_{s >= 4} g(s) / g(0) is about 0.67 / 0.75 / 0.79 for bases 1e3 / 1e4 / 1e5 at d = 64.

Exact computation in float64 over the integers |s| <= 4096 (the paper does not say how far it searched;
beyond every length used here). No training, so the quick and paper variants are the same computation.

Checks (catalogue; exact computations, ``exact=True``), per base: the argmax of g over the integers is 0;
the maximum is unique; the ratio lies within 0.01 of 0.67 / 0.75 / 0.79 (9 checks).

Negative control: the same computation with equal rotary frequencies, every theta_j = 2 pi / 16 (a period
of Lmax = 16 positions; any integer period would do). g(s) = 32 cos(2 pi s / 16) is then periodic on the
integers: g(16 k) = g(0), so the maximum is not unique (and argmax, the first maximal s, is -4096), and
the ratio is 1: every check must fail.
"""

from __future__ import annotations

import pytest

from lengthgen.report import figure_specs as figures
from lengthgen.experiments.kernel import S_MAX, KernelResult, equal_frequencies, run_kernel

from claims.memo import memo
from claims.run import run_claim
from lengthgen.catalogue import Stated
from claims.spec import ClaimSpec
from claims.support import refute

PAPER_SEEDS = 0  # an exact computation: no seeds
D = 64  # the paper's width
PAPER_RATIOS = {1e3: 0.67, 1e4: 0.75, 1e5: 0.79}
RATIO_TOLERANCE = 0.01  # the catalogue's: the paper quotes two decimals
CONTROL_PERIOD = 16  # the control's common frequency 2 pi / 16: g repeats every Lmax = 16 positions


def scale_block(scale) -> dict:
    """The record's scale block: no seeds, no training."""
    return {
        "name": scale.name,
        "seeds": 0,
        "paper_seeds": PAPER_SEEDS,
        "steps": 0,
        "note": f"exact computation, |s| <= {S_MAX}",
    }


def measure(scale, cache) -> KernelResult:
    """g per paper base at d = 64 (the same at every scale; memoised in the cache's runtime; nothing is
    trained)."""
    return memo(cache.runtime, ("kernel", D), scale, lambda: run_kernel(D, tuple(PAPER_RATIOS)))


def check(claim, result: KernelResult) -> None:
    """Per base: argmax 0, a unique maximum, and the ratio within 0.01 of the paper's (all exact)."""
    for row in result.rows:
        base = row.base
        claim.check(
            f"base {base:.0e}: argmax of g over integers",
            float(row.argmax),
            "==",
            0.0,
            paper="0",
            source="paper-number",
            source_note="the integer maximum is at s = 0",
            quoted="unique integer maximum at s=0",
            exact=True,
            at={"base": base},
        )
        claim.check(
            f"base {base:.0e}: the maximum is unique",
            float(row.unique),
            "==",
            1.0,
            paper="unique",
            source="paper-number",
            source_note="the maximum is unique",
            quoted="unique integer maximum at s=0",
            exact=True,
            at={"base": base},
        )
        paper = PAPER_RATIOS[base]
        claim.check(
            f"base {base:.0e}: max_(s>=4) g(s)/g(0)",
            row.ratio,
            "in",
            (paper - RATIO_TOLERANCE, paper + RATIO_TOLERANCE),
            paper=f"{paper:.2f}",
            source="suite-reading",
            source_note="the paper's range 0.67-0.79 read per base as 0.67 / 0.75 / 0.79, within 0.01",
            exact=True,
            at={"base": base},
        )


# an exact computation
CLAIM = ClaimSpec(
    id="C15",
    quote=(
        "the kernel g(s)=∑_j cos(sθ_j) has a unique integer maximum at s=0 (max_{s≥4} g(s)/g(0)≈0.67–0.79), so the "
        "uniqueness condition of Lemma 2 holds in practice.",
    ),
    title="g(s) maximum unique at 0",
    where="Fig. 4, Lemma 2",
    statement="the kernel g(s) = sum_j cos(s theta_j) has a unique integer maximum at s = 0",
    paper_value="max_{s>=4} g(s)/g(0) ~ 0.67-0.79",
    assertion=(
        "exact computation, d = 64, bases 1e3/1e4/1e5: unique maximum at 0; ratios within 0.01 of 0.67 / 0.75 / 0.79"
    ),
    stated=(
        Stated(
            "max over s >= 4 of g(s)/g(0), d = 64, bases 1e3..1e5",
            0.67,
            0.79,
            2,
            "Fig. 4 paragraph",
            measures=tuple(f"base {b}: max_(s>=4) g(s)/g(0)" for b in ("1e+03", "1e+04", "1e+05")),
            across=True,
        ),
    ),
    paper_seeds=PAPER_SEEDS,
    measure=measure,
    checks=(check,),
    scale_block=scale_block,
    schedule=280,
)


@pytest.mark.claim("C15")
def test_rotary_kernel_peaks_uniquely_at_zero(scale, model_cache, until_decided, claim):
    result = run_claim(CLAIM, claim, scale, model_cache, plan=until_decided)  # nothing is trained: the cache's
    # runtime holds the memo
    claim.figure(
        "rotary_kernel",
        figures.lines(
            f"Rotary kernel g(s)/g(0), d = {result.d}",
            "offset s",
            "g(s) / g(0)",
            [figures.series(f"base {row.base:.0e}", range(len(row.profile)), y=row.profile) for row in result.rows],
        ),
    )
    claim.verify()


@pytest.mark.control("C15")
def test_rotary_kernel_peaks_uniquely_at_zero_control(scale, control):
    refute(
        control,
        scale_block(scale),
        f"equal rotary frequencies, every theta_j = 2 pi / {CONTROL_PERIOD} (per base, d = {D}): g is periodic on "
        f"the integers, g({CONTROL_PERIOD}k) = g(0), so the maximum at 0 is not unique and the ratio is 1",
        check,
        run_kernel(D, tuple(PAPER_RATIOS), frequencies=equal_frequencies(CONTROL_PERIOD)),
    )
