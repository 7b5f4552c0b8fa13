"""Position pinning of the APE head (C8, Proposition 2).

For every APE model of the phenomenon grid and every evaluation length beyond the training range, where
does the mean attention peak? The claim: at an absolute position inside the training range (< Lmax),
not at the target offset -K.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from lengthgen.cache import Cache
from lengthgen.config import EvalConfig
from lengthgen.experiments.phenomenon import run_phenomenon


@dataclass
class PinningResult:
    max_len: int  # Lmax: positions >= max_len were never trained
    rows: list[dict[str, Any]] = field(default_factory=list)  # one per (K, seed, length > Lmax)

    def positions(self, offset: int, seed: int) -> list[int]:
        """The absolute peak positions of one model across the out-of-range lengths."""
        return [r["peak_position"] for r in self.rows if r["offset"] == offset and r["seed"] == seed]

    def to_dict(self) -> dict[str, Any]:
        return {"max_len": self.max_len, "rows": self.rows}

    def table(self) -> str:
        lengths = sorted({r["length"] for r in self.rows})
        lines = [
            f"APE peak absolute position per length > Lmax = {self.max_len} (target offset in brackets if hit)",
            f"{'K':>2} {'seed':>4}  " + " ".join(f"L={L:<4}" for L in lengths),
        ]
        keys = sorted({(r["offset"], r["seed"]) for r in self.rows})
        for offset, seed in keys:
            cells = []
            for r in self.rows:
                if (r["offset"], r["seed"]) == (offset, seed):
                    mark = "*" if r["selected_offset"] == -offset else ""
                    cells.append(f"{r['peak_position']}{mark:<5}".ljust(6))
            lines.append(f"{offset:>2} {seed:>4}  " + " ".join(cells))
        return "\n".join(lines)


def run_pinning(
    seeds: Sequence[int],
    steps: int = 4000,
    offsets: Sequence[int] = (1, 2, 3),
    evaluation: EvalConfig | None = None,
    cache: Cache | None = None,
    progress: bool | None = None,
) -> PinningResult:
    grid = run_phenomenon(seeds, steps, offsets, ("ape",), evaluation, cache, progress)
    result = PinningResult(grid.max_len)
    for offset in offsets:
        for run in grid.runs["ape", offset]:
            for row in run.evals:
                if row.length > grid.max_len:
                    result.rows.append(
                        {
                            "offset": offset,
                            "seed": run.seed,
                            "length": row.length,
                            "peak_position": row.peak_position(),
                            "selected_offset": row.selected_offset(),
                            "peak_height": row.peak_height(),
                            "accuracy": row.accuracy,
                        }
                    )
    return result
