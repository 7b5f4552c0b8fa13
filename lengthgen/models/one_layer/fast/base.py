"""The fast path's interface and NoPE's implementation of it (stacked parameters ``p``, leading member
dimension S, names as in ``OneLayerHead.named_parameters``).

The layer input at any position is the embedding of a *row* of a small table (``rows``: the
vocabulary, plus the position table for APE), so queries, keys and values are projected once per row,
the attention logits of a batch are gathered from a table over (query row, key row[, offset])
(``table_scores``) and the readout is the attention mass on each row (``row_mass``) times the rows'
readout table. Each encoding's file here overrides what it changes. The reference forward
(``models/one_layer/head.py`` with ``encodings/``) must agree: ``tests/test_fast_path.py`` checks
values and gradients for every encoding.
"""

from __future__ import annotations

import torch

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


class FastPath:
    """NoPE's fast path: rows are the vocabulary, logits the content table, mass by token."""

    name = "nope"

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
