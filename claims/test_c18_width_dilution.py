"""C18 (Fig. 4): the dilution rate c falls with width, c(d=32) > c(d=64) > c(d=128).

The RoPE heads of C17's width points (d in {32, 64, 128}, m = 20, lengths [8, 16], tau = 1; d = 64 is the
C1 grid model; K in {2, 3}, seeds 0-2; the same models as C17), evaluated at the paper's lengths
{12, ..., 48} (4096 sequences). Per seed, c is the slope of the least-squares fit of 1/a* on L - 1
(``probes/dilution.dilution_fit``, as C6), a* the mean attention weight on the target.

Assert (catalogue, per K): mean over seeds of c(32) > c(64) > c(128) (checked as the mean of the
per-seed differences > 0, which is the difference of the means). The fit runs over the paper's lengths at
both scales (the quick scale's cut at L = 40 serves C1's accuracy threshold; a slope is better determined
over the full range). Quick: K = 2, seeds 0-2, 1000 steps, 1024 sequences.
"""

from __future__ import annotations

import pytest

from claims.support import memo
from claims.test_c17_carrier_sweep import OFFSETS, PAPER_SEEDS
from lengthgen import figures
from lengthgen.config import PAPER_EVAL_LENGTHS
from lengthgen.experiments.sweeps import WIDTHS, run_width_dilution


@pytest.mark.claim("C18")
def test_dilution_rate_falls_with_width(scale, cache, claim):
    claim.set_scale(**{**scale.describe(PAPER_SEEDS), "lengths": list(PAPER_EVAL_LENGTHS)})
    evaluation = scale.evaluation(PAPER_EVAL_LENGTHS)
    result = memo(("width-dilution", scale),
                  lambda: run_width_dilution(scale.seed_list(PAPER_SEEDS), scale.steps, OFFSETS[scale.name], WIDTHS,
                                             evaluation, cache))
    claim.choice("c = slope of the least-squares fit of 1/a* on L-1 over the paper's lengths 12..48, per seed")
    claim.choice(f"K in {result.offsets}, seeds {list(result.seeds)}; the width models of the C17 sweep")
    for offset in result.offsets:
        for wide, narrow in zip(result.widths[1:], result.widths):
            differences = [a - b for a, b in zip(result.slopes(narrow, offset), result.slopes(wide, offset))]
            claim.check(f"K={offset}: c(d={narrow}) - c(d={wide}), mean over seeds", differences, ">", 0.0,
                        paper="c falls with width")
            claim.note(f"K={offset}: c(d={narrow}) > c(d={wide}) in {sum(x > 0 for x in differences)} of "
                       f"{len(differences)} seeds")
        for width in result.widths:
            claim.measure(f"K={offset} d={width}: dilution rate c", result.slopes(width, offset))
            claim.measure(f"K={offset} d={width}: R^2 of the fit", result.r2(width, offset))
    x = [L - 1 for L in result.lengths]
    for offset in result.offsets:
        claim.figure(
            f"inverse_target_weight_K{offset}",
            figures.lines(
                f"1/a* against L - 1 per width, K = {offset}",
                "L - 1",
                "1 / a*",
                [figures.series(f"d = {width}", x,
                                per_seed=[[1.0 / a for a in row] for row in result.target_weights(width, offset)])
                 for width in result.widths],
                note="slope = dilution rate c; band: min to max over seeds",
            ),
        )
    claim.figure(
        "dilution_rate_by_width",
        figures.bars("Dilution rate c by width", "c", [f"d = {d}" for d in result.widths],
                     [{"label": f"K={K}", "per_seed": [result.slopes(d, K) for d in result.widths]}
                      for K in result.offsets]),
    )
    claim.verify()
