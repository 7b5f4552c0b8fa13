"""Probes: pure functions from weights or attention tensors to the paper's metrics."""

from lengthgen.probes.attention import (
    accuracy,
    mean_profile,
    peak_height,
    peak_position,
    selected_offset,
    target_weight,
)
from lengthgen.probes.geometry import carrier_fraction, per_head_bilinear, top_singular_energy

__all__ = [
    "accuracy",
    "carrier_fraction",
    "mean_profile",
    "peak_height",
    "peak_position",
    "per_head_bilinear",
    "selected_offset",
    "target_weight",
    "top_singular_energy",
]
