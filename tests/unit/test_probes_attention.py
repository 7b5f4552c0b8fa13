"""Attention probes on hand-made tensors whose answers are known."""

from __future__ import annotations

import pytest
import torch

from lengthgen.probes import accuracy, mean_profile, peak_height, peak_position, selected_offset, target_weight
from lengthgen.probes.dilution import dilution_fit


def test_profile_peak_and_offsets():
    attention = torch.tensor([[0.1, 0.7, 0.1, 0.1], [0.1, 0.5, 0.2, 0.2]])  # (B=2, L=4)
    profile = mean_profile(attention)
    torch.testing.assert_close(profile, torch.tensor([0.1, 0.6, 0.15, 0.15], dtype=torch.float64))
    assert int(selected_offset(profile)) == -2  # position 1 of 4: two before the query (position 3)
    assert int(peak_position(profile)) == 1
    assert float(peak_height(profile)) == pytest.approx(0.6)


def test_accuracy_and_target_weight():
    logits = torch.tensor([[0.0, 2.0, 1.0], [3.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    assert float(accuracy(logits, torch.tensor([1, 0, 0]))) == pytest.approx(2 / 3)
    attention = torch.tensor([[0.2, 0.8], [0.6, 0.4]])
    assert float(target_weight(attention, torch.tensor([1, 0]))) == pytest.approx(0.7)


def test_probes_keep_leading_dimensions():
    attention = torch.rand(3, 2, 10, 6)  # (S, H, B, L)
    profile = mean_profile(attention)
    assert profile.shape == (3, 2, 6) and selected_offset(profile).shape == (3, 2)


def test_dilution_fit_recovers_a_line():
    lengths = [12, 16, 20, 24, 32, 40, 48]
    weights = [1 / (1.5 + 0.04 * (L - 1)) for L in lengths]
    fit = dilution_fit(lengths, weights)
    assert fit.slope == pytest.approx(0.04) and fit.intercept == pytest.approx(1.5) and fit.r2 == pytest.approx(1.0)


def test_dilution_fit_rejects_bad_input():
    with pytest.raises(ValueError, match="positive"):
        dilution_fit([12, 16, 20], [0.5, 0.0, 0.4])
    with pytest.raises(ValueError, match=">= 3"):
        dilution_fit([12, 16], [0.5, 0.4])
