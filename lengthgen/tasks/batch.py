"""The batch format shared by every task, model and probe.

Sequences of mixed length are *right-aligned* in a ``(batch, P)`` array: the query (the last token) is
always the last column ``P - 1`` and a sequence of length ``L`` occupies columns ``P - L .. P - 1``.
Column ``j`` therefore sits at offset ``j - (P - 1)`` from the query and at absolute position
``L - P + j``; columns left of ``P - L`` are padding, hold arbitrary tokens and are masked out of
attention. Training batches mix lengths per sequence (each sequence draws its own length uniform in
[Lmin, Lmax]) and pad to P = Lmax; evaluation batches have one length and no padding.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Batch:
    """A right-aligned batch; leading dimensions (steps, members) may precede ``batch``."""

    tokens: torch.Tensor  # (..., batch, P) int64 token ids in [0, vocab)
    lengths: torch.Tensor  # (..., batch) int64 true sequence lengths, 1 <= L <= P
    targets: torch.Tensor  # (..., batch) int64 the token the model must output
    target_cols: torch.Tensor  # (..., batch) int64 column of the target token

    @property
    def width(self) -> int:
        """P, the padded length."""
        return self.tokens.shape[-1]

    def to(self, device: torch.device) -> "Batch":
        """The batch on ``device`` (a no-op on the device it is on)."""
        return Batch(*(t.to(device) for t in (self.tokens, self.lengths, self.targets, self.target_cols)))

    def index(self, i: int) -> "Batch":
        """The batch at index ``i`` of the leading dimension (e.g. one step of a chunk)."""
        return Batch(self.tokens[i], self.lengths[i], self.targets[i], self.target_cols[i])

    @staticmethod
    def stack(batches: list["Batch"], dim: int = 0) -> "Batch":
        """Stack batches of equal shape along a new dimension ``dim`` (e.g. one per ensemble member)."""
        return Batch(
            torch.stack([b.tokens for b in batches], dim),
            torch.stack([b.lengths for b in batches], dim),
            torch.stack([b.targets for b in batches], dim),
            torch.stack([b.target_cols for b in batches], dim),
        )


def valid_mask(lengths: torch.Tensor, width: int) -> torch.Tensor:
    """``True`` where a column holds a real token: column j is valid iff j >= P - L."""
    cols = torch.arange(width, device=lengths.device)  # (P,)
    return cols >= (width - lengths)[..., None]  # (..., batch, P)


def absolute_positions(lengths: torch.Tensor, width: int) -> torch.Tensor:
    """Absolute position ``L - P + j`` of every column (negative on padding)."""
    cols = torch.arange(width, device=lengths.device)  # (P,)
    return cols + (lengths - width)[..., None]  # (..., batch, P)
