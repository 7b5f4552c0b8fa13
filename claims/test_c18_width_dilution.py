"""C18 (Fig. 4): the dilution rate c falls with width, c(d=32) > c(d=64) > c(d=128).

The RoPE heads of C17's width points (d in {32, 64, 128}, m = 20, lengths [8, 16], tau = 1; d = 64 is the
C1 grid model; K in {2, 3}, seeds 0-4; the same models as C17), evaluated at the paper's lengths
{12, ..., 48} (4096 sequences). Per seed, c is the slope of the least-squares fit of 1/a* on L - 1
(``probes/dilution.dilution_fit``, as C6), a* the mean attention weight on the target.

Assert (catalogue, per K): mean over seeds of c(32) > c(64) > c(128), checked as the difference of the
seed means of consecutive widths > 0 (the same number as the mean of the per-seed differences). The
difference is a statistic of seed-mean values, so its interval is a seed bootstrap (seeds resampled,
the two widths' slopes of a seed kept together). The fit runs over the paper's lengths at both scales
(the quick scale's cut at L = 40 serves C1's accuracy threshold; a slope is better determined over the
full range). Quick: K = 2, seeds 0-4, 1000 steps, 1024 sequences.

Seeds: 5 (0-4; the catalogue asks for at least 5 where the paper is silent).

At paper scale the ordering holds for both K, with bootstrap intervals of both differences clear of 0, and
in each of the 5 seeds. The recorded run (docs/findings.md, the report) has the slopes, the differences with
their intervals and the per-seed fits' R^2.

Negative control: the same fits with the widths listed the other way (128, 64, 32): the checks then ask
for c(128) > c(64) > c(32) and must fail.
"""

from __future__ import annotations

import pytest

from claims.memo import memo
from claims.run import run_claim
from claims.costs import SWEEP_COST
from claims.spec import ClaimSpec, LeftOut
from claims.support import refute
from claims.test_c17_carrier_sweep import OFFSETS, PAPER_SEEDS
from lengthgen.report import figure_specs as figures
from lengthgen.config import PAPER_EVAL_LENGTHS
from lengthgen.experiments.common import mean
from lengthgen.experiments.sweeps import WIDTHS, WidthDilutionResult, reversed_widths, run_width_dilution


def measure(scale, cache) -> WidthDilutionResult:
    ctx = scale.context(PAPER_SEEDS, PAPER_EVAL_LENGTHS)
    return memo(
        cache.runtime, ("width-dilution",), scale, lambda: run_width_dilution(ctx, cache, OFFSETS[scale.name], WIDTHS)
    )


def difference_of_means(pairs) -> float:
    """mean over seeds of c(narrow) - mean over seeds of c(wide), from per-seed (c narrow, c wide) pairs."""
    return mean([p[0] for p in pairs]) - mean([p[1] for p in pairs])


def check(claim, result: WidthDilutionResult) -> None:
    for offset in result.offsets:
        for wide, narrow in zip(result.widths[1:], result.widths):
            pairs = list(zip(result.slopes(narrow, offset), result.slopes(wide, offset)))  # per seed
            claim.check(
                f"K={offset}: c(d={narrow}) - c(d={wide}), mean over seeds",
                difference_of_means(pairs),
                ">",
                0.0,
                paper="c falls with width",
                source="paper-number",
                source_note='"c falls with width": c(narrow) - c(wide) > 0',
                quoted="falls with width",
                bootstrap=(pairs, difference_of_means),
                at={"K": offset},
            )
            claim.note(
                f"K={offset}: c(d={narrow}) > c(d={wide}) in {sum(a > b for a, b in pairs)} of {len(pairs)} seeds"
            )
        for width in result.widths:
            claim.measure(f"K={offset} d={width}: dilution rate c", result.slopes(width, offset))
            claim.measure(f"K={offset} d={width}: R^2 of the fit", result.r2(width, offset))


# C17's seeds and models
CLAIM = ClaimSpec(
    id="C18",
    quote=("while the dilution rate c falls with width as wider models sharpen the kernel.",),
    title="dilution rate c falls with width",
    where="Fig. 4",
    statement="the dilution rate c falls with width",
    paper_value="falls",
    assertion="c(d=32) > c(d=64) > c(d=128), mean over seeds",
    paper_seeds=PAPER_SEEDS,
    measure=measure,
    checks=(check,),
    families=("one-layer",),
    settings=("fresh-seeds",),
    left_out=(LeftOut("lengths=per-batch", SWEEP_COST), LeftOut("init=flax", SWEEP_COST)),
    schedule=140,
)


@pytest.mark.claim("C18")
def test_dilution_rate_falls_with_width(scale, model_cache, until_decided, claim):
    result = run_claim(CLAIM, claim, scale, model_cache, plan=until_decided)
    claim.set_scale(lengths=list(PAPER_EVAL_LENGTHS))
    claim.choice("c = slope of the least-squares fit of 1/a* on L-1 over the paper's lengths 12..48, per seed")
    claim.choice(f"K in {result.offsets}, seeds {list(result.seeds)}; the width models of the C17 sweep")
    claim.choice("the ordering is checked on the difference of seed-mean slopes, with a seed-bootstrap interval")
    x = [L - 1 for L in result.lengths]
    for offset in result.offsets:
        claim.figure(
            f"inverse_target_weight_K{offset}",
            figures.lines(
                f"1/a* against L - 1 per width, K = {offset}",
                "L - 1",
                "1 / a*",
                [
                    figures.series(
                        f"d = {width}",
                        x,
                        per_seed=[[1.0 / a for a in row] for row in result.target_weights(width, offset)],
                    )
                    for width in result.widths
                ],
                note="slope = dilution rate c; band: min to max over seeds",
            ),
        )
    claim.figure(
        "dilution_rate_by_width",
        figures.bars(
            "Dilution rate c by width",
            "c",
            [f"d = {d}" for d in result.widths],
            [{"label": f"K={K}", "per_seed": [result.slopes(d, K) for d in result.widths]} for K in result.offsets],
        ),
    )
    claim.verify()


@pytest.mark.control("C18")
def test_dilution_rate_falls_with_width_control(scale, model_cache, control):
    refute(
        control,
        {**scale.describe(PAPER_SEEDS), "lengths": list(PAPER_EVAL_LENGTHS)},
        "the same per-seed fits with the widths in reverse order (128, 64, 32): the checks then ask for "
        "c(128) > c(64) > c(32), the opposite of the measured ordering, and must fail",
        check,
        reversed_widths(measure(scale, model_cache)),
    )
