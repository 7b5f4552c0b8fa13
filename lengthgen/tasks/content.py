"""Content-conditioned retrieval (the paper's multi-head paragraph): the query token decides which of two
offsets K1, K2 is the target.

Tokens are i.i.d. uniform over the vocabulary {0..m-1}, exactly as in the fixed-offset task (same draws
from the same generator, so evaluation sequences are shared with it). The query is the last token
a = s[L-1]; the rule (a choice the paper leaves open):

    a <  m // 2  (the lower half of the vocabulary, "mode 0")  ->  target y = s[L-1-K1]   (K1 = cfg.offset)
    a >= m // 2  (the upper half,                   "mode 1")  ->  target y = s[L-1-K2]   (K2 = cfg.alt_offset)

so each mode is asked by half of the sequences (m = 20: tokens 0..9 ask K1, 10..19 ask K2). Since the
initialisation treats every token alike, which half asks which offset is only a relabelling.

Batches are right-aligned as in ``batch.py``; ``label`` sets each sequence's own ``target_cols``
(P-1-K1 or P-1-K2), which the evaluation uses for the attention weight on the target.
"""

from __future__ import annotations

import torch

from lengthgen.tasks.batch import Batch
from lengthgen.tasks.uniform import UniformTokens


class ContentConditioned(UniformTokens):
    """The content-conditioned task (samplers from ``uniform.py``)."""

    kind = "content"

    def mode(self, tokens: torch.Tensor) -> torch.Tensor:
        """0 where the query token (last column) asks for K1, 1 where it asks for K2: (..., B, P) -> (..., B)."""
        return (tokens[..., -1] >= self.cfg.vocab // 2).long()

    def target_offsets(self, tokens: torch.Tensor) -> torch.Tensor:
        """The offset K each sequence asks for: (..., B, P) -> (..., B)."""
        return torch.where(self.mode(tokens) == 0, self.cfg.offset, self.cfg.alt_offset)

    def label(self, tokens: torch.Tensor, lengths: torch.Tensor) -> Batch:
        """Targets of right-aligned ``tokens``: column P-1-K of each sequence, K chosen by its query token."""
        cols = tokens.shape[-1] - 1 - self.target_offsets(tokens)  # (..., B)
        targets = tokens.gather(-1, cols[..., None]).squeeze(-1)  # (..., B)
        return Batch(tokens, lengths, targets, cols)
