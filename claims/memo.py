"""The memo of measured results: an experiment result computed once per runtime and scale (models come from the
cache, one lock per model, so under xdist a model is trained once per run). The results are held by the run's
:class:`~lengthgen.runtime.Runtime` (``Runtime.remember``; the plugin's runtime lives for the session, every xdist
worker its own), which a claim reaches through its model cache (``cache.runtime``); this module says what a key is.

A result depends on more than its own key: the seeds, steps and evaluation it is measured at, and the multiverse
universe its specs are built under. The claim's :class:`~lengthgen.scale.Scale` holds all of them (its
``universe`` among its fields; ``Scale.context`` hands them to the experiment), and every memo key holds the
scale (:class:`MemoKey`): a call site names only what it measures (``memo(cache.runtime, ("C4",), scale, compute)``),
so a result measured under one reading or at one scale is never served under another. The
``--lengthgen-until-decided`` stopping rule is no part of the key: it decides which seeds each look measures, and
those seeds are the scale's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from lengthgen.runtime import Runtime
from lengthgen.scale import Scale


@dataclass(frozen=True)
class MemoKey:
    """A memo entry's key: the scale a result is measured at and what is measured there."""

    scale: Scale  # seeds, steps, sequences, lengths and the multiverse universe (see the module docstring)
    key: Any  # what is measured, e.g. ("pinning", "ape"): hashable

    def __post_init__(self) -> None:
        if not isinstance(self.scale, Scale):
            raise ValueError(f"a memo key needs a Scale, not {self.scale!r}")


def memo(runtime: Runtime, key: Any, scale: Scale, compute: Callable[[], Any]) -> Any:
    """``compute()`` once in ``runtime``'s life for ``key`` at ``scale`` (experiments shared by several claim
    tests)."""
    return runtime.remember(MemoKey(scale, key), compute)
