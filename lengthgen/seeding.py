"""Deterministic seeds and generators.

Every random draw in lengthgen goes through a ``torch.Generator`` made here from a seed and a
*purpose* string, so that the parameter initialisation, the training data stream and the evaluation
data of a run are independent streams that never touch torch's global RNG.
"""

from __future__ import annotations

import hashlib

import torch


def check_seed(seed: object) -> None:
    """A run's seed is a non-negative integer (not a bool, which Python counts as an int)."""
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed {seed!r} must be a non-negative integer")


def derive_seed(seed: int, purpose: str) -> int:
    """A 63-bit seed determined by ``seed`` and ``purpose`` alone (stable across runs and machines)."""
    digest = hashlib.sha256(f"lengthgen:{purpose}:{int(seed)}".encode()).digest()
    return int.from_bytes(digest[:8], "little") & ((1 << 63) - 1)


def generator(seed: int, purpose: str) -> torch.Generator:
    """A fresh CPU generator for ``purpose`` (e.g. ``"init"``, ``"data"``, ``"eval:48"``)."""
    return torch.Generator().manual_seed(derive_seed(seed, purpose))
