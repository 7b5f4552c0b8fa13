"""Inference-time evaluation variants that are not a change of the weights (the predictions P4, P6).

- **Position interpolation** (Chen et al. 2023; P4): at an evaluation length L > Lmax, the positions of
  the query and of every key are multiplied by ``Lmax / L`` before the rotation, so the angles are
  fractional: position t is rotated by (t Lmax / L) theta_i. RoPE only (an APE table has no fractional
  rows; its fixes are weight transforms, ``probes/ape_fixes.py``).
- **Log-length logit scaling** (P6): at L > Lmax the attention logits are multiplied by
  ``log(L) / log(Lmax)`` before the softmax (any encoding).

At L <= Lmax both factors are 1. The forward here is the fast forward of ``models/one_layer/fast/``
(``table_forward``) with two extra arguments; it reuses its pieces (``project``, ``readout_by_head``, the
encoding's ``rows``, ``table_scores`` and ``row_mass``) and edits none of them, so the cached models and
their plain evaluations stay valid. With both factors 1 it performs exactly the operations of the plain
forward: the evaluation equals ``evaluate_models`` bit for bit (``tests/test_evaluate_variants.py``
checks it, and checks the fast variant against a plain per-position reference, ``reference_forward``).

``store.one_layer.evaluated_variant`` caches an evaluation under the plain evaluation's key plus the
variant's name and the fingerprint of this file (``VARIANT_FILES``: an edit here recomputes only these
evaluations).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Sequence

import torch

from lengthgen.config import EvalConfig, ModelConfig
from lengthgen.encodings.rope import rotation_tables
from lengthgen.device import CPU
from lengthgen.engine.evaluate import LengthEval, evaluate_models
from lengthgen.models.one_layer.fast import TableOutput, fast_path, project, readout_by_head
from lengthgen.models.one_layer.fast.base import gather_scores
from lengthgen.models.one_layer.head import value_input
from lengthgen.tasks.batch import absolute_positions, valid_mask
from lengthgen.engine.train import TrainedModel

KINDS = ("plain", "interpolate", "log-scale", "inverse-log-scale")
VARIANT_FILES = ("engine/evaluate_variants.py",)  # joins the cache key of every variant evaluation


@dataclass(frozen=True)
class InferenceVariant:
    """An inference-time change of the forward at lengths beyond the training range."""

    kind: str  # plain | interpolate (positions x Lmax/L) | log-scale (logits x log L/log Lmax) | inverse-log-scale
    max_len: int = 16  # Lmax, the longest training length: every factor is 1 at L <= Lmax

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown inference variant {self.kind!r} (known: {', '.join(KINDS)})")
        if not isinstance(self.max_len, int) or self.max_len < 2:
            raise ValueError(f"max_len={self.max_len!r} must be an integer >= 2")

    def position_scale(self, length: int) -> float:
        """The factor on every position at evaluation length ``length``."""
        return self.max_len / length if self.kind == "interpolate" and length > self.max_len else 1.0

    def logit_scale(self, length: int) -> float:
        """The factor on every attention logit at evaluation length ``length``."""
        if length <= self.max_len or self.kind not in ("log-scale", "inverse-log-scale"):
            return 1.0
        ratio = math.log(length) / math.log(self.max_len)
        return ratio if self.kind == "log-scale" else 1.0 / ratio

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _rope_scores(cfg: ModelConfig, q_tab, k_tab, tokens, position_scale: float) -> torch.Tensor:
    """RoPE's fast ``table_scores`` with every offset multiplied by ``position_scale`` (fractional angles).

    The same operations as ``RoPEFast.table_scores`` in ``models/one_layer/fast/rope.py`` (the rotation
    of each key to every offset column of the batch, one table over (query token, key token x column),
    one gather); the rotation tables are built here from the scaled offsets (q at n s, k at t s: the logit
    sees (t - n) s).
    """
    S, H, m, dh = k_tab.shape
    width = tokens.shape[-1]
    offsets = torch.arange(-(width - 1), 1, dtype=torch.float64) * position_scale  # (P,) scaled offsets
    cos, sin = rotation_tables(offsets, dh, cfg.rope_base)  # (P, dh/2)
    w_cos = cos.T.repeat_interleave(2, dim=0).to(k_tab.device)  # (dh, P)
    w_sin = torch.stack((-sin.T, sin.T), dim=1).reshape(dh, width).to(k_tab.device)  # (dh, P)
    swap = torch.arange(dh).view(-1, 2).flip(-1).reshape(-1).to(k_tab.device)  # (dh,) pair-swapped coordinates
    k_t = k_tab.transpose(-1, -2).contiguous()  # (S, H, dh, m)
    rotated = torch.addcmul(
        k_t[..., None] * w_cos[:, None, :], k_t[:, :, swap, :, None], w_sin[:, None, :]
    )  # (S, H, dh, m, P): R_delta k_b for every key token b and offset column
    table = q_tab @ rotated.view(S, H, dh, m * width)  # (S, H, m, m*P)
    cols = tokens * width + torch.arange(width, device=tokens.device)  # (S|1, B, P)
    return gather_scores(table, tokens[..., -1:], cols)  # (S, H, B, P)


def variant_forward(
    p: dict[str, torch.Tensor],
    cfg: ModelConfig,
    tokens: torch.Tensor,
    lengths: torch.Tensor,
    position_scale: float = 1.0,
    logit_scale: float = 1.0,
) -> TableOutput:
    """``table_forward`` with positions multiplied by ``position_scale`` (RoPE) and logits by ``logit_scale``."""
    if position_scale != 1.0 and cfg.encoding != "rope":
        raise ValueError(f"position interpolation is defined here for RoPE only, not {cfg.encoding!r}")
    encoding = fast_path(cfg.encoding)
    scale = 1.0 / (math.sqrt(cfg.head_dim) * cfg.temperature)
    rows = encoding.rows(p, cfg, tokens.shape[-1])  # (S, R, d): as table_forward
    q_tab = project(rows, p["W_Q.weight"] * scale, cfg.heads)  # (S, H, R, dh), pre-scaled queries
    k_tab = project(rows, p["W_K.weight"], cfg.heads)  # (S, H, R, dh)
    if position_scale == 1.0:
        scores = encoding.table_scores(p, cfg, q_tab, k_tab, tokens, lengths)  # (S, H, B, P)
    else:
        scores = _rope_scores(cfg, q_tab, k_tab, tokens, position_scale)  # (S, H, B, P)
    if logit_scale != 1.0:
        scores = scores * logit_scale  # (S, H, B, P)
    valid = valid_mask(lengths, scores.shape[-1])[:, None]  # (S|1, 1, B, P)
    if cfg.attention == "softmax":
        attention = scores.masked_fill(~valid, float("-inf")).softmax(-1)  # (S, H, B, P)
    else:
        attention = scores.masked_fill(~valid, 0.0)  # (S, H, B, P)
    mass = encoding.row_mass(cfg, attention, tokens, lengths, rows.shape[1])  # (S, H, B, R)
    row_readout = project(rows, p["W_V.weight"], cfg.heads) @ readout_by_head(p, cfg.heads)  # (S, H, R, m)
    logits = torch.einsum("shbr,shrm->sbm", mass, row_readout)  # (S, B, m)
    return TableOutput(logits, attention)


@torch.no_grad()
def reference_forward(
    model: TrainedModel,
    tokens: torch.Tensor,
    lengths: torch.Tensor,
    position_scale: float = 1.0,
    logit_scale: float = 1.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The plain per-position forward of one head (``OneLayerHead.forward``, step by step) with real-valued
    positions ``t * position_scale`` and logits times ``logit_scale``: (logits (B, m), attention (B, H, P))."""
    head = model.module()
    B, P = tokens.shape
    H, dh = head.cfg.heads, head.cfg.head_dim
    pos = absolute_positions(lengths, P)  # (B, P)
    x = head.embed(tokens)  # (B, P, d)
    z = head.encoding.embed(x, pos)  # (B, P, d)
    q = head.W_Q(z[:, -1:]).view(B, 1, H, dh).transpose(1, 2)  # (B, H, 1, dh)
    k = head.W_K(z).view(B, P, H, dh).transpose(1, 2)  # (B, H, P, dh)
    v = head.W_V(value_input(x, z, head.cfg)).view(B, P, H, dh).transpose(1, 2)  # (B, H, P, dh)
    scaled = pos.to(torch.float64) * position_scale  # (B, P) real-valued positions
    q = head.encoding.rotate(q, scaled[:, -1:])  # (B, H, 1, dh)
    k = head.encoding.rotate(k, scaled)  # (B, H, P, dh)
    scores = (q @ k.transpose(-1, -2)).squeeze(2) / (math.sqrt(dh) * head.cfg.temperature)  # (B, H, P)
    scores = (scores + head.encoding.score_bias(pos[:, None, -1:], pos[:, None, :])) * logit_scale  # (B, H, P)
    valid = valid_mask(lengths, P)[:, None, :]  # (B, 1, P)
    attn = scores.masked_fill(~valid, float("-inf")).softmax(-1)  # (B, H, P)
    logits = head.unembed((attn[..., None] * v).sum(2).reshape(B, H * dh))  # (B, m)
    return logits, attn


def evaluate_variant(
    models: Sequence[TrainedModel], evaluation: EvalConfig, variant: InferenceVariant, device: torch.device = CPU
) -> list[list[LengthEval]]:
    """``evaluate_models`` (the same sequences, chunks and sums, on ``device``) through ``variant_forward``."""

    def forward(params, cfg, tokens, lengths, length):
        return variant_forward(
            params,
            cfg,
            tokens,
            lengths,
            position_scale=variant.position_scale(length),
            logit_scale=variant.logit_scale(length),
        )

    return evaluate_models(models, evaluation, forward, device)
