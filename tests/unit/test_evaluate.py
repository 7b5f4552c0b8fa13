"""Evaluation of an ensemble agrees with the reference forward on the same sequences."""

from __future__ import annotations

import pytest
import torch

from lengthgen.config import EvalConfig
from lengthgen.engine.evaluate import LengthEval, eval_draw, evaluate_models
from lengthgen.probes import accuracy, mean_profile, target_weight
from lengthgen.tasks import make_task
from lengthgen.engine.train import Member, train_members

from tests.helpers import tiny_spec

PROBE_ATOL = 1e-5  # float32 sums over up to 1024 sequences per chunk


@pytest.mark.parametrize("encoding", ["rope", "ape"])
def test_ensemble_evaluation_matches_reference(encoding):
    spec = tiny_spec(encoding, steps=40)
    models = train_members([Member(spec, 0), Member(spec.replace(task={"offset": 1}), 1)])
    evaluation = EvalConfig(lengths=(12, 30), sequences=1500)  # more than one chunk of 1024
    results = evaluate_models(models, evaluation)
    for model, rows in zip(models, results):
        task = make_task(model.spec.task)
        module = model.module()
        for row in rows:
            tokens, lengths = eval_draw(task, evaluation, row.length)
            batch = task.label(tokens, lengths)
            with torch.no_grad():
                out = module(tokens, lengths)
            assert row.accuracy == pytest.approx(float(accuracy(out.logits, batch.targets)), abs=PROBE_ATOL)
            profile = mean_profile(out.attention[:, 0])  # (L,)
            assert row.profile[0] == pytest.approx(profile.tolist(), abs=PROBE_ATOL)
            expected = float(target_weight(out.attention[:, 0], batch.target_cols))
            assert row.target_weight[0] == pytest.approx(expected, abs=PROBE_ATOL)


def test_length_eval_round_trip_and_summary():
    row = LengthEval(4, 0.5, ((0.1, 0.6, 0.2, 0.1),), (0.6,))
    assert LengthEval.from_dict(row.to_dict()) == row
    assert row.summary() == {
        "length": 4,
        "accuracy": 0.5,
        "selected_offset": -2,
        "peak_height": 0.6,
        "target_weight": 0.6,
    }
