"""Mode-conditioned attention probes for tasks whose query picks the target offset (the content task).

The mean attention profile over *all* sequences of the content task mixes two modes (half the queries
want offset -K1, half -K2), so its peak is bounded by about half the attention on either target: it
measures which offsets are used as much as how concentrated the head is. Conditioning on the mode
separates the two: the profile of mode k is the mean attention over the sequences that ask for K_k.
Pure functions of tensors.
"""

from __future__ import annotations

import torch


def mode_profiles(attention: torch.Tensor, modes: torch.Tensor, count: int) -> torch.Tensor:
    """Mean attention per mode: attention (..., B, L), modes (B,) in [0, count) -> (..., count, L) float64.

    A mode that no sequence asks for has an all-NaN profile.
    """
    if modes.dim() != 1 or modes.shape[0] != attention.shape[-2]:
        raise ValueError(f"modes of shape {tuple(modes.shape)} do not match attention {tuple(attention.shape)}")
    if modes.numel() and (int(modes.min()) < 0 or int(modes.max()) >= count):
        raise ValueError(f"modes must lie in [0, {count}), got {int(modes.min())}..{int(modes.max())}")
    onehot = torch.nn.functional.one_hot(modes, count).double()  # (B, count)
    sums = torch.einsum("...bl,bk->...kl", attention.double(), onehot)  # (..., count, L)
    return sums / onehot.sum(0)[:, None]  # (..., count, L)


def mode_target_weight(profiles: torch.Tensor, offsets: tuple[int, ...]) -> torch.Tensor:
    """Mean attention on each mode's own target: profiles (..., count, L), offsets K_k -> (..., count).

    For sequences of one length L the target of mode k sits at position L-1-K_k of the profile.
    """
    length = profiles.shape[-1]
    if len(offsets) != profiles.shape[-2]:
        raise ValueError(f"{len(offsets)} offsets for {profiles.shape[-2]} modes")
    cols = torch.tensor([length - 1 - k for k in offsets])  # (count,)
    return profiles.gather(-1, cols.expand(*profiles.shape[:-1])[..., None]).squeeze(-1)  # (..., count)
