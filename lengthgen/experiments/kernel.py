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

S_MAX = 4096  # integers 1..S_MAX are searched: far beyond every context length the suite uses
RATIO_FROM = 4  # the paper's ratio is max over s >= 4


@dataclass
class KernelResult:
    d: int
    rows: list[dict[str, Any]]  # one per base

    def to_dict(self) -> dict[str, Any]:
        return {"d": self.d, "s_max": S_MAX, "rows": self.rows}

    def table(self) -> str:
        lines = [f"g(s) = sum_j cos(s theta_j), d = {self.d}, integers s in [-{S_MAX}, {S_MAX}]"]
        lines.append(f"{'base':>8}  {'argmax':>6}  {'unique':>6}  {'max g(s)/g(0), s>=4':>20}  {'at s':>5}")
        for r in self.rows:
            lines.append(
                f"{r['base']:>8.0e}  {r['argmax']:>6}  {str(r['unique']):>6}  {r['ratio']:>20.4f}  {r['ratio_at']:>5}"
            )
        return "\n".join(lines)


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
            {
                "base": float(base),
                "argmax": argmax,
                "unique": unique,
                "second_best_gap": float(top - g[s != argmax].max()),
                "ratio": float(ratios.max()),
                "ratio_at": int(s[tail][ratios.argmax()]),
                "profile": g[S_MAX : S_MAX + 49].div(g[S_MAX]).tolist(),  # g(s)/g(0), s = 0..48 (figure)
            }
        )
    return KernelResult(d, rows)
