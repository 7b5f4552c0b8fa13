"""The memo of measured results: an experiment result computed once per process and context (models come from
the cache, one lock per model, so under xdist a model is trained once per run).

A result depends on more than its own key: the multiverse universe the specs are built under, the
``--lengthgen-until-decided`` plan in force, and the scale it is measured at. Those three make ONE explicit
:class:`Context`, built in one place (:func:`context`), and every memo key holds it (:class:`MemoKey`): a call
site names only what it measures (``memo(("C4",), scale, compute)``), so a result measured under one reading,
plan or scale is never served under another.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from lengthgen.experiments.multiverse import active_universe
from lengthgen.scale import Scale
from lengthgen.sequential import Plan, current_plan

_MEMO: dict["MemoKey", Any] = {}


@dataclass(frozen=True)
class Context:
    """What every measured result depends on besides its own key."""

    universe: str  # the multiverse universe the specs are built under ("paper": the suite's readings)
    plan: Plan | None  # the --lengthgen-until-decided stopping rule in force (None: one look at the claim's seeds)
    scale: Scale  # the scale measured at: seeds, steps, sequences, lengths

    def __post_init__(self) -> None:
        if not isinstance(self.scale, Scale):
            raise ValueError(f"a memo context needs a Scale, not {self.scale!r}")


@dataclass(frozen=True)
class MemoKey:
    """A memo entry's key: the context and what is measured in it."""

    context: Context  # universe, plan and scale (see Context)
    key: Any  # what is measured, e.g. ("pinning", "ape"): hashable


def context(scale: Scale) -> Context:
    """The context of a result measured now at ``scale``: the active universe, the process's plan, ``scale``."""
    return Context(active_universe().name, current_plan(), scale)


def memo_key(key: Any, scale: Scale) -> MemoKey:
    """The memo's key for ``key`` measured at ``scale`` in the current context."""
    return MemoKey(context(scale), key)


def memo(key: Any, scale: Scale, compute: Callable[[], Any]) -> Any:
    """``compute()`` once per process for ``key`` at ``scale`` in the current context (experiments shared by
    several claim tests)."""
    entry = memo_key(key, scale)
    if entry not in _MEMO:
        _MEMO[entry] = compute()
    return _MEMO[entry]
