"""What changed between two runs: ``diff_runs(old, new)`` over two parsed runs (``lengthgen.analysis.run_view``),
a typed :class:`RunDiff` (rendered as text, markdown or JSON by ``lengthgen.report.diff_render``).

Records are matched by key: a claim test by ``(claim id, test id)``, a negative control the same way, a
robustness or multiverse cell by ``(setting or reading, claim id, test id)``; a check by its name within
its record. For each record in both runs:

- its **verdict change**: ``better`` / ``worse`` by the verdicts' rank (``Verdict.rank``; ``Verdict.control_rank``
  for a control), ``same``, or ``changed`` when either verdict is outside the ranking (ruled out, skipped,
  none); a close flag that appears or goes is reported beside it (it makes no verdict better or worse);
- each check that **drifted** (:data:`DRIFT_RULE`), whose **pass/fail** changed, whose comparison
  (operator or threshold) changed, or whose **label** changed (where its threshold comes from: the paper's
  number, the paper's range, the suite's reading, a prediction's; compared where both runs state it); checks
  added and removed;
- for a declared non-reproduction (a record with expected-failure patterns on either side): whether its
  patterns or its set of failing checks changed.

Controls are compared by verdict only (their checks run on a counterfactual; their claim's checks are
diffed already). Records present in one run only are listed as added or removed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from lengthgen.cpu import UNKNOWN, cpu_label
from lengthgen.records import Check, ClaimRecord
from lengthgen.records.verdicts import Verdict
from lengthgen.analysis.run_view import RunView

# A claim test's verdicts are ordered by ``Verdict.rank`` (a control's by ``Verdict.control_rank``): a higher
# rank is "worse". "failed" of a file written before the finer verdicts (not reproduced (undeclared),
# unexpectedly reproduced, error) ranks where it always did, so such a file read against a newer one can show
# "better" where only the label got finer.
UNRANKED = "changed"  # the change of a verdict to or from one outside the ranking (skipped, unknown)
CHANGES = ("better", "worse", "same", UNRANKED)

DRIFT_RELATIVE_TOLERANCE = 1e-9  # float noise: a check without an interval (an exact computation, a count, a
# min/max over seeds) drifts only when it moved by more than this fraction of the larger |value|; a float64
# computation repeated on another machine or thread count differs by far less, any real change by far more
DRIFT_RULE = (
    "a check drifted when |new - old| > max(half-width of the old interval, half-width of the new "
    "interval), each the check's decision interval (else its 95% interval) where it has one; "
    f"for a check with neither, when |new - old| > {DRIFT_RELATIVE_TOLERANCE:g} x max(|old|, |new|)"
)
"""The drift rule, as printed in every diff's header. A non-finite interval (one seed) bounds nothing:
such a check never drifts. A value present on one side only (NaN on the other) always drifts."""

# Across two CPUs the kernels round float32 differently (lengthgen.cpu). A check without an interval then
# moves within rounding when |new - old| <= CROSS_CPU_TOLERANCE x max(1, |old|, |new|): float32's unit roundoff
# (6e-8) over the few roundings such a statistic (a largest relative change, an exact sum) accumulates. C2's
# largest relative change, a value that is itself rounding, moves between an AVX-512 and an AVX2 CPU by a
# small fraction of itself, far inside the tolerance; a count moves by at least 1, an accuracy by 1/1000 of a
# sequence.
CROSS_CPU_TOLERANCE = 1e-6
CROSS_CPU_RULE = (
    f"the runs ran on different CPUs: a check without an interval moved within rounding when "
    f"|new - old| <= {CROSS_CPU_TOLERANCE:g} x max(1, |old|, |new|)"
)

FAIL_ON = ("worse-verdict", "drift", "never")  # --fail-on: what makes ``lengthgen diff`` exit 1
SECTIONS = ("claim", "control", "robustness", "multiverse")  # the kinds of record a diff matches


@dataclass(frozen=True)
class CheckChange:
    """A check present in both runs whose value drifted, whose pass/fail changed, or whose comparison changed."""

    name: str  # the check's name
    op: str  # its comparison in the new run (">=", "in", ...)
    old_threshold: Any  # the old run's threshold (a number, or [low, high] for "in")
    new_threshold: Any  # the new run's threshold
    old_op: str  # the old run's comparison
    old_value: float | None  # the old statistic (None: not finite)
    new_value: float | None  # the new statistic
    tolerance: float  # the noise bound |new - old| is compared with (DRIFT_RULE)
    tolerance_from: str  # "interval" (the larger half-width), "relative" (DRIFT_RELATIVE_TOLERANCE) or
    # "rounding across CPUs" (CROSS_CPU_TOLERANCE, when the runs name different CPUs)
    drifted: bool  # |new - old| > tolerance
    old_passed: bool  # the check passed in the old run
    new_passed: bool  # the check passed in the new run
    old_source: str | None = None  # where the old run's threshold comes from (records.check.THRESHOLD_SOURCES;
    # None: that run does not state it)
    new_source: str | None = None  # where the new run's comes from

    @property
    def relabelled(self) -> bool:
        """Both runs state where the threshold comes from, and they differ."""
        return None not in (self.old_source, self.new_source) and self.old_source != self.new_source

    @property
    def relabelled_only(self) -> bool:
        """The label changed and nothing else did (the report groups such checks)."""
        return self.relabelled and not (self.drifted or self.pass_changed or self.comparison_changed)

    @property
    def pass_changed(self) -> bool:
        return self.old_passed != self.new_passed

    @property
    def comparison_changed(self) -> bool:
        return self.old_op != self.op or _plain(self.old_threshold) != _plain(self.new_threshold)


@dataclass(frozen=True)
class DeclaredChange:
    """A declared non-reproduction whose patterns or failing checks changed."""

    old_patterns: tuple[str, ...] | None  # the old run's expected-failure patterns (None: none declared)
    new_patterns: tuple[str, ...] | None  # the new run's
    old_failing: tuple[str, ...]  # the checks that failed in the old run, by name
    new_failing: tuple[str, ...]  # ... in the new run

    @property
    def patterns_changed(self) -> bool:
        return self.old_patterns != self.new_patterns

    @property
    def failing_added(self) -> tuple[str, ...]:
        return tuple(n for n in self.new_failing if n not in self.old_failing)

    @property
    def failing_removed(self) -> tuple[str, ...]:
        return tuple(n for n in self.old_failing if n not in self.new_failing)


@dataclass(frozen=True)
class RecordKey:
    """Which record: a claim test, a control, or a robustness / multiverse cell."""

    section: str  # "claim" (a claim or a prediction), "control", "robustness" or "multiverse" (SECTIONS)
    claim: str  # the catalogue id ("C4")
    test: str  # the pytest node id
    cell: str | None = None  # a cell's setting (robustness) or reading (multiverse); None otherwise

    def label(self) -> str:
        where = f"[{self.cell}] " if self.cell else ""
        kind = "control " if self.section == "control" else ""
        return f"{where}{kind}{self.claim} {self.test}"


@dataclass(frozen=True)
class RecordRef:
    """A record present in one run only."""

    key: RecordKey  # which record
    verdict: Verdict | None  # its verdict in the run that has it


@dataclass(frozen=True)
class ClaimDiff:
    """A record in both runs and what changed in it (empty when nothing did: ``changed`` is False)."""

    key: RecordKey  # which record
    old_verdict: Verdict | None  # the old run's verdict
    new_verdict: Verdict | None  # the new run's verdict
    change: str  # better, worse, same or changed (CHANGES)
    old_close: bool  # the old verdict was a close call
    new_close: bool  # the new one is
    checks: tuple[CheckChange, ...] = ()  # checks that drifted, changed pass/fail, comparison or label
    checks_added: tuple[str, ...] = ()  # checks only the new run has
    checks_removed: tuple[str, ...] = ()  # checks only the old run has
    declared: DeclaredChange | None = None  # a declared non-reproduction whose patterns or failing checks changed
    within_noise: int = 0  # checks whose value moved, but not beyond their noise

    @property
    def changed(self) -> bool:
        return bool(
            self.change != "same"
            or self.old_close != self.new_close
            or self.checks
            or self.checks_added
            or self.checks_removed
            or self.declared
        )

    @property
    def drifted(self) -> tuple[CheckChange, ...]:
        return tuple(c for c in self.checks if c.drifted)

    @property
    def pass_changed(self) -> tuple[CheckChange, ...]:
        return tuple(c for c in self.checks if c.pass_changed)

    @property
    def relabelled(self) -> tuple[CheckChange, ...]:
        return tuple(c for c in self.checks if c.relabelled)


@dataclass(frozen=True)
class RunDiff:
    """Two runs compared (``diff_runs``)."""

    old: str  # what the old run is (its path, as given)
    new: str  # the new run
    records: tuple[ClaimDiff, ...]  # every record in both runs, changed or not, in the new run's order
    added: tuple[RecordRef, ...]  # records only the new run has
    removed: tuple[RecordRef, ...]  # records only the old run has
    old_scale: str = "?"  # the old run's scale: quick, paper, mixed, none (``run_view.Completeness.scale``)
    new_scale: str = "?"  # the new run's; test ids name the scale, so runs at two scales share no claim test
    rule: str = field(default=DRIFT_RULE)  # the drift rule applied
    old_cpu: str = UNKNOWN  # the old run's CPU model and torch kernels (lengthgen.cpu.cpu_label)
    new_cpu: str = UNKNOWN  # the new run's

    @property
    def cross_cpu(self) -> bool:
        """Both runs name their CPU and the two differ: their floats differ in the last bits."""
        return UNKNOWN not in (self.old_cpu, self.new_cpu) and self.old_cpu != self.new_cpu

    @property
    def changed(self) -> tuple[ClaimDiff, ...]:
        return tuple(r for r in self.records if r.changed)

    @property
    def empty(self) -> bool:
        return not (self.changed or self.added or self.removed)

    def count(self, change: str) -> int:
        return sum(r.change == change for r in self.records)

    @property
    def within_noise(self) -> int:
        return sum(r.within_noise for r in self.records)

    def counts(self) -> dict[str, int]:
        """The changes counted: verdicts worse/better/changed/same; records added/removed; checks drifted,
        pass_changed, relabelled, added, removed, within_noise."""
        return {
            **{c: self.count(c) for c in ("worse", "better", "changed", "same")},
            "added": len(self.added),
            "removed": len(self.removed),
            "drifted": sum(len(r.drifted) for r in self.records),
            "pass_changed": sum(len(r.pass_changed) for r in self.records),
            "relabelled": sum(len(r.relabelled) for r in self.records),
            "checks_added": sum(len(r.checks_added) for r in self.records),
            "checks_removed": sum(len(r.checks_removed) for r in self.records),
            "within_noise": self.within_noise,
        }

    def failures(self, fail_on: str) -> list[str]:
        """Why ``lengthgen diff --fail-on fail_on`` exits 1 (empty: it exits 0).

        worse-verdict: a verdict got worse, or a record or check was removed; drift: also a check drifted
        or changed pass/fail; never: nothing."""
        if fail_on not in FAIL_ON:
            raise ValueError(f"--fail-on {fail_on!r} is not one of {', '.join(FAIL_ON)}")
        if fail_on == "never":
            return []
        why = []
        if worse := self.count("worse"):
            why.append(f"{worse} verdict{'s' * (worse != 1)} worse")
        if self.removed:
            why.append(f"{len(self.removed)} record{'s' * (len(self.removed) != 1)} removed")
        if removed := sum(len(r.checks_removed) for r in self.records):
            why.append(f"{removed} check{'s' * (removed != 1)} removed")
        if fail_on == "drift":
            if drifted := sum(len(r.drifted) for r in self.records):
                why.append(f"{drifted} check{'s' * (drifted != 1)} drifted")
            if flipped := sum(len(r.pass_changed) for r in self.records):
                why.append(f"{flipped} check{'s' * (flipped != 1)} changed pass/fail")
        return why


def verdict_change(old: Verdict | None, new: Verdict | None, control: bool = False) -> str:
    """better, worse, same or changed (to or from a verdict outside the ranking: ruled out, skipped, none)."""
    if old == new:
        return "same"

    def rank(verdict: Verdict | None) -> int | None:
        if verdict is None:
            return None
        return Verdict(verdict).control_rank if control else Verdict(verdict).rank

    before, after = rank(old), rank(new)
    if before is None or after is None:
        return UNRANKED
    return "better" if after < before else "worse"


def _finite(value: Any) -> float | None:
    if value is None:
        return None
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def half_width(interval: Sequence[Any] | None) -> float | None:
    """Half the width of an interval; None for none; infinite for one with a non-finite end (one seed)."""
    if not interval:
        return None
    low, high = _finite(interval[0]), _finite(interval[1])
    if low is None or high is None:
        return math.inf
    return abs(high - low) / 2


def drift_tolerance(
    old_interval: Sequence[Any] | None,
    new_interval: Sequence[Any] | None,
    old: float | None,
    new: float | None,
    cross_cpu: bool = False,
) -> tuple[float, str]:
    """``(tolerance, "interval" | "relative" | "rounding across CPUs")``: the noise bound of DRIFT_RULE, and
    of CROSS_CPU_RULE for a check without an interval when the runs ran on different CPUs."""
    widths = [w for w in (half_width(old_interval), half_width(new_interval)) if w is not None]
    if widths:
        return max(widths), "interval"
    scale = max(abs(old or 0.0), abs(new or 0.0))
    if cross_cpu:
        return CROSS_CPU_TOLERANCE * max(1.0, scale), "rounding across CPUs"
    return DRIFT_RELATIVE_TOLERANCE * scale, "relative"


def is_drift(old: float | None, new: float | None, tolerance: float) -> bool:
    """|new - old| > tolerance; a value on one side only drifts, none on both does not."""
    if old is None or new is None:
        return (old is None) != (new is None)
    return abs(new - old) > tolerance


def _plain(value: Any) -> Any:
    """A threshold comparable across JSON lists and tuples."""
    return [float(v) for v in value] if isinstance(value, (list, tuple)) else value


def diff_check(old: Check, new: Check, cross_cpu: bool = False) -> tuple[CheckChange | None, bool]:
    """``(the change, moved within noise)`` of one check in both runs; the change is None when nothing worth
    reporting moved. The interval is the check's deciding one (``decision_ci``, else ``ci95``)."""
    old_value, new_value = _finite(old.value), _finite(new.value)
    tolerance, source = drift_tolerance(old.deciding_interval, new.deciding_interval, old_value, new_value, cross_cpu)
    drifted = is_drift(old_value, new_value, tolerance)
    change = CheckChange(
        new.name,
        new.op,
        _plain(old.threshold),
        _plain(new.threshold),
        old.op,
        old_value,
        new_value,
        tolerance,
        source,
        drifted,
        bool(old.passed),
        bool(new.passed),
        old.threshold_source,
        new.threshold_source,
    )
    if drifted or change.pass_changed or change.comparison_changed or change.relabelled:
        return change, False
    return None, old_value != new_value


def diff_declared(old: ClaimRecord, new: ClaimRecord) -> DeclaredChange | None:
    """The change of a declared non-reproduction (a record with expected-failure patterns on either side)."""
    if old.declared is None and new.declared is None:
        return None
    old_failing = tuple(c.name for c in old.checks if not c.passed)
    new_failing = tuple(c.name for c in new.checks if not c.passed)
    old_patterns = old.declared.checks if old.declared is not None else None
    new_patterns = new.declared.checks if new.declared is not None else None
    if old_patterns == new_patterns and set(old_failing) == set(new_failing):
        return None
    return DeclaredChange(old_patterns, new_patterns, old_failing, new_failing)


def diff_record(key: RecordKey, old: ClaimRecord, new: ClaimRecord, cross_cpu: bool = False) -> ClaimDiff:
    """What changed in one record: a claim test or a cell (its verdict, close call, checks, declaration),
    or a control (its verdict only)."""
    if old.kind == "control" or new.kind == "control":
        return ClaimDiff(key, old.verdict, new.verdict, verdict_change(old.verdict, new.verdict, True), False, False)
    change = verdict_change(old.verdict, new.verdict)
    old_checks = {c.name: c for c in old.checks}
    new_checks = {c.name: c for c in new.checks}
    changes, within = [], 0
    for name, check in new_checks.items():
        if name in old_checks:
            found, moved = diff_check(old_checks[name], check, cross_cpu)
            within += moved
            if found is not None:
                changes.append(found)
    return ClaimDiff(
        key,
        old.verdict,
        new.verdict,
        change,
        bool(old.close),
        bool(new.close),
        tuple(changes),
        tuple(n for n in new_checks if n not in old_checks),
        tuple(n for n in old_checks if n not in new_checks),
        diff_declared(old, new),
        within,
    )


def record_keys(run: RunView) -> dict[RecordKey, ClaimRecord]:
    """Every record of a run by its key; a key seen twice keeps the last record."""
    keyed: dict[RecordKey, ClaimRecord] = {}
    for r in run.records:
        keyed[RecordKey("claim", r.claim, r.test)] = r
    for c in run.controls:
        keyed[RecordKey("control", c.claim, c.test)] = c
    for r in run.robustness:
        keyed[RecordKey("robustness", r.claim, r.test, r.setting)] = r
    for r in run.multiverse:
        keyed[RecordKey("multiverse", r.claim, r.test, r.universe or r.setting)] = r
    return keyed


def diff_runs(old: RunView, new: RunView, old_name: str = "old", new_name: str = "new") -> RunDiff:
    """Compare two runs: a pure function of the two views."""
    before, after = record_keys(old), record_keys(new)
    old_cpu, new_cpu = cpu_label(old.environment), cpu_label(new.environment)
    cross_cpu = UNKNOWN not in (old_cpu, new_cpu) and old_cpu != new_cpu
    both = tuple(diff_record(k, before[k], r, cross_cpu) for k, r in after.items() if k in before)
    rule = DRIFT_RULE + ("; " + CROSS_CPU_RULE if cross_cpu else "")
    return RunDiff(
        old_name,
        new_name,
        both,
        _refs(after, before),
        _refs(before, after),
        old.scale,
        new.scale,
        rule,
        old_cpu,
        new_cpu,
    )


def _refs(these: dict[RecordKey, Any], others: Iterable[RecordKey]) -> tuple[RecordRef, ...]:
    others = set(others)
    return tuple(RecordRef(k, r.verdict) for k, r in these.items() if k not in others)
