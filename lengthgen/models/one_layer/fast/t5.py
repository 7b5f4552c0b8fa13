"""T5Bias's fast path: column j of a right-aligned batch sits at distance (P-1) - j from the query, so the bias is
one (H, P) row per member, ``b[bucket((P-1) - j)]``, added to the gathered content table.
"""

from __future__ import annotations

import torch

from lengthgen.config import ModelConfig
from lengthgen.encodings.t5 import relative_bucket
from lengthgen.models.one_layer.fast.base import FastPath


class T5Fast(FastPath):
    name = "t5"

    @staticmethod
    def table_scores(p, cfg: ModelConfig, q_tab, k_tab, tokens, lengths):
        width = tokens.shape[-1]
        scores = FastPath.table_scores(p, cfg, q_tab, k_tab, tokens, lengths)  # (S, H, B, P) content logits
        distances = torch.arange(width - 1, -1, -1, device=tokens.device)  # (P,): column j at (P-1) - j
        buckets = relative_bucket(distances)  # (P,)
        bias = p["encoding.bias.weight"][:, buckets].transpose(1, 2)  # (S, H, P)
        return scores + bias[:, :, None, :]  # (S, H, B, P)
