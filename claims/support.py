"""What claim modules share, as a plain module (nothing is imported from a conftest).

- ``memo(key, compute)``: an experiment result computed once per process (models come from the cache,
  one lock per model, so under xdist a model is trained once per run).
- ``judge(claim, scale, measure, check, paper_seeds)``: the one way a claim test measures and records its
  checks. ``measure(scale)`` returns the experiment result at ``scale``'s seeds (``scale.seed_list``);
  ``check(claim, result)`` records every check on it (a pure function of the result, so the negative
  control calls the same function on a counterfactual).
"""

from __future__ import annotations

from typing import Any, Callable

_MEMO: dict[Any, Any] = {}


def memo(key: Any, compute: Callable[[], Any]) -> Any:
    """``compute()`` once per process for ``key`` (experiments shared by several claim tests)."""
    if key not in _MEMO:
        _MEMO[key] = compute()
    return _MEMO[key]


def judge(claim, scale, measure: Callable[[Any], Any], check: Callable[[Any, Any], None], paper_seeds: int) -> Any:
    """Measure at ``scale`` and record ``check(claim, result)``; returns the result (for figures)."""
    claim.set_scale(**scale.describe(paper_seeds))
    result = measure(scale)
    check(claim, result)
    return result
