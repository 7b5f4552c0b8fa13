"""The memo of measured results: an experiment result computed once per process and scale (models come from the
cache, one lock per model, so under xdist a model is trained once per run).

A result depends on more than its own key: the seeds, steps and evaluation it is measured at, and the multiverse
universe its specs are built under. The claim's :class:`~lengthgen.scale.Scale` holds all of them (its
``universe`` among its fields; ``Scale.context`` hands them to the experiment), and every memo key holds the
scale (:class:`MemoKey`): a call site names only what it measures (``memo(("C4",), scale, compute)``), so a
result measured under one reading or at one scale is never served under another. The
``--lengthgen-until-decided`` stopping rule is no part of the key: it decides which seeds each look measures, and
those seeds are the scale's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from lengthgen.scale import Scale

_MEMO: dict["MemoKey", Any] = {}


@dataclass(frozen=True)
class MemoKey:
    """A memo entry's key: the scale a result is measured at and what is measured there."""

    scale: Scale  # seeds, steps, sequences, lengths and the multiverse universe (see the module docstring)
    key: Any  # what is measured, e.g. ("pinning", "ape"): hashable

    def __post_init__(self) -> None:
        if not isinstance(self.scale, Scale):
            raise ValueError(f"a memo key needs a Scale, not {self.scale!r}")


def memo(key: Any, scale: Scale, compute: Callable[[], Any]) -> Any:
    """``compute()`` once per process for ``key`` at ``scale`` (experiments shared by several claim tests)."""
    entry = MemoKey(scale, key)
    if entry not in _MEMO:
        _MEMO[entry] = compute()
    return _MEMO[entry]
