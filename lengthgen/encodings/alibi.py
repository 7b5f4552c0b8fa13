"""ALiBi (Press et al., 2022): a fixed linear penalty on distance added to each attention logit.

    l_t = q.k_t / (sqrt(dh) tau) - slope_h * (n - t)        (n = query position, t <= n)

No position enters the queries, keys or values (they are NoPE's); the bias depends on the offset
t - n alone, so the head is exactly offset-equivariant, like RoPE. The slopes are *fixed*, not learned.

Slopes (a choice: ALiBi defines them for multi-head models). ALiBi's published set for 8 heads is the
geometric sequence 2^-1, 2^-2, ..., 2^-8; an H-head model here takes its H steepest, slope_h = 2^-h,
h = 1..H: 1/2 for the paper's one-head model (1/2, 1/4 for H = 2; 1/2 .. 1/16 for H = 4; exactly
ALiBi's set for H = 8). ALiBi's formula 2^(-8h/H) read literally at H = 1 gives 1/256 instead: a penalty
of 0.06 logits across the whole training range, i.e. practically NoPE (in a development run, 1000 steps,
3 seeds: mean attention flat, peak 0.09 at L = 12 against 1/12 = 0.083 for uniform; in-distribution
accuracy about 0.2 even for K = 1; the argmax of the flat profile wandering between offsets -1 and -3
from length to length). The steepest slope makes ALiBi's defining feature, a monotone recency
penalty, actually shape the attention.

The bias is added after the 1/(sqrt(dh) tau) scaling (as ALiBi adds it to the scaled scores) and is not
affected by the temperature.

The fast path is ``models/one_layer/fast/alibi.py``.
"""

from __future__ import annotations

import torch

from lengthgen.encodings.base import Encoding


def alibi_slopes(heads: int) -> torch.Tensor:
    """slope_h = 2^-h for h = 1..H, float32 (H,): the H steepest of ALiBi's 8-head slopes."""
    if heads < 1:
        raise ValueError(f"ALiBi needs at least one head, got heads={heads}")
    exponents = -torch.arange(1, heads + 1, dtype=torch.float64)  # (H,)
    return torch.pow(2.0, exponents).float()


def offset_bias(offsets: torch.Tensor, heads: int) -> torch.Tensor:
    """ALiBi's bias slope_h * delta for offsets delta = t - n (..., P) -> (..., H, P)."""
    return alibi_slopes(heads).to(offsets.device)[:, None] * offsets.to(torch.float32)[..., None, :]


class ALiBi(Encoding):
    name = "alibi"

    def score_bias(self, q_pos: torch.Tensor, k_pos: torch.Tensor) -> torch.Tensor:
        # q_pos (B, 1, 1), k_pos (B, 1, P): offsets (B, P) -> bias (B, H, P)
        return offset_bias((k_pos - q_pos)[:, 0], self.cfg.heads)
