"""The attention logits of the hand-derived step (``manual.py``), per encoding. Each class builds its logit
table from the rows' queries and keys, gathers a batch's logits from it, keeps what its backward needs, and
``backward`` turns dL/dlogits into dL/dQ, dL/dK (each (S, H, R, dh), the *unscaled* projections X W^T) and
the gradients of the encoding's own parameters. The tables are those of the autograd fast path
(``base.py``, ``rope.py``, ``ape.py``, ``alibi.py``, ``t5.py``), computed in other orders (RoPE's rotations
as complex products, the keys' and the queries'; APE's gather in two steps), so the logits agree to float32
rounding, not bit for bit; the derivation is in ``manual.py``.

Layout: the hand-derived step keeps a batch *column-major*, (S, H, P, B) (column j, then sequence b): the
softmax then runs over a non-innermost axis of 16 with 256 sequences side by side, which vectorises, and the
row mass comes out as (S, H, R, B), ready for the readout's matmul. Every gather has a scatter-add as its
backward (the adjoint of "read entry i" is "add into entry i"); the indices are built once per step.
The logit scale c = 1 / (sqrt(dh) tau) is applied to the smallest tensor that carries it: the (R, R)
content table, or RoPE's phases.
"""

from __future__ import annotations

from functools import lru_cache

import torch

from lengthgen.config import ModelConfig
from lengthgen.encodings.alibi import offset_bias
from lengthgen.encodings.ape import check_range
from lengthgen.encodings.rope import rotation_tables
from lengthgen.encodings.t5 import relative_bucket


def bmm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """(S, H, x, y) @ (S, H, y, z) -> (S, H, x, z) as one ``bmm`` over S*H (transposed views stay views)."""
    S, H = a.shape[:2]
    return torch.bmm(a.flatten(0, 1), b.flatten(0, 1)).view(S, H, a.shape[2], b.shape[3])


def column_major_rows(rows: torch.Tensor) -> torch.Tensor:
    """Row indices (S|1, P, B) of each (column j, sequence b) -> indices r*B + b into a flattened (R, B)
    column-major table: gathers and scatter-adds along the last axis of a flat view run about 1.6x faster
    than along axis 2 of (S, H, R, B)."""
    B = rows.shape[-1]
    return torch.add(torch.arange(B, device=rows.device), rows, alpha=B)  # (S|1, P, B)


def expand_index(index: torch.Tensor, S: int, H: int) -> torch.Tensor:
    """An index (S|1, P, B) into a flattened (S, H, X) table, expanded over members and heads (no copy)."""
    return index.reshape(index.shape[0], 1, -1).expand(S, H, -1)  # (S, H, P*B)


class ContentScores:
    """NoPE, and the content part of ALiBi and T5: T = c Q K^T (S, H, R, R), logit = T[query token, key token].

    Backward: dT = scatter of dS, then c is applied to dT (R x R, the smallest tensor): dQ = dT K, dK = dT^T Q.
    """

    def __init__(self, cfg: ModelConfig, tokens: torch.Tensor, lengths: torch.Tensor, rows: int, scale: float):
        self.cfg, self.rows, self.scale = cfg, rows, scale
        self.width, self.batch = tokens.shape[-1], tokens.shape[-2]
        self.key_tokens = tokens.transpose(-1, -2).contiguous()  # (S|1, P, B)
        self.index = torch.add(self.key_tokens, tokens[:, None, :, -1], alpha=rows)  # (S|1, P, B): a*R + b
        self.mass_rows = (column_major_rows(self.key_tokens),)  # the rows whose mass a column adds to

    def forward(self, p, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        S, H, R, _ = q.shape
        self.q, self.k = q, k  # (S, H, R, dh) each, unscaled
        self.flat = expand_index(self.index, S, H)  # (S, H, P*B)
        table = bmm(q, k.transpose(-1, -2)).mul_(self.scale)  # (S, H, R, R)
        return table.view(S, H, R * R).gather(2, self.flat).view(S, H, self.width, self.batch)  # (S, H, P, B)

    def backward(self, d_scores: torch.Tensor):
        S, H = d_scores.shape[:2]
        R = self.rows
        d_table = d_scores.new_zeros(S, H, R * R).scatter_add_(2, self.flat, d_scores.view(S, H, -1))
        d_table = d_table.mul_(self.scale).view(S, H, R, R)  # (S, H, R, R)
        return bmm(d_table, self.k), bmm(d_table.transpose(-1, -2), self.q), {}  # dQ, dK (S, H, R, dh)


class ALiBiScores(ContentScores):
    """Content logits plus ALiBi's fixed bias slope_h * delta_j (H, P): no parameter, no extra gradient."""

    def forward(self, p, q, k):
        offsets = torch.arange(-(self.width - 1), 1, device=q.device)  # (P,): column j <-> delta = j - (P-1)
        return super().forward(p, q, k).add_(offset_bias(offsets, self.cfg.heads)[:, :, None])  # (S, H, P, B)


class T5Scores(ContentScores):
    """Content logits plus T5's learned bias b[bucket((P-1) - j), h]: db[bucket, h] = the sum of dS over the
    sequences and the columns of that bucket."""

    def forward(self, p, q, k):
        self.buckets = relative_bucket(torch.arange(self.width - 1, -1, -1, device=q.device))  # (P,)
        self.bias_shape = p["encoding.bias.weight"].shape  # (S, buckets, H)
        bias = p["encoding.bias.weight"][:, self.buckets].transpose(1, 2)  # (S, H, P)
        return super().forward(p, q, k).add_(bias[..., None])  # (S, H, P, B)

    def backward(self, d_scores):
        d_q, d_k, _ = super().backward(d_scores)
        per_column = d_scores.sum(3).transpose(1, 2)  # (S, P, H)
        d_bias = per_column.new_zeros(self.bias_shape).index_add_(1, self.buckets, per_column)  # (S, 32, H)
        return d_q, d_k, {"encoding.bias.weight": d_bias}


@lru_cache(maxsize=64)
def _phases(width: int, head_dim: int, base: float, scale: float, device: torch.device, dtype: torch.dtype):
    """c e^{i delta_j theta_i} and c e^{-i delta_j theta_i} for the offset delta_j = j - (P-1) of each column j:
    (P, dh/2) complex each, from ``encodings/rope.py``'s float32 cos and sin (as ``rope.py``'s fast path)."""
    cos, sin = rotation_tables(torch.arange(-(width - 1), 1), head_dim, base)  # (P, dh/2)
    complex_dtype = torch.complex128 if dtype == torch.float64 else torch.complex64
    phase = (torch.complex(cos, sin).to(complex_dtype) * scale).to(device)  # (P, dh/2)
    return phase, phase.conj().resolve_conj()  # for the keys R_j, for the queries R_j^T


def _rotate(x: torch.Tensor, phase: torch.Tensor) -> torch.Tensor:
    """Every row of x (S, H, R, dh) rotated by every column's phase (P, dh/2): one complex product per
    coordinate pair (x_2i + i x_2i+1) e^{i phi} -> (S, H, R*P, dh), rows (r, j)."""
    S, H, R, dh = x.shape
    pairs = torch.view_as_complex(x.reshape(S, H, R, dh // 2, 2))  # (S, H, R, dh/2)
    return torch.view_as_real(pairs[:, :, :, None, :] * phase).view(S, H, R * phase.shape[0], dh)


class RoPEScores:
    """RoPE: the logit depends on positions through the offset only, T[a, b*P + j] = c q_a . R_j k_b (R_j the
    rotation by delta_j = j - (P-1)). Both rotated tables are kept, the keys Rot_K[b, j] = c R_j k_b and the
    queries Rot_Q[a, j] = c R_j^T q_a, so that every product forward and backward is a matmul:

        T = Q Rot_K^T (m, m*P),   dQ = dT Rot_K,   dK[b] = sum_{a, j} dT[a, b, j] Rot_Q[a, j]
    """

    def __init__(self, cfg: ModelConfig, tokens: torch.Tensor, lengths: torch.Tensor, rows: int, scale: float):
        self.cfg, self.rows, self.scale = cfg, rows, scale
        self.width, self.batch = tokens.shape[-1], tokens.shape[-2]
        self.key_tokens = tokens.transpose(-1, -2).contiguous()  # (S|1, P, B)
        column = torch.arange(self.width, device=tokens.device)[:, None]  # (P, 1)
        query = tokens[:, None, :, -1] * (rows * self.width) + column  # (S|1, P, B): a*m*P + j
        self.index = torch.add(query, self.key_tokens, alpha=self.width)  # (S|1, P, B): a*m*P + b*P + j
        self.mass_rows = (column_major_rows(self.key_tokens),)  # the rows whose mass a column adds to

    def forward(self, p, q, k):
        S, H, _, dh = k.shape
        phase, inverse = _phases(self.width, dh, self.cfg.rope_base, self.scale, k.device, k.dtype)  # (P, dh/2) each
        self.rot_k = _rotate(k, phase)  # (S, H, m*P, dh): rows (key token b, column j)
        self.rot_q = _rotate(q, inverse)  # (S, H, m*P, dh): rows (query token a, column j)
        table = bmm(q, self.rot_k.transpose(-1, -2))  # (S, H, m, m*P): T[a, b*P + j]
        self.flat = expand_index(self.index, S, H)  # (S, H, P*B)
        return table.view(S, H, -1).gather(2, self.flat).view(S, H, self.width, self.batch)  # (S, H, P, B)

    def backward(self, d_scores):
        S, H = d_scores.shape[:2]
        m, P = self.rows, self.width
        d_table = d_scores.new_zeros(S, H, m * m * P).scatter_add_(2, self.flat, d_scores.view(S, H, -1))
        d_q = bmm(d_table.view(S, H, m, m * P), self.rot_k)  # (S, H, m, dh)
        by_key = d_table.view(S, H, m, m, P).transpose(2, 3).reshape(S, H, m, m * P)  # (S, H, m, m*P): dT[b, a*P + j]
        return d_q, bmm(by_key, self.rot_q), {}  # dQ, dK (S, H, m, dh)


class APEScores:
    """APE: rows are the vocabulary then the reachable positions (R = m + U), T = c Q K^T (R, R), and a logit
    is the sum of four entries, (query token | query position) x (key token | key position).

    Kept transposed, T^T = c K Q^T, and gathered in two steps: Y[r, b] = T^T[r, query token_b] +
    T^T[r, query position_b] (S, H, R, B), then logit[j, b] = Y[key token_jb, b] + Y[key position_jb, b].
    Backward: dY = both scatters of dS, dT^T = both scatters of dY, then dK = dT^T Q, dQ = (dT^T)^T K.
    """

    def __init__(self, cfg: ModelConfig, tokens: torch.Tensor, lengths: torch.Tensor, rows: int, scale: float):
        self.cfg, self.rows, self.scale = cfg, rows, scale
        self.width, self.batch = tokens.shape[-1], tokens.shape[-2]
        vocab = rows - min(self.width, cfg.positions)
        check_range(int(lengths.max()) - 1, cfg)
        column = torch.arange(self.width, device=tokens.device)[:, None]  # (P, 1)
        self.key_tokens = tokens.transpose(-1, -2).contiguous()  # (S|1, P, B)
        self.key_positions = (column + (lengths - self.width + vocab)[:, None, :]).clamp_(min=vocab)  # (S|1, P, B)
        self.query_token, self.query_position = tokens[..., -1], lengths + (vocab - 1)  # (S|1, B) each
        self.key_rows = tuple(column_major_rows(i) for i in (self.key_tokens, self.key_positions))  # (S|1, P, B)
        self.mass_rows = self.key_rows if cfg.ape_value == "embedded" else self.key_rows[:1]

    def forward(self, p, q, k):
        S, H, R, _ = q.shape
        P, B = self.width, self.batch
        self.q, self.k = q, k  # (S, H, R, dh) each, unscaled
        table_t = bmm(k, q.transpose(-1, -2)).mul_(self.scale)  # (S, H, R, R): T^T[key row, query row]
        self.query_rows = tuple(i[:, None, None, :].expand(S, H, R, B) for i in (self.query_token, self.query_position))
        self.flat = tuple(expand_index(i, S, H) for i in self.key_rows)  # (S, H, P*B) each
        y = table_t.gather(3, self.query_rows[0]).add_(table_t.gather(3, self.query_rows[1])).view(S, H, R * B)
        return y.gather(2, self.flat[0]).add_(y.gather(2, self.flat[1])).view(S, H, P, B)  # (S, H, P, B)

    def backward(self, d_scores):
        S, H, P, B = d_scores.shape
        R = self.rows
        flat_scores = d_scores.view(S, H, P * B)
        d_y = d_scores.new_zeros(S, H, R * B).scatter_add_(2, self.flat[0], flat_scores)
        d_y = d_y.scatter_add_(2, self.flat[1], flat_scores).view(S, H, R, B)  # (S, H, R, B)
        d_table_t = d_y.new_zeros(S, H, R, R).scatter_add_(3, self.query_rows[0], d_y)
        d_table_t.scatter_add_(3, self.query_rows[1], d_y).mul_(self.scale)  # (S, H, R, R)
        return bmm(d_table_t.transpose(-1, -2), self.k), bmm(d_table_t, self.q), {}  # dQ, dK (S, H, R, dh)


SCORES = {"nope": ContentScores, "alibi": ALiBiScores, "t5": T5Scores, "rope": RoPEScores, "ape": APEScores}
