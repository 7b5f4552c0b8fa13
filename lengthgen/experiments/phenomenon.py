"""The phenomenon (C1, and the cells of C3): RoPE against APE, K in {1, 2, 3}, several seeds.

Each (encoding, K, seed) model is trained on lengths [8, 16] and evaluated at the paper's lengths.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from lengthgen.cache import Cache
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

    def accuracy(self, encoding: str, offset: int, length: int) -> list[float]:
        """Accuracy of every seed at one length."""
        return [run.at(length).accuracy for run in self.runs[encoding, offset]]

    def selected_offsets(self, encoding: str, offset: int, length: int) -> list[int]:
        return [run.at(length).selected_offset() for run in self.runs[encoding, offset]]

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
) -> PhenomenonResult:
    evaluation = evaluation or EvalConfig()
    specs = {
        (encoding, offset): paper_spec(steps, model={"encoding": encoding}, task={"offset": offset})
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
