"""The inference-time APE fixes (C10): each position map against an independent resize, and the fixed
head never reads an untrained row."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
import torch
import torch.nn.functional as F

from lengthgen.config import EvalConfig
from lengthgen.engine.evaluate import evaluate_models
from lengthgen.probes.ape_fixes import FIXES, TABLE, fixed_state, fixed_table, position_map, source_index
from lengthgen.engine.train import Member, train_members
from tests.helpers import tiny_spec

TRAINED = 16


def _table(rows: int = 48, d: int = 8) -> torch.Tensor:
    return torch.randn(rows, d, generator=torch.Generator().manual_seed(0), dtype=torch.float64)


@pytest.mark.parametrize("fix", FIXES)
@pytest.mark.parametrize("length", [2, 12, 16])
def test_identity_inside_the_trained_range(fix, length):
    assert torch.equal(position_map(fix, length, TRAINED), torch.eye(TRAINED, dtype=torch.float64)[:length])


@pytest.mark.parametrize("fix", FIXES)
@pytest.mark.parametrize("length", [17, 20, 33, 48])
def test_maps_mix_trained_rows_convexly_and_keep_the_ends(fix, length):
    M = position_map(fix, length, TRAINED)
    assert M.shape == (length, TRAINED)
    assert (M >= 0).all() and torch.allclose(M.sum(1), torch.ones(length, dtype=torch.float64))
    index = source_index(fix, length, TRAINED)
    assert index[0] == 0 and index[-1] == TRAINED - 1  # first position -> row 0, query -> last trained row
    assert all(b >= a for a, b in itertools.pairwise(index))  # order preserved


@pytest.mark.parametrize("length", [17, 20, 33, 48])
def test_interpolate_is_a_linear_resize_with_aligned_corners(length):
    table = _table()
    expected = F.interpolate(table[:TRAINED].T[None], size=length, mode="linear", align_corners=True)[0].T
    torch.testing.assert_close(fixed_table(table, "interpolate", length, TRAINED)[:length], expected)


@pytest.mark.parametrize("length", [17, 20, 33, 48])
def test_rescale_is_a_nearest_neighbour_resize(length):
    table = _table()
    expected = F.interpolate(table[:TRAINED].T[None], size=length, mode="nearest")[0].T
    torch.testing.assert_close(fixed_table(table, "rescale", length, TRAINED)[:length], expected)


def test_clamp_repeats_the_last_trained_row():
    table = _table()
    out = fixed_table(table, "clamp", 40, TRAINED)
    assert torch.equal(out[:TRAINED], table[:TRAINED])
    assert torch.equal(out[TRAINED:40], table[TRAINED - 1].expand(40 - TRAINED, -1))


def test_rows_past_the_length_untouched_and_input_unchanged():
    table = _table()
    copy = table.clone()
    out = fixed_table(table, "interpolate", 24, TRAINED)
    assert torch.equal(table, copy)
    assert torch.equal(out[24:], table[24:])
    out = fixed_table(table[None].expand(3, -1, -1), "rescale", 24, TRAINED)  # leading member dimension
    assert out.shape == (3, 48, 8) and torch.equal(out[1, 24:], table[24:])


def test_bad_input():
    with pytest.raises(ValueError, match="'stretch'"):
        position_map("stretch", 20, TRAINED)
    with pytest.raises(ValueError, match="length 60"):
        fixed_table(_table(), "clamp", 60, TRAINED)
    with pytest.raises(ValueError, match="not an APE head"):
        fixed_state({"W_Q.weight": torch.zeros(2, 2)}, "clamp", 20, TRAINED)


@pytest.mark.slow
@pytest.mark.parametrize("fix", FIXES)
def test_fixed_head_reads_only_trained_rows(fix):
    model = train_members([Member(tiny_spec("ape", steps=20), 0)])[0]
    evaluation = EvalConfig(lengths=(24,), sequences=64)
    fixed = dataclasses.replace(model, state=fixed_state(model.state, fix, 24, TRAINED))
    poisoned_state = dict(model.state)
    poisoned_state[TABLE] = model.state[TABLE].clone()
    poisoned_state[TABLE][TRAINED:] = 1e3  # the untrained rows: a fix must not read them
    poisoned = dataclasses.replace(model, state=fixed_state(poisoned_state, fix, 24, TRAINED))
    a, b = evaluate_models([fixed, poisoned], evaluation)
    assert a[0] == b[0]
    unfixed = evaluate_models([model], EvalConfig(lengths=(16,), sequences=64))[0][0]
    at_16 = dataclasses.replace(model, state=fixed_state(model.state, fix, 16, TRAINED))
    assert evaluate_models([at_16], EvalConfig(lengths=(16,), sequences=64))[0][0] == unfixed


def test_a_transform_needs_its_variant_name(tmp_path):
    """A transform without a variant would be cached under the plain evaluation's key."""
    from lengthgen.store.cache import Cache
    from lengthgen.store.one_layer import evaluated

    with pytest.raises(ValueError, match="variant None"):
        evaluated([], EvalConfig(lengths=(20,)), Cache(tmp_path), transform=lambda model: model)
    with pytest.raises(ValueError, match="'clamp'"):
        evaluated([], EvalConfig(lengths=(20,)), Cache(tmp_path), variant={"fix": "clamp"})
    with pytest.raises(ValueError, match="variant None"):  # so would another evaluate function
        evaluated([], EvalConfig(lengths=(20,)), Cache(tmp_path), evaluate=lambda models, evaluation, device: [])
    assert evaluated([], EvalConfig(lengths=(20,)), Cache(tmp_path)) == []
