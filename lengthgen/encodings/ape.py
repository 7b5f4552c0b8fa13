"""Learned absolute position embeddings (APE): z_t = x_t + p_t, then q, k, v are projections of z.

The table has ``cfg.positions`` rows (the longest evaluation length). Training sequences only reach
positions 0 .. Lmax-1, so rows from Lmax on receive no gradient and keep their initial values (N(0, 1),
as ``nn.Embedding``); under coupled weight decay they decay towards zero instead.

The fast path is ``models/one_layer/fast/ape.py``.
"""

from __future__ import annotations

import torch
from torch import nn

from lengthgen.config import ModelConfig
from lengthgen.encodings.base import Encoding, embedding_table


def check_range(largest: int, cfg: ModelConfig) -> None:
    """Raise ``ValueError`` for a position the table does not have."""
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
        check_range(int(pos.max()), self.cfg)
        return x + self.pos(pos.clamp(min=0))  # padding columns (pos < 0) are masked later
