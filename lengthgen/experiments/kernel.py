"""The rotary kernel g(s) = sum_j cos(s theta_j) (C15): its maximum over integers is unique at s = 0,
and max_{s >= 4} g(s) / g(0) is about 0.67-0.79 for bases 1e3 / 1e4 / 1e5 at d = 64. Exact (float64)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import torch

from lengthgen.encodings.rope import kernel

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


def run_kernel(d: int = 64, bases: Sequence[float] = (1e3, 1e4, 1e5)) -> KernelResult:
    s = torch.arange(-S_MAX, S_MAX + 1)  # (2 S_MAX + 1,)
    rows = []
    for base in bases:
        g = kernel(s, d, base)  # (2 S_MAX + 1,) float64
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
