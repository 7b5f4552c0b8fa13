"""The prediction experiments (P1-P6) and ``lengthgen predictions``: cells from the cached grid heads,
the longer APE table and the inference variants wired in, the JSON contract and one-line errors."""

from __future__ import annotations

import json

import pytest

from lengthgen.store.cache import Cache
from lengthgen.cli import main
from lengthgen.config import EvalConfig
from lengthgen.context import Context
from lengthgen.engine.evaluate import evaluate_models
from lengthgen.experiments import predictions as P
from lengthgen.experiments.ape_longer import extended_model

STEPS, SEQUENCES, SEEDS = 5, 32, (0, 1)
CTX = Context(SEEDS, STEPS, EvalConfig(sequences=SEQUENCES))  # the far lengths are each experiment's own


@pytest.fixture(scope="module")
def model_cache(tmp_path_factory):
    return Cache(tmp_path_factory.mktemp("predictions-cache"))


def test_far_cells_of_ape_are_the_extended_heads(model_cache):
    result = P.run_far(CTX, model_cache, "ape", (2,))
    models = P.grid_models(CTX, model_cache, "ape", (2,))
    direct = evaluate_models(
        [extended_model(m, 128) for m in models], EvalConfig(lengths=P.FAR_LENGTHS, sequences=SEQUENCES)
    )
    for L, row in zip(P.FAR_LENGTHS, zip(*direct)):
        assert result.accuracy(2, L) == [r.accuracy for r in row]
        assert result.peak_positions(2, L) == [r.peak_position() for r in row]
    rope = P.run_far(CTX, model_cache, "rope", (2,))
    assert result.replaced(rope).encoding == "ape"


def test_out_of_sample_errors_and_fit(model_cache):
    result = P.run_out_of_sample(CTX.at_lengths((12, 16, 20, 24)), model_cache, (2,))
    items = result.items(2)
    assert len(items) == 2 and len(items[0][0]) == 4 and len(items[0][1]) == 3
    errors = result.errors(items)
    assert errors == pytest.approx([m - p for m, p in zip(result.measured(2), result.predicted(2))])
    assert len(result.seed_errors(2, 128)) == 2


def test_variants_keep_plain_cells_and_vary_the_others(model_cache):
    scaled = P.run_scaling(CTX, model_cache, (2,))
    plain = P.run_interpolation(CTX, model_cache, (2,), kind="plain")
    assert plain.values("accuracy", 2, 48) == scaled.values("accuracy", 2, 48, varied=False)
    assert plain.varied.rows == plain.plain.rows
    assert scaled.values("target_weight", 2, 128) != scaled.values("target_weight", 2, 128, varied=False)
    assert "log-scale" in scaled.table() and json.dumps(scaled.to_json())


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv, expected",
    [
        (["far", "--encoding", "ape"], {"encoding": "ape", "lengths": [64, 96, 128], "seeds": [0]}),
        (["interpolation"], {"variant": "interpolate", "offsets": [2]}),
        (["logit-scaling"], {"variant": "log-scale", "offsets": [2]}),
        (["out-of-sample", "--lengths", "12,16,20"], {"fit_lengths": [12, 16, 20], "far_lengths": [64, 96, 128]}),
    ],
)
def test_cli_json(tmp_path, capsys, argv, expected):
    """The prediction experiments' subcommands print their table and write their JSON."""
    out = tmp_path / "p.json"
    options = ["--offsets", "2", "--steps", str(STEPS), "--seeds", "0", "--sequences", str(SEQUENCES)]
    assert main([*argv, *options, "--workers", "1", "--out", str(out), "--cache-dir", str(tmp_path / "c")]) == 0
    data = json.loads(out.read_text())
    assert {key: data[key] for key in expected} == expected
    assert f"wrote {out}" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, fragment",
    [(["far", "--encoding", "nope"], "'nope'"), (["nope", "--offsets", "9"], "K=9"), (["far", "--seeds", "x"], "'x'")],
)
def test_cli_bad_input_is_one_line(capsys, argv, fragment):
    with pytest.raises(SystemExit) as exit_info:
        raise SystemExit(main([*argv, "--no-cache", "--steps", "1"]))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and fragment in err, err


def test_line_fit_is_the_dilution_fit():
    from lengthgen.probes.dilution import dilution_fit

    lengths, weights = [12, 16, 20, 24, 32, 40, 48], [0.9, 0.85, 0.8, 0.77, 0.7, 0.66, 0.6]
    fit = dilution_fit(lengths, weights)
    intercept, slope = P.line_fit([L - 1 for L in lengths], [1 / a for a in weights])
    assert (intercept, slope) == pytest.approx((fit.intercept, fit.slope), rel=1e-12)


class NoCache(Cache):
    """A cache that must not be reached: the arguments are refused before any model is asked for."""

    def __init__(self):
        pass

    def __getattribute__(self, name):
        raise AssertionError(f"the cache was reached ({name}) before the arguments were checked")


@pytest.mark.parametrize(
    "call, named",
    [
        (lambda c: P.run_far(CTX, c, "rope", (2,), (84,)), "length 84 "),  # a typo for 48
        (lambda c: P.run_far(CTX, c, "ape", (2,), (64, 256)), "length 256 "),
        (lambda c: P.run_out_of_sample(CTX, c, (2,), (100,)), "length 100 "),
        (lambda c: P.run_interpolation(CTX, c, (2,), (40,)), "length 40 "),
        (lambda c: P.run_scaling(CTX, c, (2,), (24,), kind="log-scaled"), "'log-scaled'"),
        (lambda c: P.run_far(CTX, c, "rope", (2,), ()), "no evaluation length"),
    ],
)
def test_a_length_or_kind_the_experiment_does_not_evaluate_is_refused_naming_it(call, named):
    with pytest.raises(ValueError, match="allowed|known|no evaluation length") as raised:
        call(NoCache())
    assert named in str(raised.value), raised.value


def test_every_length_the_predictions_ask_for_is_evaluated():
    for lengths in (P.FAR_LENGTHS, P.INTERPOLATION_LENGTHS, P.SCALING_LENGTHS):
        assert P.evaluated_lengths("rope", lengths) == P.ROPE_LENGTHS
        assert P.evaluated_lengths("ape", lengths) == lengths and P.evaluated_lengths("t5", lengths) == lengths
