"""Evaluation probes on attention and predictions: pure functions of tensors.

Offsets are relative to the query: the query (last position, n = L-1) is offset 0 and the target of the
fixed-offset task sits at offset -K.
"""

from __future__ import annotations

import torch


def accuracy(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Fraction of argmax predictions equal to ``targets``: logits (..., B, m), targets (..., B) -> (...)."""
    return (logits.argmax(-1) == targets).double().mean(-1)


def mean_profile(attention: torch.Tensor) -> torch.Tensor:
    """Mean attention per position over the batch axis: (..., B, L) -> (..., L)."""
    return attention.double().mean(-2)


def selected_offset(profile: torch.Tensor) -> torch.Tensor:
    """argmax over positions of the mean attention, as an offset from the query: (..., L) -> (...) <= 0."""
    return profile.argmax(-1) - (profile.shape[-1] - 1)


def peak_position(profile: torch.Tensor) -> torch.Tensor:
    """argmax over positions of the mean attention, as an absolute position: (..., L) -> (...)."""
    return profile.argmax(-1)


def peak_height(profile: torch.Tensor) -> torch.Tensor:
    """Maximum over positions of the mean attention: (..., L) -> (...)."""
    return profile.max(-1).values


def target_weight(attention: torch.Tensor, target_cols: torch.Tensor) -> torch.Tensor:
    """Mean attention weight on each sequence's target: attention (..., B, L), target_cols (B,) -> (...)."""
    index = target_cols.expand(*attention.shape[:-1])[..., None]  # (..., B, 1)
    return attention.gather(-1, index).squeeze(-1).double().mean(-1)
