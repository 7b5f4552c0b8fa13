"""Learned absolute position embeddings (APE): z_t = x_t + p_t, then q, k, v are projections of z.

The table has ``cfg.positions`` rows (the longest evaluation length), initialised N(0, 1) as
``nn.Embedding`` (``cfg.init == "torch"``), N(0, 0.02^2) (``"gpt2"``) or N(0, 1/d) as Flax's ``nn.Embed``
(``"flax"``). Training sequences only reach
positions 0 .. Lmax-1, so rows from Lmax on receive no gradient. What they hold is a choice the paper
leaves open (``cfg.ape_unseen``): under ``"init"`` (the suite's reading) they keep their initial draw
(under coupled weight decay they decay towards zero instead); under ``"zero"`` they are set to 0 right
after the draw (the draw itself is unchanged) and, with no gradient, stay 0 under weight decay too.
The zeroing needs Lmax, which is the task's: it is applied where a model is built from its spec
(``engine/train.py`` ``build_model``; ``engine/train_two_layer.py`` ``build_transformer``) by
:func:`zero_unseen_rows`.

Whether the position enters the values is also open (``cfg.ape_value``): ``"embedded"`` (the suite's
reading) v_t = W_V (x_t + p_t); ``"token"`` v_t = W_V x_t (the one-layer head, ``models/one_layer/head.py``,
picks the value input with its ``value_input``).

The fast path is ``models/one_layer/fast/ape.py``.
"""

from __future__ import annotations

from typing import Any

import torch

from lengthgen.config import ModelConfig
from lengthgen.encodings.base import Encoding, embedding_table, init_normal


@torch.no_grad()
def zero_unseen_rows(table: torch.Tensor, cfg: Any, max_len: int) -> None:
    """Under ``cfg.ape_unseen == "zero"``, set rows ``max_len`` .. of the position table (rows, d) to 0
    in place; under ``"init"`` leave them. ``cfg``: a ``ModelConfig`` or the two-layer ``TransformerConfig``."""
    if cfg.ape_unseen == "zero":
        table[max_len:] = 0.0


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
        init_normal(self.pos.weight, 1.0, self.cfg, generator, flax_std=self.cfg.d**-0.5)  # Flax: nn.Embed's

    def embed(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        check_range(int(pos.max()), self.cfg)
        return x + self.pos(pos.clamp(min=0))  # padding columns (pos < 0) are masked later
