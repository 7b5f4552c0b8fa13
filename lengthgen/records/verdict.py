"""The verdict of a record, decided once (:func:`decide`), where the record is made (``ClaimRecorder.verify``);
pytest's outcome follows from it: an expected non-reproduction becomes pytest's xfail, a finding or a broken
declaration fails the test, anything else passes (:data:`OUTCOMES`). Pure functions of the record's checks, so
the rule is tested without pytest. A test that breaks before its verdict (an exception, a failed setup, a skip,
an assertion outside the recorder) gets its verdict from the plugin (:func:`broken`).

The rule, for a claim test or a cell:

- a cell whose precondition failed (``InUniverse.ruled_out``) is ``ruled out`` where its declarations expect
  that precondition to fail, else ``not reproduced (undeclared)``: a finding;
- a cell declared ruled out whose preconditions all held: ``not reproduced (undeclared)`` where a check failed,
  else ``unexpectedly reproduced``;
- some check that the declaration does not name failed: ``not reproduced (undeclared)``, a finding (with its
  measured values and where it ran) -- unless the run used fewer seeds than the paper's and every failed check
  is a mean whose interval contains its threshold (or has none): ``inconclusive``;
- every failed check is declared: ``not reproduced`` (pytest's xfail), the reason built from this run's values;
- no check failed, but a strict declaration said some would: ``unexpectedly reproduced``;
- no check failed: ``inconclusive`` where the test says it cannot decide or too few seeds leave a mean undecided,
  else ``reproduced``.

Close calls: a record is close when a passing claim has a close check (every check decides it), or when every
failed check of a failing claim is close (a declared one included: "not reproduced (close)"); an error or a skip
is never close. The deciding check (one, for the tables and the overview): of the failed checks, the one most
seeds fail (a check every seed must pass counts its failing seeds, a mean its seeds on the failing side, a number
without seeds none), ties going to the one furthest from its threshold (one without an interval first, then in
standard errors, then relative to its threshold); else the close check nearest its threshold, else the passing
check nearest in standard errors, else the passing inequality nearest relative to its threshold.

A negative control ``discriminates`` when some check failed on its counterfactual, and ``failed`` when none did.
"""

from __future__ import annotations

import math
from dataclasses import replace
from fnmatch import fnmatchcase
from typing import Sequence

from lengthgen.records.check import Check, contains, fails
from lengthgen.records.record import ClaimRecord
from lengthgen.records.verdicts import BROKEN, DECIDED_ALONE, Verdict

PASS, XFAIL, FAIL = "pass", "xfail", "fail"  # pytest's outcome of a decided test
OUTCOMES = (PASS, XFAIL, FAIL)
REASON_CHECKS = 4  # failing checks whose measured values a reason spells out (the rest are counted)


def matches(name: str, patterns: Sequence[str]) -> bool:
    return any(fnmatchcase(name, p) for p in patterns)


def too_few_seeds(record: ClaimRecord) -> tuple[int, int] | None:
    """``(seeds, paper_seeds)`` when the record ran fewer seeds than the paper's protocol, else None."""
    seeds, paper = record.scale.get("seeds"), record.scale.get("paper_seeds")
    if isinstance(seeds, int) and isinstance(paper, int) and 0 < seeds < paper:
        return seeds, paper
    return None


def undecided(check: Check, record: ClaimRecord) -> bool:
    """A mean over seeds that too few seeds leave undecided: its 95% interval contains the threshold, or it has
    none (one seed)."""
    if too_few_seeds(record) is None or check.reduce != "mean" or not check.values:
        return False
    ci = check.ci95
    if ci is None or not all(math.isfinite(float(v)) for v in ci):
        return True
    return contains(ci, check.op, check.threshold)


def close_checks(record: ClaimRecord, broke: bool = False) -> list[Check]:
    """The record's close deciding checks (module docstring); empty when none is close, for a control, and for a
    test that ``broke`` (an error or a skip decides by itself)."""
    checks = record.checks
    if record.kind == "control" or not checks or broke:
        return []
    failed = [c for c in checks if not c.passed]
    if not failed:
        return [c for c in checks if c.close]
    return failed if all(c.close for c in failed) else []


def deciding_check(record: ClaimRecord) -> Check | None:
    """The one check that says most about the verdict (module docstring)."""
    checks = record.checks
    if not checks:
        return None

    def z(check: Check) -> float | None:
        margin = check.margin
        return None if margin is None else margin[0]

    failed = [c for c in checks if not c.passed]
    if failed:
        return min(failed, key=lambda c: (-failing_seeds(c), -math.inf if z(c) is None else z(c), -beyond(c)))
    close = close_checks(record)
    scored = [c for c in (close or checks) if z(c) is not None]
    if scored:
        return min(scored, key=z)
    margins = [(m, i) for i, c in enumerate(checks) if (m := c.relative_margin) is not None]
    return checks[min(margins)[1]] if margins else checks[-1]


def failing_seeds(check: Check) -> int:
    """How many seeds fail ``check``: its counted failing seeds (every seed must pass), a mean's seeds on the
    failing side of its threshold, 0 for a number without seeds."""
    if check.failing is not None:
        return check.failing
    if check.reduce == "mean" and check.values:
        return sum(1 for v in check.values if fails(v, check.op, check.threshold))
    return 0


def beyond(check: Check) -> float:
    """How far a failed check's statistic lies from its threshold, relative to it: -relative margin for an
    inequality, |value - threshold| / |threshold| for ``==`` / ``!=``; 0 without a finite statistic."""
    margin = check.relative_margin
    if margin is not None:
        return -margin
    if check.value is None or not math.isfinite(float(check.value)) or check.op not in ("==", "!="):
        return 0.0
    return abs(float(check.value) - float(check.threshold)) / max(abs(float(check.threshold)), 1e-12)


def settle(record: ClaimRecord, broke: bool = False) -> None:
    """Record the verdict's derived facts: the close deciding checks and the deciding check's name."""
    record.close_names = [c.name for c in close_checks(record, broke)]
    found = deciding_check(record)
    record.deciding_name = found.name if found is not None else None


def suite_reading_note(checks: Sequence[Check]) -> str:
    """A sentence for a verdict that turns only on the suite's readings (every check in ``checks`` is one)."""
    if not checks or any(c.threshold_source != "suite-reading" for c in checks):
        return ""
    return (
        "; every failing check's threshold is the suite's reading of the paper, not a number the paper "
        "states (threshold_basis: suite reading)"
    )


def not_reproduced_reason(claim: str, failed: Sequence[Check], total: int, why: str) -> str:
    """A declared non-reproduction's reason, from this run's measured values of the failing checks."""
    shown = "; ".join(c.describe() for c in failed[:REASON_CHECKS])
    more = f"; and {len(failed) - REASON_CHECKS} more" if len(failed) > REASON_CHECKS else ""
    return (
        f"{claim}: {len(failed)} of {total} checks fail as expected ({why}): {shown}{more}; "
        f"the other {total - len(failed)} checks hold{suite_reading_note(failed)}"
    )


def text_seeds(seeds: Sequence[int]) -> str:
    seeds = list(seeds)
    if seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{seeds[0]}..{seeds[-1]}"
    return ", ".join(str(s) for s in seeds)


def where_it_ran(record: ClaimRecord) -> str:
    """Where a run stands relative to the catalogue's point: its robustness setting, its multiverse reading, its
    seeds."""
    scale = record.scale
    parts = []
    if record.setting:
        parts.append(f"at the robustness setting {record.setting}")
    if record.universe:
        parts.append(f"in the universe {record.universe} (the multiverse)")
    plan = record.looks
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


def undeclared_reason(record: ClaimRecord) -> str:
    """A finding's reason: where it ran, and the failing checks that were not declared with this run's measured
    values."""
    failed = list(record.failed_checks)
    stray = [c for c in failed if not c.expected_to_fail]
    shown = "; ".join(c.describe() for c in stray[:REASON_CHECKS])
    more = f"; and {len(stray) - REASON_CHECKS} more" if len(stray) > REASON_CHECKS else ""
    declared = f"; {len(failed) - len(stray)} declared checks fail as declared" if len(failed) > len(stray) else ""
    return (
        f"{record.claim} not reproduced {where_it_ran(record)}, not declared: {len(stray)} of "
        f"{len(record.checks)} checks fail: {shown}{more}{declared}; the other {len(record.checks) - len(failed)} "
        f"checks hold{suite_reading_note(stray)}"
    )


def seed_reason(record: ClaimRecord, checks: Sequence[Check]) -> str:
    seeds, paper = too_few_seeds(record) or (0, 0)
    check = checks[0]
    where = f"95% interval [{check.ci95[0]:.4g}, {check.ci95[1]:.4g}]" if check.ci95 else "no interval from one seed"
    more = f" (and {len(checks) - 1} more)" if len(checks) > 1 else ""
    return (
        f"too few seeds to decide: {seeds} of the paper's {paper}; {check.name}: mean {check.value:.4g}, "
        f"{where}, threshold {check.op} {check.threshold}{more}"
    )


def failures_text(record: ClaimRecord, failed: Sequence[Check], head: str) -> str:
    lines = [head] + [f"  - {c.describe()}" for c in failed]
    return "\n".join(lines)


def decide(record: ClaimRecord) -> str:
    """Decide ``record``'s verdict from its checks, once: set ``verdict``, ``verdict_reason``, the close checks and
    the deciding check, mark the declared checks; return pytest's outcome (:data:`OUTCOMES`). A record whose
    test cannot be decided (no checks, a declared pattern that names no check) is ``failed``."""
    if record.kind == "control":
        return _decide_control(record)
    mode = record.mode
    if record.ruled_out is not None:
        return _decide_ruled_out(record)
    if not record.checks:
        return _set(record, Verdict.FAILED, f"{record.claim}: the test recorded no checks", FAIL)
    declared = record.declared
    if declared is not None:
        record.checks = [replace(c, expected_to_fail=matches(c.name, declared.checks)) for c in record.checks]
    settle(record)
    unmatched = [
        p for p in (declared.checks if declared else ()) if not any(matches(c.name, [p]) for c in record.checks)
    ]
    if unmatched:
        return _set(
            record, Verdict.FAILED, f"{record.claim}: expected-failure pattern(s) {unmatched} match no check", FAIL
        )
    failed = list(record.failed_checks)
    if getattr(mode, "expected_ruled_out", None) is not None:  # declared ruled out, yet every precondition held
        verdict = Verdict.NOT_REPRODUCED_UNDECLARED if failed else Verdict.UNEXPECTEDLY_REPRODUCED
        head = (
            f"{record.claim}: declared ruled out by {list(mode.expected_ruled_out)}, but every precondition held; "
            f"{len(failed)} of {len(record.checks)} checks failed"
        )
        return _set(record, verdict, failures_text(record, failed, head), FAIL)
    stray = [c for c in failed if not c.expected_to_fail]
    if stray:
        if all(undecided(c, record) for c in failed):
            return _set(record, Verdict.INCONCLUSIVE, seed_reason(record, failed), FAIL)
        return _set(record, Verdict.NOT_REPRODUCED_UNDECLARED, undeclared_reason(record), FAIL)
    if failed:
        return _set(
            record,
            Verdict.NOT_REPRODUCED,
            not_reproduced_reason(record.claim, failed, len(record.checks), declared.why),
            XFAIL,
        )
    if declared is not None and declared.strict:
        reason = (
            f"{record.claim}: unexpected pass: declared not reproduced ({declared.why}; checks "
            f"{list(declared.checks)}), but every one of {len(record.checks)} checks passed"
        )
        return _set(record, Verdict.UNEXPECTEDLY_REPRODUCED, reason, FAIL)
    if record.inconclusive_reason:
        return _set(record, Verdict.INCONCLUSIVE, record.inconclusive_reason, PASS)
    open_checks = [c for c in record.checks if undecided(c, record)]
    if open_checks:
        return _set(record, Verdict.INCONCLUSIVE, seed_reason(record, open_checks), PASS)
    return _set(record, Verdict.REPRODUCED, None, PASS)


def _set(record: ClaimRecord, verdict: Verdict, reason: str | None, outcome: str) -> str:
    record.verdict, record.verdict_reason = verdict, reason
    return outcome


def _decide_ruled_out(record: ClaimRecord) -> str:
    """A cell whose precondition failed: as declared, or a finding."""
    expected = list(record.mode.expected_ruled_out or [])
    failed = [c.name for c in record.preconditions if not c.passed]
    settle(record)
    if expected and all(matches(name, expected) for name in failed):
        return _set(record, Verdict.RULED_OUT, record.ruled_out, PASS)
    reason = f"ruled out, which the declarations do not expect: {record.ruled_out}" + (
        f" (they expect {expected})" if expected else ""
    )
    return _set(record, Verdict.NOT_REPRODUCED_UNDECLARED, reason, FAIL)


def _decide_control(record: ClaimRecord) -> str:
    if not record.checks:
        return _set(record, Verdict.FAILED, f"control of {record.claim}: the counterfactual recorded no checks", FAIL)
    failed = record.failed_checks
    if not failed:
        reason = (
            f"control of {record.claim} does not discriminate: all {len(record.checks)} checks passed on the "
            f"counterfactual ({record.counterfactual})"
        )
        return _set(record, Verdict.FAILED, reason, FAIL)
    return _set(
        record, Verdict.DISCRIMINATES, f"{len(failed)} of {len(record.checks)} checks fail on the counterfactual", PASS
    )


def broken(record: ClaimRecord, how: Verdict | str, reason: str | None) -> None:
    """The verdict of a test that ended before (or after) its recorder decided: ``how`` is one of
    :data:`~lengthgen.records.verdicts.BROKEN`: an error (an exception, a failed setup), a skip, or a failure (an
    assertion outside the recorder); ``reason`` is pytest's message."""
    if how not in BROKEN:
        raise ValueError(f"unknown way a test broke {how!r}; expected one of {', '.join(BROKEN)}")
    record.verdict, record.verdict_reason = how, reason or str(how)
    settle(record, broke=how in DECIDED_ALONE)
