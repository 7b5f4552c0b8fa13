"""A :class:`lengthgen.analysis.diff.RunDiff` rendered three ways: plain text (the terminal), GitHub-flavoured
markdown (a pull-request comment, a job summary) and JSON (machine-readable). Each starts with the two runs
and the drift rule, says "no differences" for an empty diff, and ends with what ``--fail-on`` makes of it.

The text's and the markdown's words and layout are templates (``templates/text/diff.txt.j2``, ``diff.md.j2``,
their shared pieces in ``_diff.j2``); this module computes what they show (:class:`DiffView`): the numbers
formatted, each check's change and the relabelled checks grouped by their change of label.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from lengthgen.analysis.data import finite
from lengthgen.analysis.diff import (
    DRIFT_RELATIVE_TOLERANCE,
    CheckChange,
    ClaimDiff,
    DeclaredChange,
    RecordRef,
    RunDiff,
)
from lengthgen.records.verdicts import label, label_verdict
from lengthgen.report.templating import render_text

TEXT = "text/diff.txt.j2"  # the plain-text diff's template (under report/templates)
MARKDOWN = "text/diff.md.j2"  # the markdown diff's template
NO_DIFFERENCES = "no differences"  # the line of an empty diff (the templates say it too)
DIGITS = 6  # significant digits of the numbers shown (the JSON keeps them all)
JSON_LEFT_OUT = ("checks_added", "checks_removed")  # counts the JSON's summary does not carry


def num(value: Any) -> str:
    return "n/a" if value is None else f"{value:.{DIGITS}g}"


def threshold(op: str, value: Any) -> str:
    if op == "in":
        return f"in [{num(value[0])}, {num(value[1])}]"
    return f"{op} {value if isinstance(value, str) else num(value)}"


@dataclass(frozen=True)
class Where:
    """Which record: its claim, whether it is a control, its cell."""

    claim: str  # the catalogue id ("C4")
    control: bool  # a negative control
    cell: str | None  # a cell's setting (robustness) or reading (multiverse); None otherwise
    label: str  # the record as one label (``RecordKey.label``)
    test: str  # the pytest node id


@dataclass(frozen=True)
class CheckView:
    """One check's change, its numbers formatted (``DIGITS`` significant digits)."""

    name: str  # the check's name
    old: str  # the old statistic ("n/a": not finite)
    new: str  # the new statistic
    moved: str  # |new - old| ("n/a" when either is not finite)
    drifted: bool  # |new - old| beyond the noise
    pass_changed: bool  # the check passed in one run and failed in the other
    noise: str  # the noise bound |new - old| is compared with
    noise_from: str  # where the bound comes from ("interval", "relative", ...)
    threshold: str  # the new run's comparison and threshold ("in [a, b]", ">= x")
    old_threshold: str | None  # the old run's, where the comparison changed; else None
    old_passed: bool  # the check passed in the old run
    new_passed: bool  # the check passed in the new run
    relabelled: bool  # its threshold's source changed
    old_source: str | None  # where the old run's threshold comes from
    new_source: str | None  # where the new run's comes from


@dataclass(frozen=True)
class Relabel:
    """The checks whose label alone changed the same way."""

    old: str | None  # the threshold's source in the old run
    new: str | None  # in the new run
    names: tuple[str, ...]  # the checks it moved


@dataclass(frozen=True)
class DeclaredView:
    """A declared non-reproduction whose patterns or failing checks changed."""

    patterns_changed: bool  # its expected-failure patterns changed
    old_patterns: list[str]  # the old run's patterns (shown as a list)
    new_patterns: list[str]  # the new run's
    failing_added: tuple[str, ...]  # checks that fail now and did not
    failing_removed: tuple[str, ...]  # checks that no longer fail


@dataclass(frozen=True)
class RecordView:
    """A record in both runs that changed."""

    where: Where  # which record
    change: str  # better, worse, same or changed
    old_verdict: str  # the old verdict as the report shows it ("reproduced (close)")
    new_verdict: str  # the new one
    close_note: bool  # the close call changed where the labels do not show it (a close "failed")
    new_close: bool  # the new verdict is a close call (the close call appeared, else it is gone)
    moved: bool  # in the markdown's verdicts table: its verdict or its close call changed
    checks: tuple[CheckView, ...]  # the checks that changed beyond their label
    relabels: tuple[Relabel, ...]  # the checks whose label alone changed, grouped
    checks_added: tuple[str, ...]  # checks only the new run has
    checks_removed: tuple[str, ...]  # checks only the old run has
    declared: DeclaredView | None  # its declared non-reproduction's change; None without one


@dataclass(frozen=True)
class RefView:
    """A record only one run has."""

    where: Where  # which record
    verdict: str  # its verdict, "unknown" without one


@dataclass(frozen=True)
class DiffView:
    """What the text and the markdown diff show."""

    old: str  # the old run (its path, as given)
    new: str  # the new run
    old_cpu: str  # the old run's CPU model and torch kernels
    new_cpu: str  # the new run's
    cross_cpu: bool  # the runs ran on different CPUs
    rule: str  # the drift rule applied
    old_scale: str  # the old run's scale
    new_scale: str  # the new run's
    counts: dict[str, int]  # verdicts worse/better/changed/same; records added/removed; checks drifted,
    # pass_changed, relabelled, added, removed, within_noise
    empty: bool  # no differences
    records: tuple[RecordView, ...]  # the records that changed, in the new run's order
    added: tuple[RefView, ...]  # records only the new run has
    removed: tuple[RefView, ...]  # records only the old run has
    fail_on: str  # the --fail-on rule
    failures: tuple[str, ...]  # why it exits 1 under that rule (none: exit 0)


def where(ref: ClaimDiff | RecordRef) -> Where:
    key = ref.key
    return Where(key.claim, key.section == "control", key.cell, key.label(), key.test)


def check_view(c: CheckChange) -> CheckView:
    moved = "n/a" if c.old_value is None or c.new_value is None else num(abs(c.new_value - c.old_value))
    return CheckView(
        name=c.name,
        old=num(c.old_value),
        new=num(c.new_value),
        moved=moved,
        drifted=c.drifted,
        pass_changed=c.pass_changed,
        noise=num(c.tolerance),
        noise_from=c.tolerance_from,
        threshold=threshold(c.op, c.new_threshold),
        old_threshold=threshold(c.old_op, c.old_threshold) if c.comparison_changed else None,
        old_passed=c.old_passed,
        new_passed=c.new_passed,
        relabelled=c.relabelled,
        old_source=c.old_source,
        new_source=c.new_source,
    )


def relabels(r: ClaimDiff) -> tuple[Relabel, ...]:
    """The checks whose label alone changed, one group per change of label naming every check it moved."""
    groups: dict[tuple[str | None, str | None], list[str]] = {}
    for c in r.checks:
        if c.relabelled_only:
            groups.setdefault((c.old_source, c.new_source), []).append(c.name)
    return tuple(Relabel(old, new, tuple(names)) for (old, new), names in groups.items())


def declared_view(d: DeclaredChange) -> DeclaredView:
    return DeclaredView(
        d.patterns_changed,
        list(d.old_patterns or []),
        list(d.new_patterns or []),
        tuple(d.failing_added),
        tuple(d.failing_removed),
    )


def record_view(r: ClaimDiff) -> RecordView:
    old, new = label(r.old_verdict, r.old_close), label(r.new_verdict, r.new_close)
    shown = (label_verdict(old)[1], label_verdict(new)[1])
    return RecordView(
        where=where(r),
        change=r.change,
        old_verdict=old,
        new_verdict=new,
        close_note=r.old_close != r.new_close and shown != (r.old_close, r.new_close),
        new_close=r.new_close,
        moved=r.change != "same" or r.old_close != r.new_close,
        checks=tuple(check_view(c) for c in r.checks if not c.relabelled_only),
        relabels=relabels(r),
        checks_added=tuple(r.checks_added),
        checks_removed=tuple(r.checks_removed),
        declared=declared_view(r.declared) if r.declared is not None else None,
    )


def diff_view(diff: RunDiff, fail_on: str) -> DiffView:
    """What the text and the markdown of ``diff`` show under ``--fail-on fail_on``."""
    return DiffView(
        old=diff.old,
        new=diff.new,
        old_cpu=diff.old_cpu,
        new_cpu=diff.new_cpu,
        cross_cpu=diff.cross_cpu,
        rule=diff.rule,
        old_scale=diff.old_scale,
        new_scale=diff.new_scale,
        counts=diff.counts(),
        empty=diff.empty,
        records=tuple(record_view(r) for r in diff.changed),
        added=tuple(RefView(where(ref), ref.verdict or "unknown") for ref in diff.added),
        removed=tuple(RefView(where(ref), ref.verdict or "unknown") for ref in diff.removed),
        fail_on=fail_on,
        failures=tuple(diff.failures(fail_on)),
    )


def text(diff: RunDiff, fail_on: str) -> str:
    """The plain-text diff (no newline at its end)."""
    return render_text(TEXT, diff=diff_view(diff, fail_on))


def markdown(diff: RunDiff, fail_on: str) -> str:
    """The diff as GitHub-flavoured markdown: a pull-request comment or a job summary (no newline at its end)."""
    return render_text(MARKDOWN, diff=diff_view(diff, fail_on))


def _record(r: ClaimDiff) -> dict[str, Any]:
    data = asdict(r)
    for c, raw in zip(r.checks, data["checks"]):
        raw.update(pass_changed=c.pass_changed, comparison_changed=c.comparison_changed, relabelled=c.relabelled)
    return data


def to_json(diff: RunDiff, fail_on: str) -> dict[str, Any]:
    """The diff as plain data: the changed records only, with the counts and the exit's reasons (strict
    JSON: an infinite noise bound, from a one-seed interval, is null)."""
    why = diff.failures(fail_on)
    summary = {k: n for k, n in diff.counts().items() if k not in JSON_LEFT_OUT}
    return finite(
        {
            "old": diff.old,
            "new": diff.new,
            "old_scale": diff.old_scale,
            "new_scale": diff.new_scale,
            "old_cpu": diff.old_cpu,
            "new_cpu": diff.new_cpu,
            "cross_cpu": diff.cross_cpu,
            "rule": diff.rule,
            "relative_tolerance": DRIFT_RELATIVE_TOLERANCE,
            "empty": diff.empty,
            "summary": summary,
            "records": [_record(r) for r in diff.changed],
            "added": [asdict(ref) for ref in diff.added],
            "removed": [asdict(ref) for ref in diff.removed],
            "fail_on": fail_on,
            "failures": why,
            "exit": 1 if why else 0,
        }
    )
