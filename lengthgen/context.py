"""What every experiment takes from its caller: one :class:`Context`, passed explicitly.

An experiment is a function ``run_x(ctx, cache, <its own arguments>)`` (``lengthgen/experiments/``). The
context holds what every experiment needs and none decides for itself: the seeds, the training steps, the
evaluation, and the multiverse universe its specs are built under (``lengthgen.readings``; :data:`PAPER`, the
suite's own readings, by default). An experiment's own arguments (its offsets, encodings, widths, ...) are its
function's, and the model cache is passed beside the context. A claim builds its context from its scale
(``Scale.context``), the command line from its options, a test by hand.

Plain data (no torch): nothing here trains or builds a spec; ``lengthgen.experiments.common.paper_spec`` builds the
specs under ``ctx.universe``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Sequence

from lengthgen.config import EvalConfig, _require
from lengthgen.readings import PAPER, Universe

__all__ = ["Context"]


def _is_seed(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


@dataclass(frozen=True)
class Context:
    """What an experiment needs from whoever calls it (a claim's measure, the command line, a test)."""

    seeds: tuple[int, ...]  # training seeds, in run order: one model per seed and configuration (() trains none)
    steps: int = 4000  # training steps per model (the paper's 4000)
    evaluation: EvalConfig = EvalConfig()  # evaluation lengths and sequences per length (the paper's)
    universe: Universe = PAPER  # the multiverse universe every spec is built under (PAPER: the suite's readings)
    progress: bool | None = None  # a progress bar while models train: None where stderr is a terminal, False never

    def __post_init__(self) -> None:
        _require(not isinstance(self.seeds, (str, bytes)), f"seeds={self.seeds!r} must be a sequence of seeds")
        object.__setattr__(self, "seeds", tuple(self.seeds))
        for seed in self.seeds:
            _require(_is_seed(seed), f"seed {seed!r} must be a whole number >= 0")
        _require(
            isinstance(self.steps, int) and not isinstance(self.steps, bool) and self.steps >= 1,
            f"steps={self.steps!r} must be at least 1",
        )
        _require(isinstance(self.evaluation, EvalConfig), f"evaluation={self.evaluation!r} must be an EvalConfig")
        _require(isinstance(self.universe, Universe), f"universe={self.universe!r} must be a readings.Universe")

    def replace(self, **changes: Any) -> "Context":
        """A copy with ``changes`` (fields of this class), e.g. ``ctx.replace(seeds=(0, 1))``."""
        return dataclasses.replace(self, **changes)

    def at_lengths(self, lengths: Sequence[int]) -> "Context":
        """A copy evaluating at ``lengths`` (the same sequences per length)."""
        return self.replace(evaluation=dataclasses.replace(self.evaluation, lengths=tuple(lengths)))
