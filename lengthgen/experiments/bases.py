"""Robustness to the rotary base (C14, Fig. 4): RoPE heads with base 1e3, 1e4, 1e5.

Everything but ``rope_base`` is the paper's protocol; base 1e4 is the C1 grid itself (same spec, same
cache key). Per (base, K, seed) and evaluation length: accuracy and the selected offset (argmax of the
mean attention relative to the query). ``BasesResult.replaced`` puts other runs (C14's negative control:
the C1 grid's APE heads) in place of every base's.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from lengthgen.store.cache import Cache
from lengthgen.config import EvalConfig, RunSpec
from lengthgen.context import Context
from lengthgen.experiments.common import Run, column_means, mean, paper_spec, train_grid
from lengthgen.experiments.results import Column, config, length_columns, text_table, to_json

PAPER_BASES = (1e3, 1e4, 1e5)


@dataclass(frozen=True)
class BasesRow:
    """One (base, K, seed) RoPE model: accuracy and selected offset at every evaluation length."""

    base: float  # the RoPE base
    offset: int  # target offset K
    seed: int  # training seed
    accuracy: tuple[float, ...]  # per evaluation length
    selected_offset: tuple[int, ...]  # per evaluation length: argmax of the mean attention relative to the query


@dataclass(frozen=True)
class SweepLine:
    """One line of the table: the seed means of one (base, K)."""

    base: float  # the RoPE base
    offset: int  # target offset K
    accuracy: list[float]  # mean accuracy per evaluation length
    ood_accuracy: float  # mean over seeds of the accuracy averaged beyond the training range
    hits: str  # "selecting -K / all" (seed, length) cells


def columns(lengths: Sequence[int]) -> tuple[Column, ...]:
    return (
        Column("base", lambda r: r.base, ">7.0e"),
        Column("K", lambda r: r.offset, ">2"),
        *length_columns(lengths, lambda r, i, L: r.accuracy[i]),
        Column("OOD acc", lambda r: r.ood_accuracy, "<7.3f", gap="  "),
        Column("cells at -K", lambda r: r.hits, gap="  "),
    )


@dataclass
class BasesResult:
    bases: tuple[float, ...]  # RoPE bases, in run order
    offsets: tuple[int, ...]  # target offsets K, in run order
    seeds: tuple[int, ...]  # training seeds, in run order
    evaluation: EvalConfig  # evaluation lengths and sequences per length
    max_len: int  # Lmax: lengths above it are out of range
    rows: list[BasesRow]  # one per (base, K, seed)

    @property
    def lengths(self) -> tuple[int, ...]:
        return self.evaluation.lengths

    @property
    def out_of_range(self) -> tuple[int, ...]:
        return tuple(L for L in self.lengths if L > self.max_len)

    def of(self, base: float, offset: int) -> list[BasesRow]:
        return [r for r in self.rows if r.base == base and r.offset == offset]

    def ood_accuracy(self, base: float, offset: int) -> list[float]:
        """Per seed: accuracy averaged over the evaluation lengths beyond the training range."""
        indices = [self.lengths.index(L) for L in self.out_of_range]
        return [mean([r.accuracy[i] for i in indices]) for r in self.of(base, offset)]

    def selected_offsets(self, base: float, offset: int) -> list[int]:
        """Every (seed, length) cell's selected offset."""
        return [s for r in self.of(base, offset) for s in r.selected_offset]

    def replaced(self, runs: Mapping[int, Sequence[Run]]) -> "BasesResult":
        """The same sweep with every base's runs of K replaced by ``runs[K]`` (evaluated at the same lengths):
        a negative control's counterfactual built from real models (e.g. the C1 grid's APE heads in place
        of the RoPE heads)."""
        missing = [K for K in self.offsets if K not in runs]
        if missing:
            raise ValueError(f"no replacement runs for offsets {missing}")
        for K in self.offsets:
            lengths = [[row.length for row in run.evals] for run in runs[K]]
            if any(tuple(ls) != self.lengths for ls in lengths):
                raise ValueError(f"replacement runs of K={K} are evaluated at {lengths}, not at {list(self.lengths)}")
        rows = [row for base in self.bases for K in self.offsets for row in _rows(base, K, runs[K])]
        seeds = tuple(run.seed for run in runs[self.offsets[0]])
        return dataclasses.replace(self, seeds=seeds, rows=rows)

    def line(self, base: float, offset: int) -> SweepLine:
        cells = self.selected_offsets(base, offset)
        hits = sum(1 for s in cells if s == -offset)
        return SweepLine(
            base,
            offset,
            column_means([r.accuracy for r in self.of(base, offset)]),
            mean(self.ood_accuracy(base, offset)),
            f"{hits}/{len(cells)}",
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "config": config(
                bases=self.bases, offsets=self.offsets, seeds=self.seeds, max_len=self.max_len, eval=self.evaluation
            ),
            "rows": to_json(self.rows),
        }

    def table(self) -> str:
        return text_table(
            f"RoPE base sweep: mean accuracy over {len(self.seeds)} seeds; cells selecting -K",
            columns(self.lengths),
            [self.line(base, offset) for base in self.bases for offset in self.offsets],
        )


def run_bases(
    ctx: Context, cache: Cache | None, offsets: Sequence[int] = (2, 3), bases: Sequence[float] = PAPER_BASES
) -> BasesResult:
    """The RoPE head at every base x K, trained and evaluated at ``ctx``."""
    specs: dict[tuple[float, int], RunSpec] = {
        (float(base), offset): paper_spec(ctx, task={"offset": offset}, model={"rope_base": float(base)})
        for base in bases
        for offset in offsets
    }
    runs = train_grid(ctx, cache, specs)
    rows = [row for (base, offset), by_seed in runs.items() for row in _rows(base, offset, by_seed)]
    max_len = next(iter(specs.values())).task.max_len
    return BasesResult(tuple(float(b) for b in bases), tuple(offsets), ctx.seeds, ctx.evaluation, max_len, rows)


def _rows(base: float, offset: int, runs: Sequence[Run]) -> list[BasesRow]:
    """One row per run (seed): accuracy and selected offset at every evaluation length."""
    return [
        BasesRow(
            base=base,
            offset=offset,
            seed=run.seed,
            accuracy=tuple(row.accuracy for row in run.evals),
            selected_offset=tuple(row.selected_offset() for row in run.evals),
        )
        for run in runs
    ]
