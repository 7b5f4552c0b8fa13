"""What negative controls share, as a plain module (nothing is imported from a conftest).

``refute(control, block, why, check, counterfactual, *args, **kwargs)``: the one way a negative control
records its scale block, runs the claim's own ``check`` on its counterfactual and requires a failure. (A claim
test runs through ``claims.run.run_claim``; measured results are memoised by ``claims.memo.memo``.)
"""

from __future__ import annotations

from typing import Any, Callable


def refute(
    control, block: dict[str, Any], why: str, check: Callable[..., None], counterfactual: Any, *args: Any, **kwargs: Any
) -> list:
    """The negative control's body: record the scale ``block`` (``scale.describe(PAPER_SEEDS)``, or an exact
    computation's own block), feed ``counterfactual`` (and ``args``/``kwargs``) to the claim's ``check`` with
    ``why`` (what replaced the real result, and why the checks must fail), and require that some check fails
    (``ControlRecorder.verify``). Returns the failed checks, for a control that asks more of them."""
    control.set_scale(**block)
    failed = control.run(why, check, counterfactual, *args, **kwargs)
    control.verify()
    return failed
