"""Fixed-offset retrieval: copy the token K positions before the query.

Tokens are i.i.d. uniform over the vocabulary; the query is the last position n = L-1 and the target is
y = s[L-1-K]. Training lengths are uniform in [Lmin, Lmax], drawn per sequence (see ``batch.py`` for how
mixed lengths are batched); evaluation uses one fixed length per batch.

A task separates *drawing* (tokens and lengths, from the generator) from *labelling* (targets), so
ensemble members that share a seed and differ only in K share one draw.
"""

from __future__ import annotations

import torch

from lengthgen.config import TaskConfig
from lengthgen.tasks.batch import Batch


class OffsetRetrieval:
    """The paper's task. Every sampler takes an explicit ``torch.Generator``."""

    def __init__(self, cfg: TaskConfig):
        if cfg.kind != "offset":
            raise ValueError(f"OffsetRetrieval needs kind='offset', got {cfg.kind!r}")
        self.cfg = cfg

    def draw_batch(self, generator: torch.Generator, batch: int, length: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Tokens (B, L) and lengths (B,) of ``batch`` sequences of exactly ``length`` tokens."""
        if length <= max(self.cfg.offsets):
            raise ValueError(f"length {length} must exceed the offset K={max(self.cfg.offsets)}")
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
        """Targets of right-aligned ``tokens``: the column P-1-K holds the target for every length."""
        col = tokens.shape[-1] - 1 - self.cfg.offset
        return Batch(tokens, lengths, tokens[..., col], torch.full_like(lengths, col))
