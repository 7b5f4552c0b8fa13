"""Learned absolute position embeddings (APE): z_t = x_t + p_t, then q, k, v are projections of z.

The table has ``cfg.positions`` rows (the longest evaluation length). Training sequences only reach
positions 0 .. Lmax-1, so rows from Lmax on receive no gradient and keep their initial values (N(0, 1),
as ``nn.Embedding``); under coupled weight decay they decay towards zero instead.

Fast path: the rows are the vocabulary followed by the position rows a width-P batch can reach
(positions 0 .. P-1), R = m + min(P, positions), so a logit is the sum of four entries of one (R, R)
table: token.token + token.position + position.token + position.position, gathered in one call. Rows a
batch cannot reach would only add zero mass and zero gradient; leaving them out (in training 16 of 48
rows) makes an APE training step about 1.2x faster, with the same numbers bit for bit.
"""

from __future__ import annotations

import torch
from torch import nn

from lengthgen.config import ModelConfig
from lengthgen.encodings.base import Encoding, embedding_table, gather_scores, scatter_mass
from lengthgen.tasks.batch import absolute_positions


def _check_range(largest: int, cfg: ModelConfig) -> None:
    if largest >= cfg.positions:
        raise ValueError(f"position {largest} is beyond the APE table ({cfg.positions} rows)")


class APE(Encoding):
    name = "ape"

    def __init__(self, cfg: ModelConfig):
        super().__init__(cfg)
        self.pos = embedding_table(cfg.positions, cfg.d)

    def reset_parameters(self, generator: torch.Generator) -> None:
        nn.init.normal_(self.pos.weight, generator=generator)

    def embed(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        _check_range(int(pos.max()), self.cfg)
        return x + self.pos(pos.clamp(min=0))  # padding columns (pos < 0) are masked later

    @staticmethod
    def reachable(cfg: ModelConfig, width: int) -> int:
        """Position rows a width-P batch can reach: positions 0 .. P-1 (the table's, if fewer)."""
        return min(width, cfg.positions)

    @staticmethod
    def rows(p, cfg: ModelConfig, width: int) -> torch.Tensor:
        used = APE.reachable(cfg, width)
        return torch.cat((p["embed.weight"], p["encoding.pos.weight"][:, :used]), dim=1)  # (S, m + used, d)

    @staticmethod
    def _position_rows(cfg: ModelConfig, tokens: torch.Tensor, lengths: torch.Tensor, vocab: int):
        """Row index m + t of each column's absolute position t (padding -> position 0, masked)."""
        _check_range(int(lengths.max()) - 1, cfg)
        return absolute_positions(lengths, tokens.shape[-1]).clamp(min=0) + vocab  # (S|1, B, P)

    @staticmethod
    def table_scores(p, cfg: ModelConfig, q_tab, k_tab, tokens, lengths):
        vocab = q_tab.shape[2] - APE.reachable(cfg, tokens.shape[-1])
        table = q_tab @ k_tab.transpose(-1, -2)  # (S, H, R, R)
        key_rows = torch.stack((tokens, APE._position_rows(cfg, tokens, lengths, vocab)), -1)  # (S|1, B, P, 2)
        query_rows = key_rows[..., -1:, :].transpose(-1, -2)  # (S|1, B, 2, 1): query token and position
        pairs = gather_scores(table, query_rows[..., None], key_rows[..., None, :, :])  # (S, H, B, 2, P, 2)
        return pairs.sum((3, 5))  # (S, H, B, P)

    @staticmethod
    def row_mass(cfg: ModelConfig, attention, tokens, lengths, rows):
        by_token = scatter_mass(attention, tokens, rows)
        position_rows = APE._position_rows(cfg, tokens, lengths, rows - APE.reachable(cfg, tokens.shape[-1]))
        return scatter_mass(attention, position_rows, rows, into=by_token)  # (S, H, B, R)
