"""RoPE: rotations compose and preserve norms; the head's logits depend only on offsets (property)."""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from lengthgen.encodings.rope import frequencies, kernel, rotation_matrix
from lengthgen.experiments.equivariance import RELATIVE_TOLERANCE, equivariance_gap

ROTATION_ATOL = 1e-5  # float32 rotation matrices of angles up to ~1e3 rad


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    a=st.integers(-500, 500), b=st.integers(-500, 500), half=st.integers(1, 16), base=st.sampled_from([1e3, 1e4, 1e5])
)
def test_rotations_compose_and_are_orthogonal(a, b, half, base):
    d = 2 * half
    ra, rb, rab = (rotation_matrix(x, d, base) for x in (a, b, a + b))
    torch.testing.assert_close(ra @ rb, rab, atol=ROTATION_ATOL, rtol=0)
    torch.testing.assert_close(ra.T @ ra, torch.eye(d), atol=ROTATION_ATOL, rtol=0)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    shift=st.integers(-1000, 5000),
    half=st.integers(1, 16),
    heads=st.sampled_from([1, 2]),
    base=st.sampled_from([1e2, 1e4, 1e6]),
    seed=st.integers(0, 1000),
)
def test_head_logits_are_shift_invariant(shift, half, heads, base, seed):
    gap = equivariance_gap(2 * half * heads, base, shift, seed, heads=heads)
    assert gap <= RELATIVE_TOLERANCE, f"relative logit change {gap:.2e} under shift {shift}"


def test_frequencies_and_kernel():
    theta = frequencies(8, 1e4)
    torch.testing.assert_close(theta, torch.tensor([1.0, 1e-1, 1e-2, 1e-3], dtype=torch.float64))
    assert kernel(torch.tensor([0]), 64, 1e4).item() == 32.0  # g(0) = number of frequencies


def test_shift_reaches_the_positions():
    """The equivariance check is not vacuous: the same shift does move an APE head's logits."""
    from lengthgen.config import ModelConfig
    from lengthgen.models import OneLayerHead
    from lengthgen.seeding import generator

    model = OneLayerHead(ModelConfig(encoding="ape", d=16, positions=40), 20, generator(0, "init"))
    tokens = torch.randint(0, 20, (4, 12), generator=generator(0, "t"))
    lengths = torch.full((4,), 12)
    with torch.no_grad():
        before, after = model(tokens, lengths).scores, model(tokens, lengths, position_shift=7).scores
    assert (before - after).abs().max() > 1e-2
