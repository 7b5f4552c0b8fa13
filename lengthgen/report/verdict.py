"""The verdict of a claim test, from pytest's outcome and the test's record (see ``records.VERDICTS``).

Pure functions on plain data, so the rule is tested without running pytest:

- passed -> reproduced, unless the record says it is undecided: ``recorder.inconclusive(reason)``, or
  too few seeds (below) -> inconclusive;
- xfailed -> not reproduced, with the reason built from this run's measured values, but only when the
  record declares its expected failures (``recorder.expect_not_reproduced``), at least one check failed,
  and every failed check is among those named; an xfail of any other kind (a bare ``pytest.xfail``, an
  xfail mark) is failed: an exception must never pass for the finding;
- failed -> failed (a check failed that was not expected to, a declared non-reproduction passed, an
  error: the error's last line), unless every failed check is undecided for too few seeds -> inconclusive;
- a negative control (``kind == "control"``): passed -> discriminates (the claim's checks failed on the
  counterfactual); failed or error -> failed; skipped -> skipped.
- skipped -> skipped, with the reason.

Too few seeds: the run used fewer seeds than the paper's protocol (``scale["seeds"] <
scale["paper_seeds"]``, e.g. ``--seeds 0-1``) and a check compares a mean over per-seed values whose 95%
t-interval contains the threshold, or has no interval (one value). Such a check would go either way
with the paper's seeds. With the paper's seed count (or more) the catalogue's threshold on the mean is
the protocol, so a close call is still a verdict (the page marks it "close").
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

OUTCOMES = ("passed", "failed", "skipped", "xfailed", "error")


def interval_contains(ci95: Sequence[float] | None, op: str, threshold: Any) -> bool:
    """Whether the threshold (either bound of an "in" range) lies within the 95% interval."""
    if ci95 is None:
        return False
    low, high = float(ci95[0]), float(ci95[1])
    points = [threshold[0], threshold[1]] if op == "in" else [threshold]
    return any(low <= float(p) <= high for p in points)


def is_close(check: Mapping[str, Any]) -> bool:
    """A mean over several values whose 95% interval contains the threshold (the page marks it)."""
    return check.get("reduce") == "mean" and interval_contains(check.get("ci95"), check["op"], check["threshold"])


def too_few_seeds(scale: Mapping[str, Any]) -> tuple[int, int] | None:
    """``(seeds, paper_seeds)`` when the run used fewer seeds than the paper's protocol, else None."""
    seeds, paper = scale.get("seeds"), scale.get("paper_seeds")
    if isinstance(seeds, int) and isinstance(paper, int) and 0 < seeds < paper:
        return seeds, paper
    return None


def undecided(check: Mapping[str, Any], scale: Mapping[str, Any]) -> bool:
    """A check that too few seeds leave undecided (see the module docstring)."""
    if too_few_seeds(scale) is None or check.get("reduce") != "mean" or not check.get("values"):
        return False
    ci = check.get("ci95")
    if ci is None or not all(math.isfinite(float(v)) for v in ci):
        return True
    return interval_contains(ci, check["op"], check["threshold"])


def _seed_reason(record: Mapping[str, Any], checks: Sequence[Mapping[str, Any]]) -> str:
    seeds, paper = too_few_seeds(record.get("scale", {})) or (0, 0)
    check = checks[0]
    ci = check.get("ci95")
    where = f"95% interval [{ci[0]:.4g}, {ci[1]:.4g}]" if ci else "no interval from one seed"
    more = f" (and {len(checks) - 1} more)" if len(checks) > 1 else ""
    return (f"too few seeds to decide: {seeds} of the paper's {paper}; {check['name']}: mean {check['value']:.4g}, "
            f"{where}, threshold {check['op']} {check['threshold']}{more}")


def expected_failure(record: Mapping[str, Any], reason: str | None) -> tuple[str, str | None]:
    """An xfailed test: not reproduced only if it failed through exactly its declared checks."""
    checks = record.get("checks", [])
    failed = [c for c in checks if not c["passed"]]
    if not record.get("expected_failures"):
        return "failed", f"xfail without declared expected failures (an exception is not a finding): {reason}"
    if not failed:
        return "failed", f"xfail with no failed check: {reason}"
    stray = [c["name"] for c in failed if not c.get("expected_to_fail")]
    if stray:
        return "failed", f"failed checks outside the declared expected failures: {'; '.join(stray)}"
    return "not reproduced", reason


def decide(record: Mapping[str, Any], outcome: str, reason: str | None = None) -> tuple[str, str | None]:
    """``(verdict, reason)`` for a record (``ClaimRecord.to_dict()``) and pytest's ``outcome``.

    ``reason``: the xfail reason, the skip reason or the failure message, as pytest gives it.
    """
    if outcome not in OUTCOMES:
        raise ValueError(f"unknown test outcome {outcome!r}; expected one of {', '.join(OUTCOMES)}")
    scale = record.get("scale", {})
    checks = record.get("checks", [])
    if outcome == "skipped":
        return "skipped", reason or "skipped"
    if record.get("kind") == "control":
        if outcome == "passed":
            failed = [c for c in checks if not c["passed"]]
            return "discriminates", f"{len(failed)} of {len(checks)} checks fail on the counterfactual"
        return "failed", reason
    if outcome == "xfailed":
        return expected_failure(record, reason)
    if outcome == "passed":
        if record.get("inconclusive_reason"):
            return "inconclusive", record["inconclusive_reason"]
        open_checks = [c for c in checks if undecided(c, scale)]
        if open_checks:
            return "inconclusive", _seed_reason(record, open_checks)
        return "reproduced", None
    failed = [c for c in checks if not c["passed"]]
    if outcome == "failed" and failed and all(undecided(c, scale) for c in failed):
        return "inconclusive", _seed_reason(record, failed)
    return "failed", reason
