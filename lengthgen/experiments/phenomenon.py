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
from lengthgen.context import Context
from lengthgen.experiments.common import Run, mean, paper_spec, train_grid
from lengthgen.experiments.multiverse import apply_universe
from lengthgen.experiments.results import Column, config, length_columns, text_table, to_json


@dataclass(frozen=True)
class PhenomenonCell:
    """One (encoding, K, seed) model of the grid, as the JSON reports it."""

    encoding: str  # positional encoding
    offset: int  # target offset K
    seed: int  # training seed
    eval: tuple[dict[str, Any], ...]  # per evaluation length: ``LengthEval.summary()``


def columns(result: "PhenomenonResult") -> tuple[Column, ...]:
    """Per (encoding, K): the mean accuracy over seeds at every evaluation length."""
    return (
        Column("encoding", lambda key: key[0], "<8"),
        Column("K", lambda key: key[1], ">2"),
        *length_columns(result.lengths, lambda key, i, L: mean(result.accuracy(*key, L))),
    )


@dataclass
class PhenomenonResult:
    encodings: tuple[str, ...]  # positional encodings, in run order
    offsets: tuple[int, ...]  # target offsets K, in run order
    seeds: tuple[int, ...]  # training seeds, in run order
    evaluation: EvalConfig  # evaluation lengths and sequences per length
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

    def cells(self) -> list[PhenomenonCell]:
        return [
            PhenomenonCell(encoding, offset, run.seed, tuple(row.summary() for row in run.evals))
            for (encoding, offset), runs in self.runs.items()
            for run in runs
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "config": config(
                encodings=self.encodings,
                offsets=self.offsets,
                seeds=self.seeds,
                spec=next(iter(self.specs.values())),
                eval=self.evaluation,
            ),
            "cells": to_json(self.cells()),
        }

    def table(self) -> str:
        """Mean accuracy over seeds per (encoding, K) and length."""
        title = f"accuracy, mean over {len(self.seeds)} seeds (training lengths up to {self.max_len})"
        keys = [(encoding, offset) for encoding in self.encodings for offset in self.offsets]
        return text_table(title, columns(self), keys)


def run_phenomenon(
    ctx: Context,
    cache: Cache | None,
    offsets: Sequence[int] = (1, 2, 3),
    encodings: Sequence[str] = ("rope", "ape"),
    base: RunSpec | None = None,
) -> PhenomenonResult:
    """Every (encoding, K) of the grid at ``ctx``'s seeds, steps and evaluation. ``base``: the spec whose encoding
    and K each grid cell replaces (default ``paper_spec(ctx)``: the paper's point; a robustness setting passes its
    own, e.g. d = 32, see ``lengthgen.experiments.robustness``). Each cell's spec is put under ``ctx.universe``
    again once its encoding is set, so that a reading that changes APE specs alone reaches the APE cells."""
    base = base if base is not None else paper_spec(ctx)
    specs = {
        (encoding, offset): apply_universe(
            ctx.universe, base.replace(model={"encoding": encoding}, task={"offset": offset})
        )
        for encoding in encodings
        for offset in offsets
    }
    runs = train_grid(ctx, cache, specs)
    return PhenomenonResult(tuple(encodings), tuple(offsets), ctx.seeds, ctx.evaluation, specs, runs)
