"""The longer APE table (P1-P3): trained rows kept exactly, the extension is the init generator's stream
continued (the rows a longer table's initialisation would have drawn)."""

from __future__ import annotations

import pytest
import torch

from lengthgen.config import EvalConfig
from lengthgen.engine.evaluate import evaluate_models
from lengthgen.experiments.ape_longer import extended_model
from lengthgen.probes.ape_extension import extended_state, extended_table
from lengthgen.probes.ape_fixes import TABLE
from lengthgen.engine.train import Member, build_model, train_members
from tests.helpers import tiny_spec


@pytest.fixture(scope="module")
def ape_models():
    return train_members([Member(tiny_spec("ape", steps=10), seed) for seed in (0, 3)])


def test_trained_rows_are_kept_exactly(ape_models):
    for model in ape_models:
        table = extended_model(model, 128).state[TABLE]
        assert table.shape == (128, model.state[TABLE].shape[1])
        assert torch.equal(table[:48], model.state[TABLE])  # rows 0..47 of the extension are the model's table


def test_extension_is_the_init_generator_continued(ape_models):
    for model in ape_models:
        short = build_model(model.spec, model.seed).encoding.pos.weight  # the 48 rows the init drew
        long = build_model(model.spec.replace(model={"positions": 128}), model.seed).encoding.pos.weight
        assert torch.equal(long[:48], short)  # the same stream: a longer table starts with the same rows
        assert torch.equal(extended_table(model.state[TABLE], long)[48:], long[48:])
        assert torch.equal(extended_model(model, 128).state[TABLE][48:], long[48:])
        assert torch.equal(model.state[TABLE][16:], short[16:])  # untrained rows: still their initial values


def test_extended_model_evaluates_as_before_inside_the_old_table(ape_models):
    evaluation = EvalConfig(lengths=(12, 40), sequences=64)
    longer = [extended_model(m, 128) for m in ape_models]
    assert longer[0].spec.model.positions == 128 and ape_models[0].spec.model.positions == 48
    before, after = evaluate_models(ape_models, evaluation), evaluate_models(longer, evaluation)
    for a, b in zip(before, after):
        for x, y in zip(a, b):
            assert x.accuracy == y.accuracy
            torch.testing.assert_close(torch.tensor(x.profile), torch.tensor(y.profile), atol=1e-6, rtol=0)
    evaluate_models(longer, EvalConfig(lengths=(128,), sequences=16))  # runs at the new length


def test_refusals(ape_models):
    rope = train_members([Member(tiny_spec("rope", steps=2), 0)])[0]
    assert extended_model(rope, 128) is rope
    with pytest.raises(ValueError, match="not an APE head"):
        extended_state(rope.state, torch.zeros(128, 8))
    with pytest.raises(ValueError, match="positions=20"):
        extended_table(ape_models[0].state[TABLE], torch.zeros(20, 8))
