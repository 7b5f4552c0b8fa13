"""What every one-layer task shares: i.i.d. uniform tokens, one length per evaluation batch, training
lengths uniform in [Lmin, Lmax] per sequence, right-aligned (see ``batch.py``). A task subclass only
says how a batch is labelled (``label``), so tasks that differ in their targets share their draws."""

from __future__ import annotations

import torch

from lengthgen.config import TaskConfig
from lengthgen.tasks.batch import Batch


def draw_training_tokens(
    generator: torch.Generator, vocab: int, min_len: int, max_len: int, steps: int, batch: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Tokens (steps, B, Lmax) i.i.d. uniform over ``vocab`` and lengths (steps, B) uniform in
    [min_len, max_len] per sequence (lengths drawn first: part of the data stream's definition)."""
    lengths = torch.randint(min_len, max_len + 1, (steps, batch), generator=generator)  # (T, B)
    tokens = torch.randint(0, vocab, (steps, batch, max_len), generator=generator)  # (T, B, P)
    return tokens, lengths


class UniformTokens:
    """Samplers of i.i.d. uniform tokens; every sampler takes an explicit ``torch.Generator``."""

    kind = ""  # the TaskConfig.kind a subclass implements

    def __init__(self, cfg: TaskConfig):
        if cfg.kind != self.kind:
            raise ValueError(f"{type(self).__name__} needs kind={self.kind!r}, got {cfg.kind!r}")
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
        return draw_training_tokens(generator, cfg.vocab, cfg.min_len, cfg.max_len, steps, batch)

    def sample_training(self, generator: torch.Generator, steps: int, batch: int) -> Batch:
        """``steps`` training batches at once (leading dimension ``steps``)."""
        return self.label(*self.draw_training(generator, steps, batch))

    def label(self, tokens: torch.Tensor, lengths: torch.Tensor) -> Batch:
        raise NotImplementedError
