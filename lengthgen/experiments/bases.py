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
from lengthgen.experiments.common import Run, column_means, eval_dict, mean, paper_spec, train_and_evaluate

PAPER_BASES = (1e3, 1e4, 1e5)


@dataclass
class BasesResult:
    bases: tuple[float, ...]
    offsets: tuple[int, ...]
    seeds: tuple[int, ...]
    evaluation: EvalConfig
    max_len: int  # Lmax: lengths above it are out of range
    rows: list[dict[str, Any]]  # one per (base, K, seed)

    @property
    def lengths(self) -> tuple[int, ...]:
        return self.evaluation.lengths

    @property
    def out_of_range(self) -> tuple[int, ...]:
        return tuple(L for L in self.lengths if L > self.max_len)

    def of(self, base: float, offset: int) -> list[dict[str, Any]]:
        return [r for r in self.rows if r["base"] == base and r["offset"] == offset]

    def ood_accuracy(self, base: float, offset: int) -> list[float]:
        """Per seed: accuracy averaged over the evaluation lengths beyond the training range."""
        columns = [self.lengths.index(L) for L in self.out_of_range]
        return [mean([r["accuracy"][i] for i in columns]) for r in self.of(base, offset)]

    def selected_offsets(self, base: float, offset: int) -> list[int]:
        """Every (seed, length) cell's selected offset."""
        return [s for r in self.of(base, offset) for s in r["selected_offset"]]

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

    def to_dict(self) -> dict[str, Any]:
        return {
            "config": {
                "bases": list(self.bases),
                "offsets": list(self.offsets),
                "seeds": list(self.seeds),
                "max_len": self.max_len,
                "eval": eval_dict(self.evaluation),
            },
            "rows": self.rows,
        }

    def table(self) -> str:
        lines = [
            f"RoPE base sweep: mean accuracy over {len(self.seeds)} seeds; cells selecting -K",
            f"{'base':>7} {'K':>2}  " + " ".join(f"L={L:<5}" for L in self.lengths) + "  OOD acc  cells at -K",
        ]
        for base in self.bases:
            for offset in self.offsets:
                acc = column_means([r["accuracy"] for r in self.of(base, offset)])
                ood = self.ood_accuracy(base, offset)
                cells = self.selected_offsets(base, offset)
                hits = sum(1 for s in cells if s == -offset)
                lines.append(
                    f"{base:>7.0e} {offset:>2}  "
                    + " ".join(f"{a:<7.3f}" for a in acc)
                    + f"  {mean(ood):<7.3f}  {hits}/{len(cells)}"
                )
        return "\n".join(lines)


def run_bases(
    seeds: Sequence[int],
    steps: int = 4000,
    offsets: Sequence[int] = (2, 3),
    bases: Sequence[float] = PAPER_BASES,
    evaluation: EvalConfig | None = None,
    cache: Cache | None = None,
    progress: bool | None = None,
) -> BasesResult:
    evaluation = evaluation or EvalConfig()
    specs: dict[tuple[float, int], RunSpec] = {
        (float(base), offset): paper_spec(steps, task={"offset": offset}, model={"rope_base": float(base)})
        for base in bases
        for offset in offsets
    }
    runs = train_and_evaluate(list(specs.values()), seeds, evaluation, cache, progress)
    rows = [row for (base, offset), spec in specs.items() for row in _rows(base, offset, runs[spec])]
    max_len = next(iter(specs.values())).task.max_len
    return BasesResult(tuple(float(b) for b in bases), tuple(offsets), tuple(seeds), evaluation, max_len, rows)


def _rows(base: float, offset: int, runs: Sequence[Run]) -> list[dict[str, Any]]:
    """One row per run (seed): accuracy and selected offset at every evaluation length."""
    return [
        {
            "base": base,
            "offset": offset,
            "seed": run.seed,
            "accuracy": [row.accuracy for row in run.evals],
            "selected_offset": [row.selected_offset() for row in run.evals],
        }
        for run in runs
    ]
