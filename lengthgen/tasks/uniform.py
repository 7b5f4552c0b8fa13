"""What every one-layer task shares: i.i.d. uniform tokens, one length per evaluation batch, training
lengths uniform in [Lmin, Lmax], right-aligned (see ``batch.py``). A task subclass only says how a batch
is labelled (``label``), so tasks that differ in their targets share their draws.

How mixed training lengths are batched is a choice the paper leaves open (``TrainConfig.length_mix``):

- ``"per-sequence"`` (the suite's reading): each sequence draws its own length, the batch is padded to
  Lmax (right-aligned for the one-layer tasks, left-aligned for the shift task) and padding is masked;
- ``"per-batch"`` (a plain training script's batches): one length per step, uniform in [Lmin, Lmax],
  shared by every sequence of the step. These batches are still drawn Lmax wide with the padding masked:
  a batch of one length L padded to Lmax computes exactly the function of the unpadded (B, L) batch
  (right-aligned, the padding columns sit at negative positions and get attention weight 0 and no
  gradient; left-aligned under causal attention, no real position sees them and their targets are
  ignored), so its loss and gradients are those of the unpadded batch (``tests/test_readings_engine.py``
  checks both forwards and both task layouts), and the draws keep one shape for every reading.

Both readings draw the lengths first, then the tokens (steps, B, Lmax), from the same generator; under
``"per-batch"`` the length draw is (steps,) instead of (steps, B), so the token draws differ too.
"""

from __future__ import annotations

import torch

from lengthgen.config import LENGTH_MIXES, TaskConfig
from lengthgen.tasks.batch import Batch


def draw_training_tokens(
    generator: torch.Generator,
    vocab: int,
    min_len: int,
    max_len: int,
    steps: int,
    batch: int,
    length_mix: str = LENGTH_MIXES[0],
) -> tuple[torch.Tensor, torch.Tensor]:
    """Tokens (steps, B, Lmax) i.i.d. uniform over ``vocab`` and lengths (steps, B) uniform in
    [min_len, max_len], per sequence or, with ``length_mix="per-batch"``, one per step (lengths drawn
    first: part of the data stream's definition)."""
    if length_mix == "per-sequence":
        lengths = torch.randint(min_len, max_len + 1, (steps, batch), generator=generator)  # (T, B)
    elif length_mix == "per-batch":
        per_step = torch.randint(min_len, max_len + 1, (steps, 1), generator=generator)  # (T, 1)
        lengths = per_step.expand(steps, batch).contiguous()  # (T, B)
    else:
        raise ValueError(f"unknown length_mix {length_mix!r} (known: {', '.join(LENGTH_MIXES)})")
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

    def draw_training(
        self, generator: torch.Generator, steps: int, batch: int, length_mix: str = LENGTH_MIXES[0]
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Tokens (steps, B, Lmax) and lengths (steps, B) uniform in [Lmin, Lmax] per sequence (or per
        step: ``length_mix``)."""
        cfg = self.cfg
        return draw_training_tokens(generator, cfg.vocab, cfg.min_len, cfg.max_len, steps, batch, length_mix)

    def sample_training(
        self, generator: torch.Generator, steps: int, batch: int, length_mix: str = LENGTH_MIXES[0]
    ) -> Batch:
        """``steps`` training batches at once (leading dimension ``steps``)."""
        return self.label(*self.draw_training(generator, steps, batch, length_mix))

    def label(self, tokens: torch.Tensor, lengths: torch.Tensor) -> Batch:
        raise NotImplementedError
