"""The fast forward: per-row tables for a stacked ensemble of one-layer heads.

The plain forward projects every position of every sequence (B * P projections of width d). But the
layer input at a position is the embedding of its token (plus, for APE, its position's vector), and
there are only m = 20 tokens: this path projects each *row* (vocabulary entry, and APE table entry)
once per step, forms the attention logits as a table over (query row, key row, offset) and *gathers*
each sequence's logits from it; the readout ``U W_V x`` is likewise a (rows, m) table, applied to the
attention mass each row receives. Every tensor carries a leading member dimension S, so all seeds (and
offsets) of a configuration train in one pass; no reduction ever runs across S.

Each encoding's part (``rows``, ``table_scores``, ``row_mass``) is in this package's file of that
encoding. It must agree with ``OneLayerHead.forward`` (``tests/test_fast_path.py`` checks values and gradients).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch

from lengthgen.config import ModelConfig
from lengthgen.models.one_layer.fast.paths import fast_path
from lengthgen.tasks.batch import valid_mask


class TableOutput(NamedTuple):
    logits: torch.Tensor  # (S, B, m) output logits
    attention: torch.Tensor  # (S, H, B, P) attention weights (0 on padding)


def project(rows: torch.Tensor, weight: torch.Tensor, heads: int) -> torch.Tensor:
    """Rows (S, R, d) through a projection weight (S, d, d), split by head -> (S, H, R, dh)."""
    S, R, _ = rows.shape
    return (rows @ weight.transpose(1, 2)).view(S, R, heads, -1).transpose(1, 2)


def readout_by_head(p: dict[str, torch.Tensor], heads: int) -> torch.Tensor:
    """The readout U split by the head whose value it reads: (S, H, dh, m)."""
    S, m, d = p["unembed.weight"].shape
    return p["unembed.weight"].view(S, m, heads, d // heads).permute(0, 2, 3, 1)


def vocab_projections(p: dict[str, torch.Tensor], cfg: ModelConfig) -> tuple[torch.Tensor, torch.Tensor]:
    """Queries and keys (each (S, H, m, dh)) of the vocabulary entries W_Q x, W_K x (no position)."""
    return project(p["embed.weight"], p["W_Q.weight"], cfg.heads), project(
        p["embed.weight"], p["W_K.weight"], cfg.heads
    )


def table_forward(
    p: dict[str, torch.Tensor], cfg: ModelConfig, tokens: torch.Tensor, lengths: torch.Tensor
) -> TableOutput:
    """Logits of right-aligned ``tokens`` (S|1, B, P) with ``lengths`` (S|1, B) for stacked params ``p``."""
    encoding = fast_path(cfg.encoding)
    scale = 1.0 / (math.sqrt(cfg.head_dim) * cfg.temperature)
    rows = encoding.rows(p, cfg, tokens.shape[-1])  # (S, R, d)
    q_tab = project(rows, p["W_Q.weight"] * scale, cfg.heads)  # (S, H, R, dh), pre-scaled queries
    k_tab = project(rows, p["W_K.weight"], cfg.heads)  # (S, H, R, dh)
    scores = encoding.table_scores(p, cfg, q_tab, k_tab, tokens, lengths)  # (S, H, B, P)
    valid = valid_mask(lengths, scores.shape[-1])[:, None]  # (S|1, 1, B, P)
    if cfg.attention == "softmax":
        attention = scores.masked_fill(~valid, float("-inf")).softmax(-1)  # (S, H, B, P)
    else:
        attention = scores.masked_fill(~valid, 0.0)  # linear attention: the logits, unnormalised
    mass = encoding.row_mass(cfg, attention, tokens, lengths, rows.shape[1])  # (S, H, B, R)
    row_readout = project(rows, p["W_V.weight"], cfg.heads) @ readout_by_head(p, cfg.heads)  # (S, H, R, m)
    logits = torch.einsum("shbr,shrm->sbm", mass, row_readout)  # (S, B, m)
    return TableOutput(logits, attention)
