"""Carrier probes (probes/carrier.py) on hand-made weights whose answers are known."""

from __future__ import annotations

import math

import pytest
import torch

from lengthgen.config import ModelConfig
from lengthgen.encodings.rope import kernel, rotation_matrix
from lengthgen.models import OneLayerHead
from lengthgen.probes.carrier import (
    aligned_cosine,
    carrier_geometry,
    carrier_profile,
    offsets_up_to,
    profile_peak,
    rotate_by_offsets,
    vocab_vectors,
)
from lengthgen.seeding import generator

ROTATION_ATOL = 1e-5  # rope.rotation_matrix is float32; the probes rotate in float64


def test_rotation_matches_the_encodings_rotation_matrix():
    x = torch.randn(8, generator=generator(0, "test"), dtype=torch.float64)  # (dh,)
    offsets = torch.tensor([-7, -1, 0, 3])
    rotated = rotate_by_offsets(x, offsets, 1e4)  # (4, dh)
    for row, delta in zip(rotated, offsets.tolist()):
        expected = rotation_matrix(delta, 8, 1e4).double() @ x
        torch.testing.assert_close(row, expected, atol=ROTATION_ATOL, rtol=0)


def test_profile_of_one_pair_is_a_cosine():
    # dh = 2: one frequency theta_0 = 1, so m_Q^T R_delta m_K = cos(delta) for m_Q = m_K = e_0
    e0 = torch.tensor([1.0, 0.0])
    offsets = offsets_up_to(10)  # -9 .. 0
    profile = carrier_profile(e0, e0, offsets, 1e4)
    torch.testing.assert_close(profile, torch.cos(offsets.double()))
    assert int(profile_peak(profile, offsets)) == 0


@pytest.mark.parametrize("offset", [1, 2, 3, 7])
@pytest.mark.parametrize("base", [1e3, 1e4, 1e5])
def test_pre_rotated_carrier_peaks_at_the_target(offset, base):
    # m_Q with unit energy in every pair and m_K = R_K m_Q: phi_c(delta) = g(delta + K), peaked at -K
    dh = 64
    angles = torch.rand(dh // 2, generator=generator(offset, "test"), dtype=torch.float64) * 2 * math.pi
    m_q = torch.stack((angles.cos(), angles.sin()), -1).flatten()  # (dh,)
    m_k = rotate_by_offsets(m_q, torch.tensor([offset]), base)[0]
    offsets = offsets_up_to(48)
    profile = carrier_profile(m_q, m_k, offsets, base)
    torch.testing.assert_close(profile, kernel(offsets + offset, dh, base))
    assert int(profile_peak(profile, offsets)) == -offset
    assert float(aligned_cosine(m_q, m_k, offset, base)) == pytest.approx(1.0)
    assert float(aligned_cosine(m_q, -m_k, offset, base)) == pytest.approx(-1.0)


def test_probes_keep_leading_dimensions():
    m = torch.randn(3, 2, 16, generator=generator(1, "test"))  # (S, H, dh)
    offsets = offsets_up_to(12)
    assert carrier_profile(m, m, offsets, 1e4).shape == (3, 2, 12)
    assert aligned_cosine(m, m, 2, 1e4).shape == (3, 2)


def _state(q_rows: torch.Tensor, k_rows: torch.Tensor) -> dict[str, torch.Tensor]:
    """Weights whose vocabulary queries and keys are exactly ``q_rows`` / ``k_rows`` (m = d rows)."""
    m, d = q_rows.shape
    return {
        "embed.weight": torch.eye(m, d),  # x_a = e_a
        "W_Q.weight": q_rows.T.contiguous(),  # W_Q e_a = column a = q_rows[a]
        "W_K.weight": k_rows.T.contiguous(),
    }


def test_geometry_of_a_pure_carrier():
    d = 8
    carrier = torch.tensor([1.0, 0.0, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0])
    q_rows = carrier.expand(d, d).clone()  # every token's query is the carrier
    k_rows = rotate_by_offsets(carrier, torch.tensor([2]), 1e4)[0].float().expand(d, d).clone()  # R_2 carrier
    geometry = carrier_geometry(_state(q_rows, k_rows), ModelConfig(d=d), offset=2, span=16)
    assert geometry.query_fraction == pytest.approx(1.0)
    assert geometry.key_fraction == pytest.approx(1.0)
    assert geometry.cosine == pytest.approx(1.0, abs=1e-6)
    assert geometry.peak == -2
    assert len(geometry.profile) == 16


def test_geometry_of_zero_mean_projections_has_no_carrier():
    d = 8
    q_rows = torch.cat((torch.eye(d)[:4], -torch.eye(d)[:4]))  # +-e_i: mean exactly zero
    geometry = carrier_geometry(_state(q_rows, q_rows), ModelConfig(d=d), offset=2, span=16)
    assert geometry.query_fraction == pytest.approx(0.0) and geometry.key_fraction == pytest.approx(0.0)


def test_untrained_carrier_fraction_is_about_one_over_m():
    # i.i.d. zero-mean projections of m = 20 tokens: E||mean||^2 / E||v||^2 = 1/m
    fractions = []
    for seed in range(40):
        model = OneLayerHead(ModelConfig(), 20, generator(seed, "init"))
        fractions.append(carrier_geometry(model.state_dict(), model.cfg, offset=2, span=48).key_fraction)
    assert sum(fractions) / len(fractions) == pytest.approx(1 / 20, rel=0.25)


def test_vocab_vectors_match_the_reference_projections():
    model = OneLayerHead(ModelConfig(d=16, heads=2), 20, generator(3, "init"))
    q_tab, k_tab = vocab_vectors(model.state_dict(), model.cfg)  # (H, m, dh)
    with torch.no_grad():
        q = model.W_Q(model.embed.weight).view(20, 2, 8).transpose(0, 1)
        k = model.W_K(model.embed.weight).view(20, 2, 8).transpose(0, 1)
    torch.testing.assert_close(q_tab, q.double())
    torch.testing.assert_close(k_tab, k.double())


def test_geometry_rejects_non_rope_and_bad_heads():
    model = OneLayerHead(ModelConfig(encoding="ape", d=8), 20, generator(0, "init"))
    with pytest.raises(ValueError, match="RoPE"):
        carrier_geometry(model.state_dict(), model.cfg, 2, 16)
    rope = OneLayerHead(ModelConfig(d=8), 20, generator(0, "init"))
    with pytest.raises(ValueError, match="head 1"):
        carrier_geometry(rope.state_dict(), rope.cfg, 2, 16, head=1)
