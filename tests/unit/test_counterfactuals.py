"""The counterfactuals the negative controls of C1, C2, C3, C8, C14 and C15 feed to the claims' checks:
built from the same experiment functions, with one thing replaced, and results of the same type."""

from __future__ import annotations

import json

import pytest
import torch

from lengthgen.store.cache import Cache
from lengthgen.config import EvalConfig
from lengthgen.context import Context
from lengthgen.encodings.rope import kernel
from lengthgen.experiments.bases import run_bases
from lengthgen.experiments.equivariance import (
    APE_SHIFTS,
    RELATIVE_TOLERANCE,
    Case,
    ape_shift,
    equivariance_gap,
    run_equivariance,
)
from lengthgen.experiments.kernel import S_MAX, equal_frequencies, run_kernel
from lengthgen.experiments.phenomenon import run_phenomenon
from lengthgen.experiments.pinning import run_pinning

STEPS = 5  # a few steps: these tests check plumbing, not the claims
EVAL = EvalConfig(lengths=(12, 20, 48), sequences=64)
CTX = Context((0, 1), STEPS, EVAL, progress=False)


@pytest.mark.slow
def test_grid_counterfactuals_reuse_the_grid_models(tmp_path):
    cache = Cache(tmp_path)
    grid = run_phenomenon(CTX, cache, (2,), ("rope", "ape"))
    swapped = grid.replaced("rope", by="ape")
    assert swapped.runs["rope", 2] is grid.runs["ape", 2] and swapped.runs["ape", 2] is grid.runs["ape", 2]
    assert swapped.specs["rope", 2].model.encoding == "ape"
    assert grid.runs["rope", 2] is not grid.runs["ape", 2]  # the original is unchanged
    with pytest.raises(ValueError, match="'nope'"):
        grid.replaced("rope", by="nope")

    trained = cache.stats["train:computed"]
    rope_rows = run_pinning(CTX, cache, (2,), encoding="rope")
    assert cache.stats["train:computed"] == trained  # the grid's RoPE heads, nothing new
    assert rope_rows.encoding == "rope" and rope_rows.table().startswith("ROPE peak")
    json.dumps(rope_rows.to_json())
    assert [r.length for r in rope_rows.rows] == [20, 48, 20, 48]
    by_seed = {run.seed: run for run in grid.runs["rope", 2]}
    for r in rope_rows.rows:
        assert r.peak_position == by_seed[r.seed].at(r.length).peak_position()
    assert run_pinning(CTX, cache, (2,)).to_json().keys() == {"max_len", "rows"}

    bases = run_bases(CTX, cache, (2,), (1e3, 1e4))
    before = json.dumps(bases.to_json())
    ape = bases.replaced({2: grid.runs["ape", 2]})
    assert len(ape.rows) == len(bases.rows) == 4 and ape.seeds == (0, 1)
    for base in ape.bases:
        assert [r.accuracy for r in ape.of(base, 2)] == [
            tuple(row.accuracy for row in run.evals) for run in grid.runs["ape", 2]
        ]
    assert json.dumps(bases.to_json()) == before  # the original is unchanged
    with pytest.raises(ValueError, match=r"offsets \[2\]"):
        bases.replaced({3: grid.runs["ape", 2]})
    other = run_phenomenon(CTX.replace(seeds=(0,)).at_lengths((12, 20)), cache, (2,), ("ape",))
    with pytest.raises(ValueError, match="evaluated at"):
        bases.replaced({2: other.runs["ape", 2]})


def test_kernel_default_is_the_rotary_kernel():
    result = run_kernel(64, (1e4,))
    s = torch.arange(0, 49)
    expected = kernel(s, 64, 1e4)
    assert list(result.rows[0].profile) == (expected / expected[0]).tolist()
    assert result.rows[0].argmax == 0 and result.rows[0].unique


def test_equal_frequencies_make_the_kernel_periodic():
    (row,) = run_kernel(64, (1e4,), frequencies=equal_frequencies(16)).rows
    assert not row.unique and row.argmax == -S_MAX  # the first of the maxima at every multiple of 16
    assert row.ratio == pytest.approx(1.0, abs=1e-12) and row.ratio_at == 16
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="period"):
            equal_frequencies(bad)


def test_an_ape_head_is_not_shift_equivariant():
    cases = [Case(shift=s, d=8, heads=h, base=1e4, seed=3) for s in (-2000, 0, 7, 10_000) for h in (1, 2)]
    rope = run_equivariance(cases)
    ape = run_equivariance(cases, encoding="ape")
    assert rope.largest_gap <= RELATIVE_TOLERANCE
    assert min(ape.gaps) > 100 * RELATIVE_TOLERANCE and ape.cases == rope.cases
    assert [ape_shift(c.shift) for c in cases[::2]] == [1 + 2000 % APE_SHIFTS, 1, 8, 1 + 10_000 % APE_SHIFTS]
    json.dumps(ape.to_json())
    with pytest.raises(ValueError, match="shift=33"):
        equivariance_gap(8, 1e4, 33, 0, encoding="ape")
    with pytest.raises(ValueError, match="shift=-1"):
        equivariance_gap(8, 1e4, -1, 0, encoding="ape")
    with pytest.raises(ValueError, match="'alibi'"):
        equivariance_gap(8, 1e4, 1, 0, encoding="alibi")
    with pytest.raises(ValueError, match="at least one case"):
        run_equivariance([])
