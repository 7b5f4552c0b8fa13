"""The scale a claim runs at: the paper's (default) or a reduced ``quick`` scale that still shows it.

Quick scale keeps the paper's seeds (the threshold is on the mean over seeds, and fewer seeds make the
mean too noisy to compare with the paper's thresholds) but trains 1000 steps instead of 4000, scores
1024 sequences instead of 4096, and stops at L = 40: at L = 48, K = 1, the accuracy of the shorter
training sits just under C1's 0.85 (the measured accuracies per step count are in docs/protocol.md's
"Quick scale" entry).

Experiments with their own quick recipe say so where they run (``run_scale`` in ``claims/``). The two-layer
transformer (C12, C13, ``claims/two_layer.py``) trains 100 steps and scores 256 sequences at quick scale.
Every position of its sequences is scored, so 256 sequences still give its per-length accuracy at L = 20
(positions 16-19) 1024 predictions beyond the training range, as many as a one-layer head's accuracy per
length gets here (one prediction per sequence). The transformer's evaluation on 1024 sequences is the
costliest part of the fast check after training; scoring 256 changes no verdict, selected offset or carrier
fraction (docs/protocol.md).

A scale also names the multiverse universe a claim's specs are built under (``universe``: the suite's own
readings unless the multiverse runs the claim under another), and builds the experiments' context for a claim's
seed count (:meth:`Scale.context`), so a claim's ``measure(scale, cache)`` passes everything its experiment needs
explicitly.
"""

from __future__ import annotations

from dataclasses import dataclass

from lengthgen.config import PAPER_EVAL_LENGTHS, EvalConfig, _require
from lengthgen.context import Context
from lengthgen.readings import PAPER as PAPER_UNIVERSE
from lengthgen.readings import Universe


@dataclass(frozen=True)
class Scale:
    name: str  # "paper" or "quick"
    seeds: tuple[int, ...] | None  # explicit seeds (--lengthgen-seeds), or None for the claim's own paper count 0..n-1
    max_seeds: int | None  # cap on the number of seeds, or None
    steps: int  # training steps per model
    sequences: int  # evaluation sequences per length
    lengths: tuple[int, ...]  # evaluation lengths
    universe: Universe = PAPER_UNIVERSE  # the multiverse universe specs are built under (the suite's readings)

    def __post_init__(self) -> None:
        _require(self.steps >= 1, f"steps={self.steps} must be at least 1")
        _require(self.sequences >= 1, f"sequences={self.sequences} must be at least 1")

    def seed_list(self, paper_count: int) -> tuple[int, ...]:
        """The seeds a claim uses: explicit ones, else 0..n-1 for the paper's n (capped if max_seeds)."""
        if self.seeds is not None:
            return self.seeds
        count = paper_count if self.max_seeds is None else min(paper_count, self.max_seeds)
        return tuple(range(count))

    def evaluation(self, lengths: tuple[int, ...] | None = None) -> EvalConfig:
        return EvalConfig(lengths=self.lengths if lengths is None else lengths, sequences=self.sequences)

    def context(self, paper_count: int, lengths: tuple[int, ...] | None = None) -> Context:
        """The experiments' context of a claim whose paper scale uses ``paper_count`` seeds: its seeds
        (:meth:`seed_list`), this scale's steps, its evaluation (at ``lengths``, default the scale's) and universe."""
        return Context(self.seed_list(paper_count), self.steps, self.evaluation(lengths), self.universe)

    def describe(self, paper_count: int) -> dict:
        """The record's scale block for a claim whose paper scale uses ``paper_count`` seeds."""
        seeds = self.seed_list(paper_count)
        return {
            "name": self.name,
            "seeds": len(seeds),
            "seed_list": list(seeds),
            "paper_seeds": paper_count,
            "steps": self.steps,
            "sequences": self.sequences,
            "lengths": list(self.lengths),
        }


PAPER = Scale("paper", seeds=None, max_seeds=None, steps=4000, sequences=4096, lengths=PAPER_EVAL_LENGTHS)
QUICK = Scale("quick", seeds=None, max_seeds=None, steps=1000, sequences=1024, lengths=(12, 16, 20, 24, 32, 40))
SCALES = {"paper": PAPER, "quick": QUICK}
