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

from lengthgen.config import TaskConfig
from lengthgen.tasks.batch import Batch


class ContentConditioned:
    """The content-conditioned task. Every sampler takes an explicit ``torch.Generator``."""

    def __init__(self, cfg: TaskConfig):
        if cfg.kind != "content":
            raise ValueError(f"ContentConditioned needs kind='content', got {cfg.kind!r}")
        self.cfg = cfg

    def mode(self, tokens: torch.Tensor) -> torch.Tensor:
        """0 where the query token (last column) asks for K1, 1 where it asks for K2: (..., B, P) -> (..., B)."""
        return (tokens[..., -1] >= self.cfg.vocab // 2).long()

    def target_offsets(self, tokens: torch.Tensor) -> torch.Tensor:
        """The offset K each sequence asks for: (..., B, P) -> (..., B)."""
        return torch.where(self.mode(tokens) == 0, self.cfg.offset, self.cfg.alt_offset)

    def draw_batch(self, generator: torch.Generator, batch: int, length: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Tokens (B, L) and lengths (B,) of ``batch`` sequences of exactly ``length`` tokens."""
        if length <= max(self.cfg.offsets):
            raise ValueError(f"length {length} must exceed the largest offset K={max(self.cfg.offsets)}")
        tokens = torch.randint(0, self.cfg.vocab, (batch, length), generator=generator)  # (B, L)
        return tokens, torch.full((batch,), length, dtype=torch.long)

    def sample_batch(self, generator: torch.Generator, batch: int, length: int) -> Batch:
        """``batch`` labelled sequences of exactly ``length`` tokens."""
        return self.label(*self.draw_batch(generator, batch, length))

    def draw_training(self, generator: torch.Generator, steps: int, batch: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Tokens (steps, B, Lmax) and lengths (steps, B) uniform in [Lmin, Lmax] per sequence."""
        cfg = self.cfg
        lengths = torch.randint(cfg.min_len, cfg.max_len + 1, (steps, batch), generator=generator)  # (T, B)
        tokens = torch.randint(0, cfg.vocab, (steps, batch, cfg.max_len), generator=generator)  # (T, B, P)
        return tokens, lengths

    def sample_training(self, generator: torch.Generator, steps: int, batch: int) -> Batch:
        """``steps`` training batches at once (leading dimension ``steps``)."""
        return self.label(*self.draw_training(generator, steps, batch))

    def label(self, tokens: torch.Tensor, lengths: torch.Tensor) -> Batch:
        """Targets of right-aligned ``tokens``: column P-1-K of each sequence, K chosen by its query token."""
        cols = tokens.shape[-1] - 1 - self.target_offsets(tokens)  # (..., B)
        targets = tokens.gather(-1, cols[..., None]).squeeze(-1)  # (..., B)
        return Batch(tokens, lengths, targets, cols)
