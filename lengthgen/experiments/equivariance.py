"""RoPE offset equivariance (C2, Lemma 1): shifting every position by c leaves every logit unchanged.

Checked on the plain reference forward with random (untrained) weights, so the test exercises the
rotation itself rather than anything training learned.
"""

from __future__ import annotations

import torch

from lengthgen.config import ModelConfig
from lengthgen.models import OneLayerHead
from lengthgen.seeding import generator

# float32 rotations of angles up to ~1e4 rad carry ~1e-7 relative error per coordinate; logits are sums
# of d such products, so differences up to ~1e-5 relative to the logit scale are rounding, not physics.
RELATIVE_TOLERANCE = 1e-4


def equivariance_gap(d: int, base: float, shift: int, seed: int, heads: int = 1, length: int = 16) -> float:
    """max |logit(shift) - logit(0)| / (1 + max |logit(0)|) over a random batch, for a random RoPE head."""
    model = OneLayerHead(ModelConfig(encoding="rope", d=d, heads=heads, rope_base=base), 20, generator(seed, "init"))
    g = generator(seed, "equivariance")
    tokens = torch.randint(0, 20, (32, length), generator=g)  # (B, L)
    lengths = torch.randint(2, length + 1, (32,), generator=g)  # (B,) mixed lengths, right-aligned
    with torch.no_grad():
        base_scores = model(tokens, lengths).scores  # (B, H, L)
        shifted = model(tokens, lengths, position_shift=shift).scores
    finite = torch.isfinite(base_scores)
    gap = (shifted[finite] - base_scores[finite]).abs().max()
    return float(gap / (1 + base_scores[finite].abs().max()))
