"""The negative controls' counterfactuals of C9, C10, C16, C17, C18 and the per-lambda seeds of C9: each is
a result of the claim's own type, built from the same (or the grid's RoPE) models, and reads as intended."""

from __future__ import annotations

import pytest

from lengthgen.store.cache import Cache
from lengthgen.config import EvalConfig, RunSpec
from lengthgen.context import Context
from lengthgen.experiments.ape_controls import NO_FIX, rope_in_place_of_fixes, run_weight_decay
from lengthgen.experiments.dynamics import QUANTITIES, DynamicsResult, flat_counterfactual, trajectory_row
from lengthgen.experiments.sweeps import (
    CarrierFractions,
    CarrierSweepResult,
    CarrierSweepRow,
    WidthDilutionResult,
    WidthDilutionRow,
    reversed_widths,
    untrained_counterfactual,
)
from lengthgen.probes.dilution import DilutionFit

STEPS = [0, 50, 100, 150, 200]


def dynamics_result() -> DynamicsResult:
    series = {
        "key_carrier": [0.05, 0.5, 0.75, 0.8, 0.8],
        "query_carrier": [0.04, 0.2, 0.6, 0.85, 0.9],
        "rank_energy": [0.1, 0.45, 0.5, 0.5, 0.5],
    }
    trajectory = {"step": STEPS, "loss": [0.0] * 5, **{q: [[v] for v in values] for q, values in series.items()}}
    return DynamicsResult((2,), (0,), 200, 100, [trajectory_row(2, 0, trajectory, 100)], RunSpec())


def test_initial_fraction_and_emergence_gap():
    result = dynamics_result()
    assert result.initial_fraction(2, "key_carrier") == pytest.approx([0.05 / 0.8])
    assert result.stat(2, "key_carrier", "emergence_step") == [100.0]  # 0.75 >= 0.72
    assert result.stat(2, "query_carrier", "emergence_step") == [150.0]
    assert result.stat(2, "rank_energy", "emergence_step") == [50.0]
    assert result.emergence_gap(2, "query_carrier", "rank_energy") == [100.0]


def test_flat_counterfactual_starts_at_the_final_value():
    result = dynamics_result()
    flat = flat_counterfactual(result)
    assert (flat.steps, flat.emerge_by, flat.offsets, flat.seeds) == (200, 100, (2,), (0,))
    for q in QUANTITIES:
        assert flat.stat(2, q, "final") == result.stat(2, q, "final")
        assert flat.initial_fraction(2, q) == [1.0]
        assert flat.stat(2, q, "emergence_step") == [0.0]
        assert flat.stat(2, q, "plateau_deviation") == [0.0]
        assert getattr(flat.rows[0], q) == (getattr(result.rows[0], q)[-1],) * len(STEPS)
    assert result.stat(2, "key_carrier", "emergence_step") == [100.0]  # the input is left as it was


def test_untrained_counterfactual_reads_the_baseline():
    rows = [
        CarrierSweepRow(
            "width",
            32,
            2,
            s,
            trained=CarrierFractions(query=0.85, key=0.8),
            baseline=CarrierFractions(query=0.04, key=0.05 + s),
        )
        for s in (0, 1)
    ]
    result = CarrierSweepResult({"width": (32,)}, (2,), (0, 1), 100, rows)
    flat = untrained_counterfactual(result)
    assert flat.fraction("width", 32, 2) == [0.05, 1.05] and flat.fraction("width", 32, 2, "query") == [0.04, 0.04]
    assert flat.fraction("width", 32, 2, baseline=True) == [0.05, 1.05]
    assert result.fraction("width", 32, 2) == [0.8, 0.8]


def test_reversed_widths_keeps_every_fit():
    rows = [
        WidthDilutionRow(d, 2, 0, (0.5,), DilutionFit(slope=c, intercept=1.0, r2=0.9))
        for d, c in ((32, 0.02), (64, 0.01), (128, 0.001))
    ]
    result = WidthDilutionResult((32, 64, 128), (2,), (0,), 100, EvalConfig(lengths=(12,)), rows)
    flipped = reversed_widths(result)
    assert flipped.widths == (128, 64, 32)
    assert [flipped.slopes(d, 2) for d in flipped.widths] == [[0.001], [0.01], [0.02]]


@pytest.mark.slow
def test_weight_decay_takes_the_grid_seeds_at_lambda_zero(tmp_path):
    cache = Cache(tmp_path)
    ctx = Context((0,), 20, EvalConfig(lengths=(16, 20), sequences=32))
    result = run_weight_decay(ctx, cache, (2,), (0.0, 1e-2), grid_seeds=(0, 1))
    assert result.seeds_by_decay == {0.0: (0, 1), 1e-2: (0,)} and result.seeds == (0, 1)
    assert [len(result.accuracy(d, 2, 20)) for d in result.decays] == [2, 1]
    assert result.to_json()["config"]["seeds_by_weight_decay"] == {"0": [0, 1], "0.01": [0]}
    assert result.has_table and len(result.norms(0.0, 2, "untrained")) == 2
    rope = run_weight_decay(ctx, cache, (2,), (0.0,), grid_seeds=(0, 1), encoding="rope")
    assert not rope.has_table and rope.to_json()["cells"][0]["table_norms"] == {}
    assert "ROPE accuracy" in rope.table()
    fixes = rope_in_place_of_fixes(ctx.replace(seeds=(0, 1)), cache, (2,), ("clamp", "rescale"))
    assert fixes.fixes == (NO_FIX, "clamp", "rescale") and fixes.lengths == (20,)
    assert (
        fixes.accuracy("clamp", 2, 20)
        == fixes.accuracy(NO_FIX, 2, 20)
        == [r.at(20).accuracy for r in rope.runs[0.0, 2]]
    )
    with pytest.raises(ValueError, match="'stretch'"):
        rope_in_place_of_fixes(ctx, cache, (2,), ("stretch",))


def test_cli_default_seeds_follow_the_claims():
    """Each experiment subcommand's default seeds are those its claim test runs at the paper's point."""
    from claims import test_c09_ape_weight_decay as c9, test_c10_ape_fixes as c10
    from claims import test_c16_dynamics as c16, test_c17_carrier_sweep as c17
    from lengthgen.cli import build_parser

    parser = build_parser()
    decay = parser.parse_args(["weight-decay"])
    assert (decay.seeds, decay.grid_seeds) == (tuple(range(c9.PAPER_SEEDS)), tuple(range(c9.GRID_SEEDS)))
    assert (len(decay.seeds), len(decay.grid_seeds)) == (5, 8)
    assert parser.parse_args(["ape-fixes"]).seeds == tuple(range(c10.PAPER_SEEDS)) == tuple(range(8))
    assert parser.parse_args(["carrier-sweep"]).seeds == tuple(range(c17.PAPER_SEEDS)) == (0, 1, 2, 3, 4)
    assert parser.parse_args(["width-dilution"]).seeds == (0, 1, 2, 3, 4)
    assert parser.parse_args(["dynamics"]).seeds == tuple(range(c16.PAPER_SEEDS)) == (0, 1, 2, 3, 4)
