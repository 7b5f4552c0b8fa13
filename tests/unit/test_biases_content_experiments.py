"""The C19 and C21/C22 experiments end to end at toy scale: their CLI contract, and the content
experiment's mode-conditioned profiles against the evaluation's own (unconditioned) profile."""

from __future__ import annotations

import json

import pytest
import torch

from lengthgen.store.cache import Cache
from lengthgen.cli import main
from lengthgen.config import EvalConfig
from lengthgen.context import Context
from lengthgen.experiments.biases import run_biases
from lengthgen.experiments.content import run_content, untrained_content
from lengthgen.tasks import make_task
from lengthgen.engine.evaluate import eval_draw

TOY = EvalConfig(lengths=(12, 20), sequences=64)
# the two profiles come from different summation orders of the same float32 attention
PROFILE_TOLERANCE = 1e-6


@pytest.mark.slow
def test_mode_profiles_average_to_the_evaluation_profile(tmp_path):
    result = run_content(Context((0, 1), 20, TOY), Cache(tmp_path), heads=(1, 2))
    task = make_task(result.specs[1].task)
    for length in TOY.lengths:
        modes = task.mode(eval_draw(task, TOY, length)[0])  # (N,) the same sequences as the evaluation
        share = torch.stack([(modes == 0).double().mean(), (modes == 1).double().mean()])  # (2,)
        for heads in result.heads:
            profiles = result.profiles[heads][length]  # (S, H, 2, L)
            mixed = (profiles * share[:, None]).sum(-2)  # (S, H, L)
            for i, run in enumerate(result.runs[heads]):
                expected = torch.tensor(run.at(length).profile, dtype=torch.float64)  # (H, L)
                torch.testing.assert_close(mixed[i], expected, atol=PROFILE_TOLERANCE, rtol=0)
            assert len(result.peak(heads, length)) == 2
            assert all(0 < p <= 1 for p in result.peak(heads, length) + result.retrieving_peak(heads, length))
    assert [len(e) for e in result.energies[2]] == [2, 2]
    assert "accuracy per length" in result.table()


@pytest.mark.slow
def test_untrained_counterfactual_and_target_readings(tmp_path):
    result = run_content(Context((0, 1), 20, TOY), Cache(tmp_path), heads=(1, 2))
    untrained = untrained_content(result)
    assert (untrained.heads, untrained.seeds, untrained.evaluation) == (result.heads, result.seeds, result.evaluation)
    for heads in result.heads:
        for run, original in zip(untrained.runs[heads], result.runs[heads]):
            initial = original.model.initial_module().state_dict()
            assert all(torch.equal(value, initial[name]) for name, value in run.model.state.items())
        assert untrained.energies[heads] == untrained.baseline_energies[heads]  # its weights are the initial ones
        for length in TOY.lengths:
            weights = result.head_target_weights(heads, length)  # (S, H, 2)
            best = result.retrieving_target_weight(heads, length)
            assert all(b >= w - 1e-12 for b, w in zip(best, weights.mean((1, 2)).tolist()))
            at_target = [
                [[o == -k for o, k in zip(modes, result.offsets)] for modes in seed]
                for seed in result.selected_offsets(heads, length)
            ]
            expected = [sum(sum(modes) for modes in seed) / (2 * heads) for seed in at_target]
            assert result.peaks_at_target(heads, length) == pytest.approx(expected)
    one_head = result.head_target_weights(1, 12).mean((1, 2)).tolist()  # H = 1: the retrieving head is the head
    assert result.retrieving_target_weight(1, 12) == pytest.approx(one_head)


@pytest.mark.slow
def test_biases_result_reads_the_grid(tmp_path):
    result = run_biases(Context((0,), 20, TOY), Cache(tmp_path), offsets=(2,), encodings=("t5", "alibi"))
    assert result.in_range == (12,) and result.beyond == (20,) and result.reference_length == 12
    for encoding in ("t5", "alibi"):
        shift = result.selection_shift(encoding, 2, 20)
        assert shift == [result.selected_offsets(encoding, 2, 20)[0] - result.selected_offsets(encoding, 2, 12)[0]]
        assert result.range_accuracy(encoding, 2, (12, 20)) == [
            sum(result.accuracy(encoding, 2, L)[0] for L in (12, 20)) / 2
        ]
    json.dumps(result.to_json())
    with pytest.raises(ValueError, match="'nonsense'"):
        run_biases(Context((0,), 1, TOY), Cache(tmp_path), encodings=("nonsense",))


@pytest.mark.slow
@pytest.mark.parametrize(
    "command, extra", [("biases", ["--offsets", "2", "--encodings", "alibi"]), ("content", ["--heads", "1,2"])]
)
def test_cli_json(tmp_path, capsys, command, extra):
    out = tmp_path / "r.json"
    code = main(
        [
            command,
            "--seeds",
            "0",
            "--steps",
            "5",
            "--sequences",
            "32",
            "--out",
            str(out),
            "--cache-dir",
            str(tmp_path / "c"),
            *extra,
        ]
    )
    assert code == 0
    assert f"wrote {out}" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["config"]["seeds"] == [0]
    assert len(data["cells"]) == (1 if command == "biases" else 2)


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["content", "--offsets", "2"], "needs two offsets K1,K2"),
        (["content", "--offsets", "2,2", "--steps", "1"], "alt_offset=2"),
        (["content", "--heads", "3", "--steps", "1"], "heads=3"),
        (["biases", "--encodings", "foo", "--steps", "1"], "'foo'"),
    ],
)
def test_cli_errors_are_one_line(tmp_path, capsys, argv, fragment):
    assert main([*argv, "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert fragment in err and len(err.strip().splitlines()) == 1
