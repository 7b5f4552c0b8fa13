"""The interface every positional encoding implements, in two forms.

*Reference* (an ``nn.Module`` acting on one model and a concrete batch): ``embed`` may add a vector to
each token embedding (APE), ``rotate`` may rotate per-head queries and keys by their position (RoPE),
``score_bias`` may add a bias to each attention logit (ALiBi, T5). The plain forward in
``models/one_layer/head.py`` calls these three.

*Fast* (static methods on a stacked ensemble of parameters, leading dimension S = members), used by
``models/one_layer/fast.py``: the layer input at any position is the embedding of a *row* of a small table
(``rows``: the vocabulary, plus the position table for APE), so queries, keys and values are
projected once per row, the attention logits of a batch are gathered from a table over
(query row, key row[, offset]) (``table_scores``) and the readout is the attention mass on each row
(``row_mass``) times the rows' readout table. The two forms must agree: ``tests/test_fast_path.py``
checks values and gradients for every encoding.
"""

from __future__ import annotations

import torch
from torch import nn

from lengthgen.config import ModelConfig


def gather_scores(table: torch.Tensor, rows: torch.Tensor, cols: torch.Tensor) -> torch.Tensor:
    """``table[s, h, rows[s, b, ...], cols[s, b, p, ...]]`` for a table of shape (S, H, X, Y).

    ``rows`` broadcasts against ``cols`` (typically (S|1, B, 1) against (S|1, B, P)); a member
    dimension of 1 broadcasts over all members (evaluation batches shared by the ensemble).
    """
    S, H, _, Y = table.shape
    index = rows * Y + cols  # (S|1, B, P, ...)
    flat = index.reshape(index.shape[0], 1, -1).expand(S, H, -1)  # (S, H, B*P*...)
    return table.reshape(S, H, -1).gather(2, flat).view(S, H, *index.shape[1:])  # (S, H, B, P, ...)


def scatter_mass(attention: torch.Tensor, index: torch.Tensor, rows: int, into: torch.Tensor | None = None):
    """Sum attention (S, H, B, P) into ``rows`` bins by ``index`` (S|1, B, P) -> (S, H, B, rows)."""
    S, H, B, P = attention.shape
    if into is None:
        into = attention.new_zeros(S, H, B, rows)
    return into.scatter_add(3, index[:, None].expand(S, H, B, P), attention)


def embedding_table(rows: int, width: int) -> nn.Embedding:
    """An ``nn.Embedding`` whose weight is left uninitialised (the model initialises it from its own
    generator). Under ``torch.device("meta")`` a default-initialised ``nn.Embedding`` runs ``normal_`` on
    a meta tensor, whose Python decomposition imports ``torch._dynamo``: about 3 s of start-up per process.
    """
    return nn.Embedding(rows, width, _weight=torch.empty(rows, width))


class Encoding(nn.Module):
    """Identity encoding; subclasses override what they change (NoPE is this class as is)."""

    name = "nope"

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg

    def reset_parameters(self, generator: torch.Generator) -> None:
        """Initialise this encoding's parameters (if any) from ``generator``."""

    # ---- reference path -------------------------------------------------------------------------
    def embed(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        """Token embeddings (B, P, d) at absolute positions (B, P) -> the layer's input z."""
        return x

    def rotate(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        """Per-head vectors (B, H, P, dh) at positions (B, 1|P) -> rotated vectors."""
        return x

    def score_bias(self, q_pos: torch.Tensor, k_pos: torch.Tensor) -> torch.Tensor | float:
        """Additive bias on the scaled logits, broadcastable to (B, H, P); q_pos (B, 1, 1), k_pos (B, 1, P)."""
        return 0.0

    # ---- fast path (stacked parameters p, names as in OneLayerHead.named_parameters) -----------------
    @staticmethod
    def rows(p: dict[str, torch.Tensor], cfg: ModelConfig, width: int) -> torch.Tensor:
        """(S, R, d): every distinct layer input of a width-``width`` batch is one of these rows (here: the
        vocabulary)."""
        return p["embed.weight"]

    @staticmethod
    def table_scores(
        p: dict[str, torch.Tensor],
        cfg: ModelConfig,
        q_tab: torch.Tensor,
        k_tab: torch.Tensor,
        tokens: torch.Tensor,
        lengths: torch.Tensor,
    ) -> torch.Tensor:
        """Scaled logits (S, H, B, P) of a batch.

        ``q_tab``, ``k_tab``: (S, H, R, dh) projections of every row, the queries already multiplied by
        1 / (sqrt(dh) * tau); ``tokens``: (S|1, B, P); ``lengths``: (S|1, B).
        """
        content = q_tab @ k_tab.transpose(-1, -2)  # (S, H, R, R)
        return gather_scores(content, tokens[..., -1:], tokens)  # (S, H, B, P)

    @staticmethod
    def row_mass(
        cfg: ModelConfig, attention: torch.Tensor, tokens: torch.Tensor, lengths: torch.Tensor, rows: int
    ) -> torch.Tensor:
        """(S, H, B, R): the attention mass on each of the ``rows`` rows (a position's value is its rows' sum)."""
        return scatter_mass(attention, tokens, rows)
