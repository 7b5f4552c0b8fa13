"""The rotary kernel g(s) = sum_j cos(s theta_j) (C15): its maximum over integers is unique at s = 0,
and max_{s >= 4} g(s) / g(0) is about 0.67-0.79 for bases 1e3 / 1e4 / 1e5 at d = 64. Exact (float64).

``run_kernel(..., frequencies=equal_frequencies(P))`` computes the same rows for a kernel whose d/2
frequencies are all 2 pi / P (C15's negative control): g is then periodic on the integers, g(P) = g(0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import torch

from lengthgen.encodings.rope import frequencies as rope_frequencies
from lengthgen.experiments.results import Column, text_table, to_json

S_MAX = 4096  # integers 1..S_MAX are searched: far beyond every context length the suite uses
RATIO_FROM = 4  # the paper's ratio is max over s >= 4


@dataclass(frozen=True)
class KernelRow:
    """The kernel g of one base over the integers |s| <= S_MAX."""

    base: float  # the RoPE base
    argmax: int  # the integer s where g peaks
    unique: bool  # whether no other integer reaches the maximum
    second_best_gap: float  # g(argmax) - the largest g elsewhere
    ratio: float  # max_{s >= RATIO_FROM} g(s) / g(0)
    ratio_at: int  # the s where that maximum is reached
    profile: tuple[float, ...]  # g(s)/g(0), s = 0..48 (the figure)


COLUMNS = (
    Column("base", lambda r: r.base, ">8.0e"),
    Column("argmax", lambda r: r.argmax, ">6", gap="  "),
    Column("unique", lambda r: str(r.unique), ">6", gap="  "),
    Column("max g(s)/g(0), s>=4", lambda r: r.ratio, ">20.4f", gap="  "),
    Column("at s", lambda r: r.ratio_at, ">5", gap="  "),
)


@dataclass
class KernelResult:
    d: int  # head width
    rows: list[KernelRow]  # one per base

    def to_json(self) -> dict[str, Any]:
        return {"d": self.d, "s_max": S_MAX, "rows": to_json(self.rows)}

    def table(self) -> str:
        return text_table(
            f"g(s) = sum_j cos(s theta_j), d = {self.d}, integers s in [-{S_MAX}, {S_MAX}]", COLUMNS, self.rows
        )


Frequencies = Callable[[int, float], torch.Tensor]  # (head width d, base) -> theta, (d/2,) float64


def equal_frequencies(period: int) -> Frequencies:
    """Frequencies that are all 2 pi / ``period`` (whatever the base): g(s) = (d/2) cos(2 pi s / period)
    is periodic on the integers, so its maximum g(0) recurs at every multiple of ``period``."""
    if isinstance(period, bool) or not isinstance(period, int) or period < 1:
        raise ValueError(f"period={period!r} must be a positive integer")

    def theta(d: int, base: float) -> torch.Tensor:
        return torch.full((d // 2,), 2 * math.pi / period, dtype=torch.float64)  # (d/2,)

    return theta


def run_kernel(
    d: int = 64, bases: Sequence[float] = (1e3, 1e4, 1e5), frequencies: Frequencies = rope_frequencies
) -> KernelResult:
    """Per base: g over the integers |s| <= S_MAX for ``frequencies(d, base)`` (RoPE's, base^(-2i/d), by
    default; as ``encodings.rope.kernel``), its argmax, whether the maximum is unique, and the ratio."""
    if isinstance(d, bool) or not isinstance(d, int) or d < 2 or d % 2:
        raise ValueError(f"d={d!r} must be an even width >= 2")
    s = torch.arange(-S_MAX, S_MAX + 1)  # (2 S_MAX + 1,)
    rows = []
    for base in bases:
        g = torch.cos(s.to(torch.float64)[:, None] * frequencies(d, base)).sum(-1)  # (2 S_MAX + 1,) float64
        top = g.max()
        argmax = int(s[g.argmax()])
        unique = int((g >= top).sum()) == 1
        tail = s >= RATIO_FROM
        ratios = g[tail] / g[s == 0]
        rows.append(
            KernelRow(
                base=float(base),
                argmax=argmax,
                unique=unique,
                second_best_gap=float(top - g[s != argmax].max()),
                ratio=float(ratios.max()),
                ratio_at=int(s[tail][ratios.argmax()]),
                profile=tuple(g[S_MAX : S_MAX + 49].div(g[S_MAX]).tolist()),  # (49,) g(s)/g(0), s = 0..48
            )
        )
    return KernelResult(d, rows)
