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
from lengthgen.config import RunSpec
from lengthgen.context import Context
from lengthgen.experiments.phenomenon import run_phenomenon
from lengthgen.experiments.results import Column, length_columns, text_table, to_json


@dataclass(frozen=True)
class PinningRow:
    """One (K, seed) model at one evaluation length beyond the training range."""

    offset: int  # target offset K
    seed: int  # training seed
    length: int  # evaluation length L > Lmax
    peak_position: int  # the absolute position where the mean attention peaks
    selected_offset: int  # that peak relative to the query
    peak_height: float  # the mean attention weight at the peak
    accuracy: float  # accuracy at L


@dataclass(frozen=True)
class ModelPeaks:
    """One line of the table: one model's rows across the out-of-range lengths."""

    offset: int  # target offset K
    seed: int  # training seed
    rows: tuple[PinningRow, ...]  # by length


def peak_cell(row: PinningRow) -> str:
    """The peak position, starred where it is the target offset -K."""
    mark = "*" if row.selected_offset == -row.offset else ""
    return f"{row.peak_position}{mark:<5}".ljust(6)


def columns(lengths: Sequence[int]) -> tuple[Column, ...]:
    """K, seed and the peak position per out-of-range length."""
    return (
        Column("K", lambda m: m.offset, ">2"),
        Column("seed", lambda m: m.seed, ">4"),
        *length_columns(lengths, lambda m, i, L: peak_cell(m.rows[i]), "", header_spec="<6"),
    )


@dataclass
class PinningResult:
    max_len: int  # Lmax: positions >= max_len were never trained
    rows: list[PinningRow] = field(default_factory=list)  # one per (K, seed, length > Lmax)
    encoding: str = "ape"  # the grid's heads the rows were measured on ("ape"; "rope" for the control)

    def positions(self, offset: int, seed: int) -> list[int]:
        """The absolute peak positions of one model across the out-of-range lengths."""
        return [r.peak_position for r in self.rows if r.offset == offset and r.seed == seed]

    def to_json(self) -> dict[str, Any]:
        return {"max_len": self.max_len, "rows": to_json(self.rows)}

    def table(self) -> str:
        lengths = sorted({r.length for r in self.rows})
        models = [
            ModelPeaks(offset, seed, tuple(r for r in self.rows if (r.offset, r.seed) == (offset, seed)))
            for offset, seed in sorted({(r.offset, r.seed) for r in self.rows})
        ]
        title = (
            f"{self.encoding.upper()} peak absolute position per length > Lmax = {self.max_len} "
            "(target offset in brackets if hit)"
        )
        return text_table(title, columns(lengths), models)


def run_pinning(
    ctx: Context,
    cache: Cache | None,
    offsets: Sequence[int] = (1, 2, 3),
    encoding: str = "ape",
    base: RunSpec | None = None,
) -> PinningResult:
    """The grid's ``encoding`` heads at ``ctx``; ``base``: as for ``run_phenomenon`` (default the paper's point; a
    robustness setting passes its own)."""
    grid = run_phenomenon(ctx, cache, offsets, (encoding,), base)
    rows = [
        PinningRow(
            offset=offset,
            seed=run.seed,
            length=row.length,
            peak_position=row.peak_position(),
            selected_offset=row.selected_offset(),
            peak_height=row.peak_height(),
            accuracy=row.accuracy,
        )
        for offset in offsets
        for run in grid.runs[encoding, offset]
        for row in run.evals
        if row.length > grid.max_len
    ]
    return PinningResult(grid.max_len, rows, encoding=encoding)
