"""What claim modules share, as a plain module (nothing is imported from a conftest).

- ``memo(key, compute)``: an experiment result computed once per process and multiverse universe (models
  come from the cache, one lock per model, so under xdist a model is trained once per run).
- ``judge(claim, scale, measure, check, paper_seeds)``: the one way a claim test measures and records its
  checks. ``measure(scale)`` returns the experiment result at ``scale``'s seeds (``scale.seed_list``);
  ``check(claim, result)`` records every check on it (a pure function of the result, so the negative
  control calls the same function on a counterfactual).
- ``refute(control, block, why, check, counterfactual, *args, **kwargs)``: the one way a negative control
  records its scale block, runs the claim's own ``check`` on its counterfactual and requires a failure.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

_MEMO: dict[Any, Any] = {}


def memo_key(key: Any) -> Any:
    """The memo's key for ``key``: it includes the active multiverse universe
    (``lengthgen.experiments.multiverse``), so a result measured under one reading is never served under
    another; ``key`` itself under the default universe."""
    from lengthgen.experiments.multiverse import active_universe

    universe = active_universe()
    return key if universe.is_default else ("universe", universe.name, key)


def memo(key: Any, compute: Callable[[], Any]) -> Any:
    """``compute()`` once per process for ``key`` and the active universe (experiments shared by several
    claim tests)."""
    key = memo_key(key)
    if key not in _MEMO:
        _MEMO[key] = compute()
    return _MEMO[key]


def judge(claim, scale, measure: Callable[[Any], Any], check: Callable[[Any, Any], None], paper_seeds: int) -> Any:
    """Measure at ``scale`` and record ``check(claim, result)``; returns the result (for figures).

    Under ``--lengthgen-until-decided[=MAX]`` (``lengthgen.sequential.current_plan()``) this is the stopping rule's
    loop: the looks are planned before the first one (``Plan.schedule``: the claim's seeds, then 4 more at a
    time up to MAX), every interval is taken at the level 1 - 0.05/looks, and while a deciding check is close
    (``lengthgen.report.verdict.close_checks``) the claim is measured again with the next seeds
    (``dataclasses.replace(scale, seeds=...)``: the models of the earlier seeds come from the cache) and its
    checks are recorded afresh. The record's ``sequential`` block holds the plan and the path (seeds and
    close intervals at each look); its scale is that of the last look.
    """
    from lengthgen.sequential import current_plan

    plan = current_plan()
    claim.set_scale(**scale.describe(paper_seeds))
    if plan is None or not scale.seed_list(paper_seeds):  # an exact computation has no seeds to add
        result = measure(scale)
        check(claim, result)
        return result
    return _until_decided(claim, scale, measure, check, paper_seeds, plan)


def refute(control, block: dict[str, Any], why: str, check: Callable[..., None], counterfactual: Any,
           *args: Any, **kwargs: Any) -> list:
    """The negative control's body: record the scale ``block`` (``scale.describe(PAPER_SEEDS)``, or an exact
    computation's own block), feed ``counterfactual`` (and ``args``/``kwargs``) to the claim's ``check`` with
    ``why`` (what replaced the real result, and why the checks must fail), and require that some check fails
    (``ControlRecorder.verify``). Returns the failed checks, for a control that asks more of them."""
    control.set_scale(**block)
    failed = control.run(why, check, counterfactual, *args, **kwargs)
    control.verify()
    return failed


def _until_decided(claim, scale, measure, check, paper_seeds: int, plan) -> Any:
    from lengthgen.report.verdict import close_checks, deciding_check

    record = claim.record
    first = tuple(scale.seed_list(paper_seeds))
    looks = plan.schedule(len(first))
    claim.decision_level = plan.level(len(first))
    before = (list(record.checks), dict(record.measured), list(record.headlines), list(record.notes),
              list(record.choices), dict(record.figures))
    path: list[dict[str, Any]] = []
    for n in looks:
        seeds = first + tuple(range(max(first) + 1, max(first) + 1 + n - len(first)))
        at = scale if n == len(first) else dataclasses.replace(scale, seeds=seeds)
        record.checks, record.measured, record.headlines = list(before[0]), dict(before[1]), list(before[2])
        record.notes, record.choices, record.figures = list(before[3]), list(before[4]), dict(before[5])
        claim.set_scale(**at.describe(paper_seeds))
        result = measure(at)
        check(claim, result)
        data = record.to_dict()
        close = close_checks(data)
        decider = deciding_check(data)
        path.append({"seeds": n, "close": bool(close),
                     "close_checks": [_interval_of(c) for c in close],
                     "deciding": _interval_of(decider) if decider is not None else None})
        if not close:
            break
    if len(path) > 1 and record.expected_failures is not None:
        record.expected_failures["strict"] = False  # more seeds than the declaration's: a pass is a finding
    record.sequential = {**plan.describe(len(first)), "path": path, "seeds_final": path[-1]["seeds"],
                         "stopped": "decided" if not path[-1]["close"] else
                         ("at the maximum" if path[-1]["seeds"] >= plan.max_seeds else "no further look")}
    return result


def _interval_of(check) -> dict[str, Any]:
    """A check at one look: its statistic and the interval that decides whether it is close."""
    return {"name": check["name"], "value": check["value"], "op": check["op"], "threshold": check["threshold"],
            "interval": check.get("decision_ci") or check.get("ci95"), "ci95": check.get("ci95")}
