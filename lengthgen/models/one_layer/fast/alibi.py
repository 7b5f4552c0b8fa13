"""ALiBi's fast path: the logit of column j of a right-aligned batch (offset delta = j - (P-1)) is the content
table gathered at (query token, key token) plus slope_h * delta, one (H, P) row shared by every sequence.
"""

from __future__ import annotations

import torch

from lengthgen.config import ModelConfig
from lengthgen.encodings.alibi import offset_bias
from lengthgen.models.one_layer.fast.base import FastPath


class ALiBiFast(FastPath):
    name = "alibi"

    @staticmethod
    def table_scores(p, cfg: ModelConfig, q_tab, k_tab, tokens, lengths):
        width = tokens.shape[-1]
        scores = FastPath.table_scores(p, cfg, q_tab, k_tab, tokens, lengths)  # (S, H, B, P) content logits
        offsets = torch.arange(-(width - 1), 1, device=tokens.device)  # (P,): column j <-> delta = j-(P-1)
        bias = offset_bias(offsets, cfg.heads)  # (H, P)
        return scores + bias[:, None, :]  # (S, H, B, P)
