"""The full-sequence shift task of the paper's Section 5.2: every position t >= K predicts s[t-K].

Tokens are i.i.d. uniform over the vocabulary {0..m-1} (the paper's {1..m}). Unlike the fixed-offset
task, which asks one question per sequence (at the last position), a causal model is asked at every
position t >= K; positions t < K have no target and carry no loss.

Batching (a choice the paper leaves open). Sequences are *left-aligned*: a length-L sequence fills
columns 0..L-1 of a (B, Lmax) array, so the column is the absolute position; columns >= L are padding
(arbitrary tokens) whose targets are masked out of the loss. Each training sequence draws its own length
uniform in [Lmin, Lmax] (``TrainConfig.length_mix="per-sequence"``; under ``"per-batch"`` one length per
step is shared by every sequence of the step, see ``uniform.py``). Under causal attention the prediction
at position t depends on tokens 0..t only, so right padding never changes a real position's output, and
mixing lengths only decides how often each position is trained: position t contributes in sequences with
L > t (always for t < Lmin, with probability (Lmax - t) / (Lmax - Lmin + 1) beyond, under either reading).
The loss is the mean cross-entropy over every
(sequence, position) pair that has a target in the batch.

Every sampler takes an explicit ``torch.Generator``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from lengthgen.config import LENGTH_MIXES, _require, require_integers
from lengthgen.tasks.uniform import draw_training_tokens

IGNORE = -100  # target of a position without one (t < K or padding); cross_entropy's ignore_index


@dataclass(frozen=True)
class ShiftConfig:
    """The shift task: lengths, offset and vocabulary."""

    offset: int = 2  # K: position t >= K predicts s[t-K] (1 <= K < min_len)
    min_len: int = 8  # Lmin, shortest training length (inclusive)
    max_len: int = 16  # Lmax, longest training length (inclusive); positions >= Lmax are never trained
    vocab: int = 20  # m, tokens i.i.d. uniform over {0..m-1}

    def __post_init__(self) -> None:
        require_integers(self, ("offset", "min_len", "max_len", "vocab"))
        _require(self.vocab >= 2, f"vocab={self.vocab} must be at least 2")
        _require(self.min_len >= 2, f"min_len={self.min_len} must be at least 2")
        _require(self.max_len >= self.min_len, f"max_len={self.max_len} is below min_len={self.min_len}")
        _require(
            1 <= self.offset < self.min_len, f"offset K={self.offset} must satisfy 1 <= K < min_len={self.min_len}"
        )


def shift_targets(tokens: torch.Tensor, lengths: torch.Tensor, offset: int) -> torch.Tensor:
    """Targets (..., B, P) of left-aligned ``tokens`` (..., B, P): s[t-K] where K <= t < L, else IGNORE."""
    P = tokens.shape[-1]
    cols = torch.arange(P, device=tokens.device)  # (P,)
    shifted = torch.cat((tokens.new_full((*tokens.shape[:-1], offset), IGNORE), tokens[..., : P - offset]), -1)
    valid = (cols >= offset) & (cols < lengths[..., None])  # (..., B, P)
    return shifted.masked_fill(~valid, IGNORE)  # (..., B, P)


class ShiftTask:
    """Draws (tokens, lengths) from an explicit generator and labels them."""

    def __init__(self, cfg: ShiftConfig):
        self.cfg = cfg

    def draw_training(
        self, generator: torch.Generator, steps: int, batch: int, length_mix: str = LENGTH_MIXES[0]
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Left-aligned tokens (steps, B, Lmax) and lengths (steps, B) uniform in [Lmin, Lmax] per sequence
        (or one per step: ``length_mix``)."""
        cfg = self.cfg
        return draw_training_tokens(generator, cfg.vocab, cfg.min_len, cfg.max_len, steps, batch, length_mix)

    def draw_eval(self, generator: torch.Generator, sequences: int, length: int) -> torch.Tensor:
        """``sequences`` evaluation sequences of exactly ``length`` tokens: (N, L)."""
        if length <= self.cfg.offset:
            raise ValueError(f"evaluation length {length} must exceed the offset K={self.cfg.offset}")
        return torch.randint(0, self.cfg.vocab, (sequences, length), generator=generator)  # (N, L)

    def targets(self, tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return shift_targets(tokens, lengths, self.cfg.offset)
