"""Weight-space probes: carrier energy and the rank concentration of W = W_Q^T W_K.

Pure functions of weights. Every function accepts any leading batch dimensions (members, heads), so the
same code serves one trained model, a stacked ensemble during training, and an untrained baseline.
"""

from __future__ import annotations

import torch


def carrier_fraction(vectors: torch.Tensor) -> torch.Tensor:
    """||mean_b v_b||^2 / mean_b ||v_b||^2 over the vocabulary axis of ``vectors`` (..., m, dh) -> (...).

    1 when every vocabulary entry projects to the same vector (a pure carrier), about 1/m for
    i.i.d. zero-mean projections.
    """
    mean = vectors.mean(-2)  # (..., dh)
    return mean.pow(2).sum(-1) / vectors.pow(2).sum(-1).mean(-1)


def per_head_bilinear(w_q: torch.Tensor, w_k: torch.Tensor, heads: int) -> torch.Tensor:
    """W_h = W_Q^h^T W_K^h (..., H, d, d) from projection weights (..., d, d) split into ``heads`` row blocks."""
    *lead, d, _ = w_q.shape
    q = w_q.reshape(*lead, heads, d // heads, d)  # (..., H, dh, d)
    k = w_k.reshape(*lead, heads, d // heads, d)  # (..., H, dh, d)
    return q.transpose(-1, -2) @ k  # (..., H, d, d)


def top_singular_energy(matrix: torch.Tensor) -> torch.Tensor:
    """sigma_1^2 / sum_i sigma_i^2 of each matrix (..., r, c) -> (...): 1 for rank one."""
    sv = torch.linalg.svdvals(matrix.double())  # (..., min(r, c))
    return (sv[..., 0] ** 2 / (sv**2).sum(-1)).to(matrix.dtype)
