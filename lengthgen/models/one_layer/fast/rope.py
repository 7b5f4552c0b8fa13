"""RoPE's fast path: the logit depends on positions only through the offset (Lemma 1), so it builds the
logit table T[a, b, delta] for query token a, key token b and offset delta once per step and gathers
each sequence's logits from it. The rotation maths is ``encodings/rope.py``'s.
"""

from __future__ import annotations

from functools import lru_cache

import torch

from lengthgen.config import ModelConfig
from lengthgen.encodings.rope import rotation_tables
from lengthgen.models.one_layer.fast.base import FastPath, gather_scores


@lru_cache(maxsize=64)
def _column_rotations(
    width: int, head_dim: int, base: float, device: torch.device
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Coefficients that rotate a key to every offset column j <-> delta = j - (P-1) of a width-P batch.

    (R_delta k)[2i] = k[2i] cos - k[2i+1] sin and (R_delta k)[2i+1] = k[2i+1] cos + k[2i] sin, i.e.
    R_delta k = k * w_cos[:, j] + k[swap] * w_sin[:, j].
    """
    cos, sin = rotation_tables(torch.arange(-(width - 1), 1), head_dim, base)  # (P, dh/2)
    w_cos = cos.T.repeat_interleave(2, dim=0)  # (dh, P)
    w_sin = torch.stack((-sin.T, sin.T), dim=1).reshape(head_dim, width)  # (dh, P)
    swap = torch.arange(head_dim).view(-1, 2).flip(-1).reshape(-1)  # (dh,) pair-swapped coordinates
    return w_cos.to(device), w_sin.to(device), swap.to(device)


class RoPEFast(FastPath):
    name = "rope"

    @staticmethod
    def table_scores(p, cfg: ModelConfig, q_tab, k_tab, tokens, lengths):
        S, H, m, dh = k_tab.shape
        width = tokens.shape[-1]
        w_cos, w_sin, swap = _column_rotations(width, dh, cfg.rope_base, k_tab.device)
        k_t = k_tab.transpose(-1, -2).contiguous()  # (S, H, dh, m)
        rotated = torch.addcmul(
            k_t[..., None] * w_cos[:, None, :], k_t[:, :, swap, :, None], w_sin[:, None, :]
        )  # (S, H, dh, m, P): R_delta k_b for every key token b and offset column
        table = q_tab @ rotated.view(S, H, dh, m * width)  # (S, H, m, m*P): T[a, b*P + j]
        cols = tokens * width + torch.arange(width, device=tokens.device)  # (S|1, B, P) (key token, column)
        return gather_scores(table, tokens[..., -1:], cols)  # (S, H, B, P)
