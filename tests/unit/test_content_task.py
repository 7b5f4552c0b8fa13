"""The content-conditioned task (labels by the query token's half of the vocabulary) and the
mode-conditioned attention probes, on hand-made inputs."""

from __future__ import annotations

import pytest
import torch

from lengthgen.config import TaskConfig
from lengthgen.context import Context
from lengthgen.experiments.common import paper_spec
from lengthgen.probes.modes import mode_profiles, mode_target_weight
from lengthgen.seeding import generator
from lengthgen.tasks import ContentConditioned, OffsetRetrieval, make_task
from lengthgen.engine.train import Member, ensemble_signature

CFG = TaskConfig(kind="content", offset=2, alt_offset=3)


def test_registered_and_kind_checked():
    assert isinstance(make_task(CFG), ContentConditioned)
    with pytest.raises(ValueError, match="kind='content'"):
        ContentConditioned(TaskConfig())


def test_query_token_picks_the_offset():
    task = make_task(CFG)
    #                 positions:  0   1   2   3   4   5   6   7 (query)
    tokens = torch.tensor(
        [
            [11, 12, 13, 14, 15, 16, 17, 3],  # query 3 < 10: K1 = 2 -> s[5] = 16
            [11, 12, 13, 14, 15, 16, 17, 19],  # query 19 >= 10: K2 = 3 -> s[4] = 15
            [1, 2, 3, 4, 5, 6, 7, 9],  # query 9 (last of the lower half): K1 -> s[5] = 6
            [1, 2, 3, 4, 5, 6, 7, 10],
        ]
    )  # query 10 (first of the upper half): K2 -> s[4] = 5
    batch = task.label(tokens, torch.full((4,), 8))
    assert batch.targets.tolist() == [16, 15, 6, 5]
    assert batch.target_cols.tolist() == [5, 4, 5, 4]
    assert task.mode(tokens).tolist() == [0, 1, 0, 1]
    assert task.target_offsets(tokens).tolist() == [2, 3, 2, 3]


def test_labels_of_mixed_length_training_batches():
    task = make_task(CFG)
    batch = task.sample_training(generator(0, "data"), steps=3, batch=64)  # (T, B, P) right-aligned
    P = batch.width
    assert batch.tokens.shape == (3, 64, 16)
    offsets = torch.where(batch.tokens[..., -1] < 10, 2, 3)
    assert torch.equal(batch.target_cols, P - 1 - offsets)
    assert torch.equal(batch.targets, batch.tokens.gather(-1, batch.target_cols[..., None]).squeeze(-1))
    assert bool(((batch.lengths >= 8) & (batch.lengths <= 16)).all())
    assert bool((batch.target_cols >= P - batch.lengths).all())  # the target is a real token, never padding
    modes = task.mode(batch.tokens)
    assert 0.35 < float(modes.double().mean()) < 0.65  # each mode asked by about half the sequences


def test_draws_are_the_fixed_offset_tasks():
    """Same generator -> same sequences as the fixed-offset task: every model is scored on the same data."""
    content, offset = make_task(CFG), OffsetRetrieval(TaskConfig(offset=2))
    a = content.draw_batch(generator(0, "eval:20"), 32, 20)
    b = offset.draw_batch(generator(0, "eval:20"), 32, 20)
    assert all(torch.equal(x, y) for x, y in zip(a, b))
    a = content.draw_training(generator(1, "data"), 2, 16)
    b = offset.draw_training(generator(1, "data"), 2, 16)
    assert all(torch.equal(x, y) for x, y in zip(a, b))
    with pytest.raises(ValueError, match="length 3"):
        content.draw_batch(generator(0, "x"), 4, 3)


def test_seeds_share_an_ensemble_pass():
    spec = paper_spec(Context((), 10), task={"kind": "content", "offset": 2, "alt_offset": 3}, model={"heads": 2})
    assert ensemble_signature(Member(spec, 0).spec) == ensemble_signature(Member(spec, 4).spec)


def test_mode_profiles_by_hand():
    attention = torch.tensor(
        [
            [0.0, 0.0, 1.0, 0.0],  # mode 0
            [0.0, 0.5, 0.5, 0.0],  # mode 0
            [0.0, 1.0, 0.0, 0.0],  # mode 1
            [0.25, 0.25, 0.25, 0.25],
        ]  # mode 2
    )  # (B=4, L=4)
    modes = torch.tensor([0, 0, 1, 2])
    profiles = mode_profiles(attention[None], modes, 3)  # (1, 3, 4)
    expected = torch.tensor([[0.0, 0.25, 0.75, 0.0], [0.0, 1.0, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25]])
    torch.testing.assert_close(profiles[0], expected.double())
    # targets at offsets (1, 2, 3) from the query (position 3): positions 2, 1, 0
    on_target = mode_target_weight(profiles, (1, 2, 3))[0]
    torch.testing.assert_close(on_target, torch.tensor([0.75, 1.0, 0.25]).double())


def test_mode_profiles_reject_bad_modes():
    with pytest.raises(ValueError, match="do not match"):
        mode_profiles(torch.zeros(2, 3, 5), torch.zeros(2, dtype=torch.long), 2)
    with pytest.raises(ValueError, match=r"\[0, 2\)"):
        mode_profiles(torch.zeros(3, 5), torch.tensor([0, 1, 2]), 2)
    assert torch.isnan(mode_profiles(torch.ones(2, 3), torch.tensor([0, 0]), 2)[1]).all()  # an empty mode
