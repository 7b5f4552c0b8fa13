"""Probes of a recorded training trajectory (C16): when a quantity emerges and whether it then plateaus.

Pure functions of a sequence of recorded steps and the values recorded there (e.g. the key carrier
fraction every ``record_every`` steps); the *final* value is the last record.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence


def _check(steps: Sequence[int], values: Sequence[float]) -> None:
    if len(steps) != len(values) or not steps:
        raise ValueError(f"need matching, non-empty steps and values, got {len(steps)} and {len(values)}")
    if any(b <= a for a, b in itertools.pairwise(steps)):
        raise ValueError(f"steps must increase strictly, got {list(steps)}")
    if values[-1] <= 0:
        raise ValueError(f"the final value must be positive, got {values[-1]}")


def emergence_step(steps: Sequence[int], values: Sequence[float], fraction: float = 0.9) -> int:
    """The first recorded step at which the value reaches ``fraction`` of its final value."""
    _check(steps, values)
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction={fraction} must lie in (0, 1]")
    target = fraction * values[-1]
    return next(step for step, value in zip(steps, values) if value >= target)


def plateau_deviation(steps: Sequence[int], values: Sequence[float], after: int) -> float:
    """max over records at steps >= ``after`` of |value - final| / final: how far from its final value it
    strays once ``after`` is passed (0 for a flat plateau)."""
    _check(steps, values)
    final = values[-1]
    tail = [value for step, value in zip(steps, values) if step >= after]
    if not tail:
        raise ValueError(f"no record at or after step {after} (last record at {steps[-1]})")
    return max(abs(value - final) / final for value in tail)
