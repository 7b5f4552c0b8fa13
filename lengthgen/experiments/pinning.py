"""Position pinning of the APE head (C8, Proposition 2).

For every APE model of the phenomenon grid and every evaluation length beyond the training range, where
does the mean attention peak? The claim: at an absolute position inside the training range (< Lmax),
not at the target offset -K. ``encoding="rope"`` measures the same rows for the grid's RoPE heads (C8's
negative control: they select -K, so their peak moves with L beyond the trained positions).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from lengthgen.store.cache import Cache
from lengthgen.config import EvalConfig, RunSpec
from lengthgen.experiments.phenomenon import run_phenomenon


@dataclass
class PinningResult:
    max_len: int  # Lmax: positions >= max_len were never trained
    rows: list[dict[str, Any]] = field(default_factory=list)  # one per (K, seed, length > Lmax)
    encoding: str = "ape"  # the grid's heads the rows were measured on ("ape"; "rope" for the control)

    def positions(self, offset: int, seed: int) -> list[int]:
        """The absolute peak positions of one model across the out-of-range lengths."""
        return [r["peak_position"] for r in self.rows if r["offset"] == offset and r["seed"] == seed]

    def to_dict(self) -> dict[str, Any]:
        return {"max_len": self.max_len, "rows": self.rows}

    def table(self) -> str:
        lengths = sorted({r["length"] for r in self.rows})
        lines = [
            f"{self.encoding.upper()} peak absolute position per length > Lmax = {self.max_len} (target offset in brackets if hit)",
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
    encoding: str = "ape",
    base: RunSpec | None = None,
) -> PinningResult:
    """``base``: as for ``run_phenomenon`` (default the paper's point; a robustness setting passes its own)."""
    grid = run_phenomenon(seeds, steps, offsets, (encoding,), evaluation, cache, progress, base)
    result = PinningResult(grid.max_len, encoding=encoding)
    for offset in offsets:
        for run in grid.runs[encoding, offset]:
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
