"""The verdict of a claim test, from pytest's outcome and the test's record (see ``records.VERDICTS``).

Pure functions on plain data, so the rule is tested without running pytest:

- passed -> reproduced, unless the record says it is undecided: ``recorder.inconclusive(reason)``, or
  too few seeds (below) -> inconclusive;
- xfailed -> not reproduced, with the reason built from this run's measured values, but only when the
  record declares its expected failures (``recorder.expect_not_reproduced``), at least one check failed,
  and every failed check is among those named; an xfail of any other kind (a bare ``pytest.xfail``, an
  xfail mark) is failed: an exception must never pass for the finding;
- failed (an AssertionError), unless every failed check is undecided for too few seeds -> inconclusive:
  by what ``verify()`` concluded (``record["verified"]``): some undeclared check failed -> not reproduced
  (undeclared), a finding, with where it ran and the failing checks' measured values; a strict declared
  non-reproduction passed every check -> unexpectedly reproduced; no conclusion (an assertion outside the
  recorder) -> failed, with pytest's message;
- error (an exception other than AssertionError, or a failed setup) -> error: the test broke;
- a negative control (``kind == "control"``): passed -> discriminates (the claim's checks failed on the
  counterfactual); failed -> failed; error -> error; skipped -> skipped.
- skipped -> skipped, with the reason.

Too few seeds: the run used fewer seeds than the paper's protocol (``scale["seeds"] <
scale["paper_seeds"]``, e.g. ``--lengthgen-seeds 0-1``) and a check compares a mean over per-seed values whose 95%
t-interval contains the threshold, or has no interval (one value). Such a check would go either way
with the paper's seeds. With the paper's seed count (or more) the catalogue's threshold on the mean is
the protocol, so a close call is still a verdict, labelled "reproduced (close)" / "not reproduced (close)". A
"not reproduced (undeclared)", "unexpectedly reproduced" or "failed" record keeps its label, but its close
checks are listed all the same (``close_checks``: a failure through close checks only, e.g. a check that more
seeds pushed just past its threshold; an error is never close).

Close calls (``close_checks``, ``label``):

- A check *has an interval* when its statistic is a mean over seeds (``reduce == "mean"``: the t-interval)
  or a statistic of the seed-mean curve (``interval == "bootstrap"``: the seed bootstrap), and it is an
  inequality or an "in" range. Every other check has none and is never close, by construction: an exact
  computation (``interval == "exact"``: C2, C15, no seeds); a check that every seed must pass, or a min or
  max over seeds (``reduce`` all / min / max: more seeds can only find a worse seed, never rescue one,
  so the interval of their mean says nothing about them); an identity ``==`` / ``!=`` (a discrete outcome
  such as a selected offset); a single number.
- A check is *close* when it has an interval and that interval contains its threshold (either bound of
  "in"). The interval is the check's ``decision_ci`` when the run set one (``--lengthgen-until-decided``: level
  1 - 0.05/K, see ``lengthgen.sequential``), else its 95% ``ci95``.
- The *deciding checks* are those whose outcome alone could change whether the claim holds: when every
  check passed, all of them (any one failing would fail the claim); when some failed, the failed ones,
  and a failed check that has no interval or a clear one decides the failure by itself. So a record is
  close when a passing claim has a close check, or when every failed check of a failing claim is close
  (a declared expected failure included: "not reproduced (close)").
- The *deciding check* (one, for the table and the overview): the failed check furthest below its
  threshold in standard errors (one without an interval first), else the close check nearest its
  threshold in standard errors, else the passing check nearest in standard errors, else the passing
  inequality nearest relative to its threshold.
- *Seeds to decide* a close check: ``lengthgen.sequential.seeds_to_decide`` at the decision level, from
  the check's observed spread and distance to the threshold.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from lengthgen.records import REASON_CHECKS, Check, suite_reading_note
from lengthgen.sequential import seeds_to_decide, standard_error

OUTCOMES = ("passed", "failed", "skipped", "xfailed", "error")


def interval_contains(ci95: Sequence[float] | None, op: str, threshold: Any) -> bool:
    """Whether the threshold (either bound of an "in" range) lies within the 95% interval."""
    if ci95 is None:
        return False
    low, high = float(ci95[0]), float(ci95[1])
    points = [threshold[0], threshold[1]] if op == "in" else [threshold]
    return any(low <= float(p) <= high for p in points)


INTERVAL_OPS = (">=", ">", "<=", "<", "in")  # comparisons whose check can be close (not == / !=)
CLOSE_LABELLED = ("reproduced", "not reproduced")  # verdicts that carry " (close)"; a close undeclared
# non-reproduction keeps its label (the claim's close checks are still listed: a check that more seeds pushed
# just past its threshold)


def interval_kind(check: Mapping[str, Any]) -> str | None:
    """ "t", "bootstrap", "exact" or None; a record of an earlier version (no ``interval``) with a mean
    over seeds and an interval is "t"."""
    kind = check.get("interval")
    if kind is None and check.get("reduce") == "mean" and check.get("ci95"):
        return "t"
    return kind


def has_interval(check: Mapping[str, Any]) -> bool:
    """Whether the check can be close (see the module docstring)."""
    kind = interval_kind(check)
    if check.get("op") not in INTERVAL_OPS:
        return False
    if kind == "t":
        return check.get("reduce") == "mean"
    return kind == "bootstrap"


def decision_interval(check: Mapping[str, Any]) -> Sequence[float] | None:
    return check.get("decision_ci") or check.get("ci95")


def is_close(check: Mapping[str, Any]) -> bool:
    """A check with an interval (the decision level's, else 95%) that contains its threshold."""
    return has_interval(check) and interval_contains(decision_interval(check), check["op"], check["threshold"])


def decision_level(record: Mapping[str, Any]) -> float:
    """The level of the checks' deciding intervals: the --lengthgen-until-decided plan's, else 0.95."""
    plan = record.get("sequential") or {}
    return float(plan.get("level", 0.95))


def _seeds(check: Mapping[str, Any], record: Mapping[str, Any]) -> int:
    if interval_kind(check) == "t" and check.get("values"):
        return len(check["values"])
    seeds = (record.get("scale") or {}).get("seeds")
    return seeds if isinstance(seeds, int) and seeds > 0 else 0


def distance(check: Mapping[str, Any]) -> float | None:
    """The statistic's signed distance to its threshold, positive on the passing side (nearest bound of "in")."""
    value, op, threshold = check.get("value"), check["op"], check["threshold"]
    if value is None or not math.isfinite(float(value)):
        return None
    value = float(value)
    if op in (">=", ">"):
        return value - float(threshold)
    if op in ("<=", "<"):
        return float(threshold) - value
    if op == "in":
        return min(value - float(threshold[0]), float(threshold[1]) - value)
    return None


def _signed(check: Mapping[str, Any], point: float) -> float:
    """``distance`` of a value ``point`` in place of the statistic."""
    return distance({**check, "value": point})  # type: ignore[return-value]


def standard_margin(check: Mapping[str, Any], record: Mapping[str, Any] = {}) -> tuple[float, float, float] | None:
    """``(margin, low, high)``: the distance to the threshold in standard errors (positive: the check holds)
    and the check's deciding interval (``decision_interval``: 95%, or the --lengthgen-until-decided level) in the same
    units, so that the interval contains 0 exactly when the check is close; None for a check without an
    interval. The standard error comes from the 95% interval. No spread at all gives an infinite margin."""
    if not has_interval(check) or not check.get("ci95"):
        return None
    gap = distance(check)
    se = standard_error(check["ci95"], _seeds(check, record), interval_kind(check) or "")
    if gap is None or se is None:
        return None
    shown = decision_interval(check)
    ends = sorted((_signed(check, float(shown[0])), _signed(check, float(shown[1]))))
    if check["op"] == "in":  # the interval's distance to the nearer bound, at the interval's own ends
        ends = sorted((min(ends[0], gap), max(ends[1], gap)))
    if se == 0:
        inf = math.copysign(math.inf, gap) if gap else 0.0
        return inf, inf, inf
    return gap / se, ends[0] / se, ends[1] / se


def seeds_to_decide_check(check: Mapping[str, Any], record: Mapping[str, Any]) -> int | None:
    """About how many seeds would put the threshold outside the check's interval at the decision level."""
    level = decision_level(record)
    seeds = _seeds(check, record)
    se = standard_error(decision_interval(check), seeds, interval_kind(check) or "", level)
    gap = distance(check)
    if se is None or gap is None:
        return None
    return seeds_to_decide(abs(gap), se, max(seeds, 1), level)


def close_checks(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The record's close deciding checks (see the module docstring); empty when none is close."""
    checks = record.get("checks") or []
    if record.get("kind") == "control" or not checks or record.get("outcome") in ("error", "skipped"):
        return []  # an error (or a skip) decides by itself, whatever its checks' intervals
    failed = [c for c in checks if not c["passed"]]
    if not failed:
        return [c for c in checks if is_close(c)]
    return failed if all(is_close(c) for c in failed) else []


def closeness(record: Mapping[str, Any]) -> dict[str, Any]:
    """``{"close", "close_checks", "seeds_to_decide"}``: the record's fields, computed from its checks."""
    close = close_checks(record)
    return {
        "close": bool(close),
        "close_checks": [c["name"] for c in close],
        "seeds_to_decide": {c["name"]: seeds_to_decide_check(c, record) for c in close},
    }


def deciding_check(record: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The one check that says most about the verdict (see the module docstring)."""
    checks = record.get("checks") or []
    if not checks:
        return None

    def z(check: Mapping[str, Any]) -> float | None:
        margin = standard_margin(check, record)
        return None if margin is None else margin[0]

    failed = [c for c in checks if not c["passed"]]
    if failed:
        return min(failed, key=lambda c: -math.inf if z(c) is None else z(c))
    close = close_checks(record)
    scored = [c for c in (close or checks) if z(c) is not None]
    if scored:
        return min(scored, key=z)
    margins = [(m, i) for i, c in enumerate(checks) if (m := _relative_margin(c)) is not None]
    return checks[min(margins)[1]] if margins else checks[-1]


def _relative_margin(check: Mapping[str, Any]) -> float | None:
    """How far a passing inequality check is from failing, relative to its threshold (None for ==, !=)."""
    gap, op, threshold = distance(check), check["op"], check["threshold"]
    if gap is None:
        return None
    scale = threshold[1] - threshold[0] if op == "in" else abs(threshold)
    return gap / max(float(scale), 1e-12)


def label(record: Mapping[str, Any]) -> str:
    """The verdict as shown: "reproduced (close)" / "not reproduced (close)" when a deciding check is close."""
    verdict = record.get("verdict") or "unknown"
    return f"{verdict} (close)" if verdict in CLOSE_LABELLED and close_checks(record) else verdict


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
    return (
        f"too few seeds to decide: {seeds} of the paper's {paper}; {check['name']}: mean {check['value']:.4g}, "
        f"{where}, threshold {check['op']} {check['threshold']}{more}"
    )


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
        return ("error" if outcome == "error" else "failed"), reason
    if outcome == "xfailed":
        return expected_failure(record, reason)
    if outcome == "passed":
        if record.get("ruled_out"):
            return "ruled out", record["ruled_out"]
        if record.get("inconclusive_reason"):
            return "inconclusive", record["inconclusive_reason"]
        open_checks = [c for c in checks if undecided(c, scale)]
        if open_checks:
            return "inconclusive", _seed_reason(record, open_checks)
        return "reproduced", None
    if outcome == "error":
        return "error", reason
    failed = [c for c in checks if not c["passed"]]
    if failed and all(undecided(c, scale) for c in failed):
        return "inconclusive", _seed_reason(record, failed)
    verified = record.get("verified")
    if verified == "undeclared ruled out":
        return "not reproduced (undeclared)", f"ruled out, which the declarations do not expect: {record['ruled_out']}"
    if verified == "undeclared failures":
        return "not reproduced (undeclared)", undeclared_reason(record)
    if verified == "unexpected pass":
        return "unexpectedly reproduced", reason
    return "failed", reason


def where_it_ran(record: Mapping[str, Any]) -> str:
    """Where a run stands relative to the catalogue's point: its robustness setting, its multiverse reading,
    its seeds."""
    scale = record.get("scale") or {}
    parts = []
    if record.get("setting"):
        parts.append(f"at the robustness setting {record['setting']}")
    if record.get("reading"):
        parts.append(f"under the reading {record['reading']} (the multiverse)")
    plan = record.get("sequential")
    seeds, paper = scale.get("seeds"), scale.get("paper_seeds")
    if plan:
        parts.append(f"with {plan.get('seeds_final', seeds)} seeds (--lengthgen-until-decided; the paper's {paper})")
    elif isinstance(seeds, int) and isinstance(paper, int) and seeds != paper:
        parts.append(f"with {seeds} seeds (the paper's {paper})")
    elif scale.get("seed_list") and scale["seed_list"] != list(range(len(scale["seed_list"]))):
        parts.append(f"with seeds {text_seeds(scale['seed_list'])} (not the paper's 0..{len(scale['seed_list']) - 1})")
    if scale.get("name") and scale["name"] != "paper":
        parts.append(f"at {scale['name']} scale")
    return ", ".join(parts) if parts else "at the catalogue's point"


def text_seeds(seeds: Sequence[int]) -> str:
    seeds = list(seeds)
    if seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{seeds[0]}..{seeds[-1]}"
    return ", ".join(str(s) for s in seeds)


def undeclared_reason(record: Mapping[str, Any]) -> str:
    """A not-reproduced (undeclared) verdict's reason: where it ran, and the failing checks that were not
    declared with this run's measured values (``records.REASON_CHECKS`` of them spelled out)."""
    checks = [Check.from_dict(c) for c in record.get("checks") or []]
    failed = [c for c in checks if not c.passed]
    stray = [c for c in failed if not c.expected_to_fail]
    shown = "; ".join(c.describe() for c in stray[:REASON_CHECKS])
    more = f"; and {len(stray) - REASON_CHECKS} more" if len(stray) > REASON_CHECKS else ""
    declared = f"; {len(failed) - len(stray)} declared checks fail as declared" if len(failed) > len(stray) else ""
    return (
        f"{record.get('claim', '?')} not reproduced {where_it_ran(record)}, not declared: {len(stray)} of "
        f"{len(checks)} checks fail: {shown}{more}{declared}; the other {len(checks) - len(failed)} checks "
        f"hold{suite_reading_note(stray)}"
    )
