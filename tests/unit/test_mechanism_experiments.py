"""The mechanism experiments (carrier, dilution, linear, bases) and their CLI subcommands, on models trained
for a few steps: result shapes, JSON, reuse of the C1 grid's models through the cache, bad input."""

from __future__ import annotations

import json

import pytest

from lengthgen.store.cache import Cache
from lengthgen.cli import main
from lengthgen.config import EvalConfig
from lengthgen.context import Context
from lengthgen.experiments.bases import run_bases
from lengthgen.experiments.carrier import PROFILE_SPAN, run_carrier
from lengthgen.experiments.dilution import inverse_steps, run_dilution
from lengthgen.experiments.common import column_means
from lengthgen.experiments.linear import run_linear
from lengthgen.probes.dilution import dilution_fit, mean_curve_fit

STEPS = 5  # a few steps: these tests check plumbing, not the claims
EVAL = EvalConfig(lengths=(12, 20, 48), sequences=64)
CTX = Context((0, 1), STEPS, EVAL, progress=False)


def test_inverse_steps():
    assert inverse_steps([0.5, 0.25, 0.2]) == pytest.approx([2.0, 1.0])


def test_mean_curve_fit_agrees_with_the_fit_of_the_mean():
    lengths = (12, 16, 20, 24, 32, 40, 48)
    rows = [[1 / (1.1 + 0.01 * s + 0.009 * (L - 1) + 0.002 * ((L * s) % 5)) for L in lengths] for s in range(5)]
    fast = mean_curve_fit(lengths, rows)
    slow = dilution_fit(lengths, column_means(rows))
    assert fast.slope == pytest.approx(slow.slope, rel=1e-12)
    assert fast.intercept == pytest.approx(slow.intercept, rel=1e-12)
    assert fast.r2 == pytest.approx(slow.r2, rel=1e-12)
    with pytest.raises(ValueError, match="shape"):
        mean_curve_fit(lengths[:2], [r[:2] for r in rows])


@pytest.mark.slow
def test_experiments_share_the_grid_models(tmp_path):
    cache = Cache(tmp_path)
    carrier = run_carrier(CTX, cache, (1, 2))
    assert [(r.offset, r.seed) for r in carrier.rows] == [(1, 0), (1, 1), (2, 0), (2, 1)]
    row = carrier.rows[0]
    assert len(row.trained.profile) == PROFILE_SPAN and set(row.accuracy) == set(EVAL.lengths)
    assert row.trained != row.baseline  # trained weights moved away from the initialisation
    trained_before = cache.stats["train:computed"]
    dilution = run_dilution(CTX, cache, (2,))
    linear = run_linear(CTX, cache, (2,))
    bases = run_bases(CTX, cache, (2,), (1e3, 1e4))
    # dilution reuses the grid's K=2 models; linear adds only its linear heads, bases only base 1e3
    assert cache.stats["train:computed"] - trained_before == 4
    for result in (carrier, dilution, linear, bases):
        json.dumps(result.to_json())
        assert result.table()
    for r in dilution.rows:
        assert all(gap >= 0 for gap in r.gap)  # the bound holds even after 5 steps
        assert all(ratio <= 1 for ratio in r.bound_ratio)
        assert [m.span for m in r.margins] == list(EVAL.lengths)  # mu_L over the offsets at L
        assert all(b <= s for b, s in zip(r.span_bound, r.bound))  # mu_L >= the whole-span mu
        assert all(0 <= w <= 1 for w in r.other_weight)
    other = dilution.at_other_positions()
    assert [r.target_weight for r in other.rows] == [r.other_weight for r in dilution.rows]
    assert [r.bound for r in other.rows] == [r.bound for r in dilution.rows]
    assert len(dilution.mean_target_weight(2)) == len(EVAL.lengths)
    assert linear.geometry("softmax", 2, "trained", "key_fraction") == carrier.values(2, "trained", "key_fraction")
    assert len(bases.selected_offsets(1e3, 2)) == 2 * len(EVAL.lengths)
    assert len(bases.ood_accuracy(1e4, 2)) == 2
    only = carrier.select((2,))
    assert only.offsets == (2,) and only.spec.task.offset == 2 and only.rows == carrier.of(2)
    with pytest.raises(ValueError, match="offsets \\[3\\]"):
        carrier.select((3,))
    untrained = carrier.untrained()
    assert [r.trained for r in untrained.rows] == [r.baseline for r in carrier.rows]
    assert all(r.accuracy is None for r in untrained.rows)
    ape = run_dilution(CTX, cache, (2,), encoding="ape")
    assert all(r.margin is None and len(r.target_weight) == len(EVAL.lengths) for r in ape.rows)
    assert all("margin" not in r for r in ape.to_json()["rows"])  # an APE row's JSON carries no margins
    assert ape.table() and json.dumps(ape.to_json())


def test_dilution_rejects_lengths_beyond_the_margin_span_before_training(tmp_path):
    with pytest.raises(ValueError, match="span 48"):
        run_dilution(Context((0,), STEPS, EvalConfig(lengths=(12, 20, 60), sequences=8)), Cache(tmp_path), (2,))
    with pytest.raises(ValueError, match="increasing"):
        run_dilution(Context((0,), STEPS, EvalConfig(lengths=(20, 12, 24), sequences=8)), Cache(tmp_path), (2,))
    assert not (tmp_path / "train").exists()


@pytest.mark.slow
@pytest.mark.parametrize("command", ["carrier", "dilution", "linear", "bases"])
def test_cli_prints_a_table_and_writes_json(command, tmp_path, capsys):
    out = tmp_path / f"{command}.json"
    argv = [
        command,
        "--offsets",
        "2",
        "--seeds",
        "0",
        "--steps",
        str(STEPS),
        "--sequences",
        "32",
        "--out",
        str(out),
        "--cache-dir",
        str(tmp_path / "c"),
        "--workers",
        "1",
    ]
    if command == "bases":
        argv += ["--bases", "1e3,1e4"]
    assert main(argv) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["rows"] and data["config"]["seeds"] == [0]


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["bases", "--bases", "1e3,x"], "'1e3,x'"),
        (["bases", "--bases", "1"], "rope_base=1.0"),
        (["carrier", "--offsets", "0"], "K=0"),
        (["dilution", "--lengths", "12,16,60"], "60"),
        (["linear", "--seeds", "3-1"], "'3-1'"),
    ],
)
def test_bad_input_exits_2_with_one_line(argv, fragment, capsys):
    with pytest.raises(SystemExit) as exit_info:
        raise SystemExit(main(argv + ["--no-cache", "--steps", "1"]))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and fragment in err
