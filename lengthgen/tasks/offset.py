"""Fixed-offset retrieval: copy the token K positions before the query.

Tokens are i.i.d. uniform over the vocabulary; the query is the last position n = L-1 and the target is
y = s[L-1-K]. Training lengths are uniform in [Lmin, Lmax], drawn per sequence (see ``batch.py`` for how
mixed lengths are batched); evaluation uses one fixed length per batch. The samplers are those of
``uniform.py``; this task only labels.
"""

from __future__ import annotations

import torch

from lengthgen.tasks.batch import Batch
from lengthgen.tasks.uniform import UniformTokens


class OffsetRetrieval(UniformTokens):
    """The paper's task."""

    kind = "offset"

    def label(self, tokens: torch.Tensor, lengths: torch.Tensor) -> Batch:
        """Targets of right-aligned ``tokens``: the column P-1-K holds the target for every length."""
        col = tokens.shape[-1] - 1 - self.cfg.offset
        return Batch(tokens, lengths, tokens[..., col], torch.full_like(lengths, col))
