"""APE's fast path. The rows are the vocabulary followed by the position rows a width-P batch can reach
(positions 0 .. P-1), R = m + min(P, positions), so a logit is the sum of four entries of one (R, R)
table: token.token + token.position + position.token + position.position, gathered in one call. Rows a
batch cannot reach would only add zero mass and zero gradient; leaving them out (in training 16 of 48
rows) makes an APE training step about 1.2x faster, with the same numbers bit for bit.
"""

from __future__ import annotations

import torch

from lengthgen.config import ModelConfig
from lengthgen.encodings.ape import check_range
from lengthgen.models.one_layer.fast.base import FastPath, gather_scores, scatter_mass
from lengthgen.tasks.batch import absolute_positions


class APEFast(FastPath):
    name = "ape"

    @staticmethod
    def reachable(cfg: ModelConfig, width: int) -> int:
        """Position rows a width-P batch can reach: positions 0 .. P-1 (the table's, if fewer)."""
        return min(width, cfg.positions)

    @staticmethod
    def rows(p, cfg: ModelConfig, width: int) -> torch.Tensor:
        used = APEFast.reachable(cfg, width)
        return torch.cat((p["embed.weight"], p["encoding.pos.weight"][:, :used]), dim=1)  # (S, m + used, d)

    @staticmethod
    def _position_rows(cfg: ModelConfig, tokens: torch.Tensor, lengths: torch.Tensor, vocab: int):
        """Row index m + t of each column's absolute position t (padding -> position 0, masked)."""
        check_range(int(lengths.max()) - 1, cfg)
        return absolute_positions(lengths, tokens.shape[-1]).clamp(min=0) + vocab  # (S|1, B, P)

    @staticmethod
    def table_scores(p, cfg: ModelConfig, q_tab, k_tab, tokens, lengths):
        vocab = q_tab.shape[2] - APEFast.reachable(cfg, tokens.shape[-1])
        table = q_tab @ k_tab.transpose(-1, -2)  # (S, H, R, R)
        key_rows = torch.stack((tokens, APEFast._position_rows(cfg, tokens, lengths, vocab)), -1)  # (S|1, B, P, 2)
        query_rows = key_rows[..., -1:, :].transpose(-1, -2)  # (S|1, B, 2, 1): query token and position
        pairs = gather_scores(table, query_rows[..., None], key_rows[..., None, :, :])  # (S, H, B, 2, P, 2)
        return pairs.sum((3, 5))  # (S, H, B, P)

    @staticmethod
    def row_mass(cfg: ModelConfig, attention, tokens, lengths, rows):
        by_token = scatter_mass(attention, tokens, rows)
        if cfg.ape_value == "token":
            return by_token  # (S, H, B, R): no value on the position rows
        position_rows = APEFast._position_rows(cfg, tokens, lengths, rows - APEFast.reachable(cfg, tokens.shape[-1]))
        return scatter_mass(attention, position_rows, rows, into=by_token)  # (S, H, B, R)
