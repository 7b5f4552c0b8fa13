"""The fixed-offset task: explicit generators, right-aligned batches, targets K before the query."""

from __future__ import annotations

import pytest
import torch

from lengthgen.config import TaskConfig
from lengthgen.seeding import derive_seed, generator
from lengthgen.tasks import absolute_positions, make_task, valid_mask


def test_eval_batch_targets_are_k_before_the_query():
    task = make_task(TaskConfig(offset=3))
    batch = task.sample_batch(generator(0, "t"), 50, 20)
    assert batch.tokens.shape == (50, 20) and bool((batch.lengths == 20).all())
    assert torch.equal(batch.targets, batch.tokens[:, 20 - 1 - 3])
    assert bool((batch.target_cols == 16).all())


def test_training_lengths_uniform_in_range_and_right_aligned():
    cfg = TaskConfig(offset=2, min_len=8, max_len=16)
    batch = make_task(cfg).sample_training(generator(1, "t"), 40, 256)
    assert batch.tokens.shape == (40, 256, 16)
    assert int(batch.lengths.min()) == 8 and int(batch.lengths.max()) == 16
    counts = torch.bincount(batch.lengths.flatten(), minlength=17)[8:]
    assert counts.min() > 0.8 * counts.float().mean(), "every length in [8, 16] is drawn about equally often"
    positions = absolute_positions(batch.lengths, 16)  # (T, B, P)
    assert bool((positions[..., -1] == batch.lengths - 1).all()), "the query is the last column at position L-1"
    target_positions = positions.gather(-1, batch.target_cols[..., None]).squeeze(-1)
    assert bool((target_positions == batch.lengths - 1 - 2).all()), "the target sits K before the query"
    assert bool(valid_mask(batch.lengths, 16).sum(-1).eq(batch.lengths).all())


def test_same_generator_seed_same_batch_and_no_global_rng():
    task = make_task(TaskConfig())
    torch.manual_seed(0)
    a = task.sample_training(generator(5, "data"), 3, 8)
    torch.manual_seed(123)  # the global RNG plays no part
    b = task.sample_training(generator(5, "data"), 3, 8)
    assert torch.equal(a.tokens, b.tokens) and torch.equal(a.lengths, b.lengths)
    c = task.sample_training(generator(6, "data"), 3, 8)
    assert not torch.equal(a.tokens, c.tokens)


def test_tokens_cover_the_vocabulary():
    tokens = make_task(TaskConfig(vocab=20)).sample_batch(generator(0, "v"), 2000, 12).tokens
    assert int(tokens.min()) == 0 and int(tokens.max()) == 19


def test_eval_length_must_exceed_offset():
    with pytest.raises(ValueError, match="length 3"):
        make_task(TaskConfig(offset=3)).sample_batch(generator(0, "t"), 2, 3)


def test_derived_seeds_are_stable_and_distinct():
    assert derive_seed(0, "init") == derive_seed(0, "init")
    assert len({derive_seed(s, p) for s in range(20) for p in ("init", "data", "eval:12")}) == 60
