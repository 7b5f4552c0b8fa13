"""The phenomenon (C1, and the cells of C3): RoPE against APE, K in {1, 2, 3}, several seeds.

Each (encoding, K, seed) model is trained on lengths [8, 16] and evaluated at the paper's lengths.
``PhenomenonResult.replaced("rope", by="ape")`` is the grid with its APE heads in place of the RoPE heads
(the negative control of C1 and C3).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Sequence

from lengthgen.store.cache import Cache
from lengthgen.config import EvalConfig, RunSpec
from lengthgen.experiments.common import Run, eval_dict, mean, paper_spec, train_and_evaluate


@dataclass
class PhenomenonResult:
    encodings: tuple[str, ...]
    offsets: tuple[int, ...]
    seeds: tuple[int, ...]
    evaluation: EvalConfig
    specs: dict[tuple[str, int], RunSpec]  # (encoding, K) -> spec
    runs: dict[tuple[str, int], list[Run]]  # (encoding, K) -> runs by seed

    @property
    def lengths(self) -> tuple[int, ...]:
        return self.evaluation.lengths

    @property
    def max_len(self) -> int:
        return next(iter(self.specs.values())).task.max_len

    @property
    def chance(self) -> float:
        """1/m, the accuracy of a guess (0.05 at the paper's m = 20)."""
        return 1.0 / next(iter(self.specs.values())).task.vocab

    def accuracy(self, encoding: str, offset: int, length: int) -> list[float]:
        """Accuracy of every seed at one length."""
        return [run.at(length).accuracy for run in self.runs[encoding, offset]]

    def selected_offsets(self, encoding: str, offset: int, length: int) -> list[int]:
        return [run.at(length).selected_offset() for run in self.runs[encoding, offset]]

    def replaced(self, encoding: str, by: str) -> "PhenomenonResult":
        """The same grid with ``encoding``'s runs (and specs) replaced, K by K, by those of ``by``: a negative
        control's counterfactual built from real models (e.g. the APE heads in place of the RoPE heads)."""
        for name in (encoding, by):
            if name not in self.encodings:
                raise ValueError(f"encoding {name!r} is not in this grid (encodings {list(self.encodings)})")
        specs, runs = dict(self.specs), dict(self.runs)
        for offset in self.offsets:
            specs[encoding, offset] = self.specs[by, offset]
            runs[encoding, offset] = self.runs[by, offset]
        return dataclasses.replace(self, specs=specs, runs=runs)

    def to_dict(self) -> dict[str, Any]:
        cells = []
        for (encoding, offset), runs in self.runs.items():
            for run in runs:
                cells.append(
                    {
                        "encoding": encoding,
                        "offset": offset,
                        "seed": run.seed,
                        "eval": [row.summary() for row in run.evals],
                    }
                )
        return {
            "config": {
                "encodings": list(self.encodings),
                "offsets": list(self.offsets),
                "seeds": list(self.seeds),
                "spec": next(iter(self.specs.values())).to_dict(),
                "eval": eval_dict(self.evaluation),
            },
            "cells": cells,
        }

    def table(self) -> str:
        """Mean accuracy over seeds per (encoding, K) and length."""
        header = f"{'encoding':<8} {'K':>2}  " + " ".join(f"L={L:<5}" for L in self.lengths)
        lines = [f"accuracy, mean over {len(self.seeds)} seeds (training lengths up to {self.max_len})", header]
        for encoding in self.encodings:
            for offset in self.offsets:
                means = [mean(self.accuracy(encoding, offset, L)) for L in self.lengths]
                lines.append(f"{encoding:<8} {offset:>2}  " + " ".join(f"{m:<7.3f}" for m in means))
        return "\n".join(lines)


def run_phenomenon(
    seeds: Sequence[int],
    steps: int = 4000,
    offsets: Sequence[int] = (1, 2, 3),
    encodings: Sequence[str] = ("rope", "ape"),
    evaluation: EvalConfig | None = None,
    cache: Cache | None = None,
    progress: bool | None = None,
    base: RunSpec | None = None,
) -> PhenomenonResult:
    """``base``: the spec whose encoding and K each grid cell replaces (default ``paper_spec(steps)``: the
    paper's point; a robustness setting passes its own, e.g. d = 32, see ``lengthgen.experiments.robustness``)."""
    evaluation = evaluation or EvalConfig()
    base = base if base is not None else paper_spec(steps)
    specs = {
        (encoding, offset): base.replace(model={"encoding": encoding}, task={"offset": offset})
        for encoding in encodings
        for offset in offsets
    }
    runs = train_and_evaluate(list(specs.values()), seeds, evaluation, cache, progress)
    return PhenomenonResult(
        tuple(encodings),
        tuple(offsets),
        tuple(seeds),
        evaluation,
        specs,
        {key: runs[spec] for key, spec in specs.items()},
    )
