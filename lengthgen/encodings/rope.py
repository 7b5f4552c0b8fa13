"""Rotary position encoding (RoPE): q = R_n W_Q x_n, k_t = R_t W_K x_t.

``R_t`` is block-diagonal with 2x2 blocks Rot(t * theta_i) acting on coordinate pairs (2i, 2i+1) of
each head, theta_i = base^(-2i/dh). Then q.k_t = (W_Q x_n)^T R_{t-n} (W_K x_t): the logit depends on
positions only through the offset t - n (Lemma 1). The fast path
(``models/one_layer/fast/rope.py``) uses exactly that.
"""

from __future__ import annotations

import torch

from lengthgen.encodings.base import Encoding


def frequencies(head_dim: int, base: float) -> torch.Tensor:
    """theta_i = base^(-2i/dh), i = 0 .. dh/2 - 1."""
    if head_dim % 2:
        raise ValueError(f"RoPE needs an even head width, got {head_dim}")
    return base ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)  # (dh/2,)


def rotation_tables(
    offsets: torch.Tensor, head_dim: int, base: float, dtype: torch.dtype = torch.float32
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(cos, sin)`` of offset * theta, each (len(offsets), dh/2), computed in float64, returned in ``dtype``."""
    angles = offsets.to(torch.float64)[:, None] * frequencies(head_dim, base)[None, :]  # (N, dh/2)
    return angles.cos().to(dtype), angles.sin().to(dtype)


def rotate_pairs(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate each pair (x[2i], x[2i+1]) of the last dimension by the angle whose cos/sin are given."""
    x1, x2 = x[..., 0::2], x[..., 1::2]  # (..., dh/2)
    return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1).flatten(-2)  # (..., dh)


def rotation_matrix(offset: float, head_dim: int, base: float) -> torch.Tensor:
    """The dense (dh, dh) matrix R_offset, for probes that need it explicitly."""
    cos, sin = rotation_tables(torch.tensor([offset]), head_dim, base)
    return rotate_pairs(torch.eye(head_dim), cos[0], sin[0]).T  # column j = R e_j


def kernel(s: torch.Tensor, head_dim: int, base: float) -> torch.Tensor:
    """The rotary kernel g(s) = sum_j cos(s theta_j) (float64), the carrier-only profile of aligned carriers."""
    return torch.cos(s.to(torch.float64)[..., None] * frequencies(head_dim, base)).sum(-1)


class RoPE(Encoding):
    name = "rope"

    def rotate(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        cos, sin = rotation_tables(pos.reshape(-1), self.cfg.head_dim, self.cfg.rope_base)  # (B*P', dh/2)
        shape = (*pos.shape[:1], 1, *pos.shape[1:], -1)  # broadcast over heads: (B, 1, P', dh/2)
        return rotate_pairs(x, cos.view(shape).to(x.device), sin.view(shape).to(x.device))
