"""Inference-time fixes for a trained APE head at lengths beyond its trained table (C10).

Training sequences reach positions 0 .. Lmax-1 only, so rows 0 .. Lmax-1 of the position table are
trained ("trained" below, = Lmax) and rows from Lmax on keep their initial values. At an evaluation
length L > Lmax the head needs vectors for positions 0 .. L-1. Each fix builds them from the trained rows
alone, as a fixed (L, trained) mixing matrix M: the vector used at position t is
p'_t = sum_j M[t, j] p_j. With s = (Lmax - 1) / (L - 1):

- ``interpolate`` (position interpolation, Chen et al. 2023): position t reads the table at the
  fractional index u = t * s, linearly interpolated: p'_t = (1 - f) p_floor(u) + f p_floor(u)+1 with
  f = u - floor(u). The first position maps to row 0 and the query (t = L-1) to row Lmax-1.
- ``clamp`` (clamp-to-last): p'_t = p_min(t, Lmax-1); every position past the table's trained part
  reuses the last trained row.
- ``rescale`` (index rescaling): position t reads the integer row floor(t * Lmax / L), i.e. the index
  range [0, L) is scaled onto [0, Lmax) and rounded down (nearest-neighbour resampling of the table).

At L <= Lmax every fix is the identity (all positions are trained). Pure functions: the trained model is
never modified; ``fixed_state`` returns a new parameter dict.
"""

from __future__ import annotations

import torch

FIXES = ("interpolate", "clamp", "rescale")
TABLE = "encoding.pos.weight"  # the APE position table's parameter name (OneLayerHead)


def position_map(fix: str, length: int, trained: int) -> torch.Tensor:
    """The (length, trained) float64 mixing matrix M of ``fix``: p'_t = sum_j M[t, j] p_j."""
    if fix not in FIXES:
        raise ValueError(f"unknown APE fix {fix!r} (known: {', '.join(FIXES)})")
    if trained < 2 or length < 1:
        raise ValueError(f"need trained >= 2 rows and length >= 1, got trained={trained}, length={length}")
    M = torch.zeros(length, trained, dtype=torch.float64)  # (L, Lmax)
    t = torch.arange(length)
    if length <= trained:
        M[t, t] = 1.0
        return M
    if fix == "clamp":
        M[t, t.clamp(max=trained - 1)] = 1.0
    elif fix == "rescale":
        M[t, torch.div(t * trained, length, rounding_mode="floor")] = 1.0
    else:
        for pos in range(length):  # exact rational index u = pos (Lmax-1) / (L-1), no float rounding at ends
            low, remainder = divmod(pos * (trained - 1), length - 1)
            frac = remainder / (length - 1)
            M[pos, low] += 1.0 - frac
            if frac > 0:
                M[pos, low + 1] += frac
    return M


def fixed_table(table: torch.Tensor, fix: str, length: int, trained: int) -> torch.Tensor:
    """A copy of ``table`` (..., positions, d) whose rows 0 .. length-1 are the fixed vectors M @ table[:trained].

    Rows from ``length`` on are left as they are (a length-L evaluation never reads them).
    """
    positions = table.shape[-2]
    if length > positions:
        raise ValueError(f"length {length} exceeds the position table ({positions} rows)")
    if trained > positions:
        raise ValueError(f"trained={trained} rows exceed the position table ({positions} rows)")
    M = position_map(fix, length, trained).to(table.dtype)  # (L, Lmax)
    out = table.clone()
    out[..., :length, :] = M @ table[..., :trained, :]  # (..., L, d)
    return out


def fixed_state(state: dict[str, torch.Tensor], fix: str, length: int, trained: int) -> dict[str, torch.Tensor]:
    """A new parameter dict of an APE head with its position table fixed for evaluation at ``length``."""
    if TABLE not in state:
        raise ValueError(f"not an APE head: no {TABLE!r} among {sorted(state)}")
    new = dict(state)
    new[TABLE] = fixed_table(state[TABLE], fix, length, trained)
    return new


def source_index(fix: str, length: int, trained: int) -> list[float]:
    """The (fractional) trained row each position 0 .. length-1 reads: sum_j j M[t, j] (for tables/figures)."""
    M = position_map(fix, length, trained)
    return (M @ torch.arange(trained, dtype=torch.float64)).tolist()  # (L,)
