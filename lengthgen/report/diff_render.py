"""A :class:`lengthgen.analysis.diff.RunDiff` rendered three ways: plain text (the terminal), GitHub-flavoured
markdown (a pull-request comment, a job summary) and JSON (machine-readable). Each starts with the two runs
and the drift rule, says "no differences" for an empty diff, and ends with what ``--fail-on`` makes of it."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from lengthgen.analysis.data import finite
from lengthgen.analysis.diff import (
    DRIFT_RELATIVE_TOLERANCE,
    CheckChange,
    ClaimDiff,
    DeclaredChange,
    RecordKey,
    RecordRef,
    RunDiff,
)
from lengthgen.records.verdicts import Verdict, label, label_verdict

NO_DIFFERENCES = "no differences"  # the line of an empty diff
DIGITS = 6  # significant digits of the numbers shown (the JSON keeps them all)


def num(value: Any) -> str:
    return "n/a" if value is None else f"{value:.{DIGITS}g}"


def threshold(op: str, value: Any) -> str:
    if op == "in":
        return f"in [{num(value[0])}, {num(value[1])}]"
    return f"{op} {value if isinstance(value, str) else num(value)}"


def verdict(value: Verdict | None, close: bool) -> str:
    """The verdict as the report shows it ("reproduced (close)"; ``verdicts.label``)."""
    return label(value, close)


def verdicts(r: ClaimDiff) -> str:
    """ "old -> new", and the close call's change where the labels do not show it (a close "failed")."""
    old, new = verdict(r.old_verdict, r.old_close), verdict(r.new_verdict, r.new_close)
    text = f"{old} -> {new}"
    shown = (label_verdict(old)[1], label_verdict(new)[1])
    if r.old_close != r.new_close and shown != (r.old_close, r.new_close):
        text += "; close call " + ("appeared" if r.new_close else "gone")
    return text


def counts(diff: RunDiff) -> str:
    """One line: how many verdicts moved, checks drifted, records came and went."""
    drifted = sum(len(r.drifted) for r in diff.records)
    flipped = sum(len(r.pass_changed) for r in diff.records)
    added = sum(len(r.checks_added) for r in diff.records)
    removed = sum(len(r.checks_removed) for r in diff.records)
    relabelled = sum(len(r.relabelled) for r in diff.records)
    return (
        f"verdicts: {diff.count('worse')} worse, {diff.count('better')} better, {diff.count('changed')} changed, "
        f"{diff.count('same')} same; records: {len(diff.added)} added, {len(diff.removed)} removed; "
        f"checks: {drifted} drifted, {flipped} changed pass/fail, {relabelled} relabelled, {added} added, "
        f"{removed} removed, {diff.within_noise} moved within their noise"
    )


def scales(diff: RunDiff) -> list[str]:
    """A warning line when the runs are at different scales (nothing then matches: test ids name the scale)."""
    if diff.old_scale == diff.new_scale:
        return []
    return [
        f"note: the runs are at different scales ({diff.old_scale} -> {diff.new_scale}); claim tests are matched "
        f"by test id, which names the scale"
    ]


def cpus(diff: RunDiff) -> list[str]:
    """The CPU of each run; a note when they differ (floats then differ in the last bits) or one is unknown."""
    if diff.cross_cpu:
        return [
            f"note: the runs ran on different CPUs (old: {diff.old_cpu}; new: {diff.new_cpu}); their floats "
            f"differ in the last bits, and moves within rounding are counted as within noise"
        ]
    return [f"CPU: {diff.new_cpu}" if diff.old_cpu == diff.new_cpu else f"CPU: old {diff.old_cpu}; new {diff.new_cpu}"]


def status(diff: RunDiff, fail_on: str) -> str:
    why = diff.failures(fail_on)
    return f"exit 1 (--fail-on {fail_on}): {'; '.join(why)}" if why else f"exit 0 (--fail-on {fail_on})"


def _passed(flag: bool) -> str:
    return "passed" if flag else "FAILED"


def check_line(c: CheckChange) -> str:
    """One check's change: its values, the noise they were compared with, its threshold and pass/fail."""
    what = "drifted" if c.drifted else "pass/fail" if c.pass_changed else "comparison"
    moved = "n/a" if c.old_value is None or c.new_value is None else num(abs(c.new_value - c.old_value))
    cmp = ">" if c.drifted else "<="
    text = (
        f"{what} {c.name!r}: {num(c.old_value)} -> {num(c.new_value)} (moved {moved} {cmp} noise "
        f"{num(c.tolerance)}, {c.tolerance_from}); threshold {threshold(c.op, c.new_threshold)}"
    )
    if c.comparison_changed:
        text += f" (was {threshold(c.old_op, c.old_threshold)})"
    if c.pass_changed:
        text += f"; {_passed(c.old_passed)} -> {_passed(c.new_passed)}"
    if c.relabelled:
        text += f"; threshold from {c.old_source} -> {c.new_source}"
    return text


def relabel_lines(r: ClaimDiff) -> list[str]:
    """The checks whose label alone changed, one line per change of label naming every check it moved."""
    groups: dict[tuple[str | None, str | None], list[str]] = {}
    for c in r.checks:
        if c.relabelled_only:
            groups.setdefault((c.old_source, c.new_source), []).append(c.name)
    return [
        f"relabelled {len(names)} check{'s' * (len(names) != 1)}: threshold from {old} -> {new} ({'; '.join(names)})"
        for (old, new), names in groups.items()
    ]


def declared_line(d: DeclaredChange) -> str:
    parts = []
    if d.patterns_changed:
        parts.append(f"patterns {list(d.old_patterns or [])} -> {list(d.new_patterns or [])}")
    if d.failing_added:
        parts.append(f"now failing: {', '.join(d.failing_added)}")
    if d.failing_removed:
        parts.append(f"no longer failing: {', '.join(d.failing_removed)}")
    return "declared non-reproduction: " + ("; ".join(parts) or "failing checks reordered")


def record_lines(r: ClaimDiff) -> list[str]:
    lines = [f"{r.change:<8}{r.key.label()}: {verdicts(r)}"]
    lines += [f"          {check_line(c)}" for c in r.checks if not c.relabelled_only]
    lines += [f"          {line}" for line in relabel_lines(r)]
    lines += [f"          check added {name!r}" for name in r.checks_added]
    lines += [f"          check removed {name!r}" for name in r.checks_removed]
    if r.declared is not None:
        lines.append(f"          {declared_line(r.declared)}")
    return lines


def ref_line(word: str, ref: RecordRef) -> str:
    return f"{word:<8}{ref.key.label()}: {ref.verdict or 'unknown'}"


def text(diff: RunDiff, fail_on: str) -> str:
    """The plain-text diff."""
    lines = [
        f"lengthgen diff {diff.old} -> {diff.new}",
        *cpus(diff),
        f"drift rule: {diff.rule}",
        *scales(diff),
        counts(diff),
    ]
    if diff.empty:
        lines.append(NO_DIFFERENCES)
    for r in diff.changed:
        lines += record_lines(r)
    lines += [ref_line("added", ref) for ref in diff.added]
    lines += [ref_line("removed", ref) for ref in diff.removed]
    lines.append(status(diff, fail_on))
    return "\n".join(lines)


def _cell(value: Any) -> str:
    """A markdown table cell: pipes escaped, no line breaks."""
    return str(value).replace("|", "\\|").replace("\n", " ")


def _code(value: str) -> str:
    return f"`{value}`".replace("|", "\\|")


def markdown(diff: RunDiff, fail_on: str) -> str:
    """The diff as GitHub-flavoured markdown: a pull-request comment or a job summary."""
    lines = [
        f"### lengthgen diff: {_code(diff.old)} → {_code(diff.new)}",
        "",
        *[(f"**{line}**" if diff.cross_cpu else line) for line in cpus(diff)],
        "",
        f"_Drift rule: {diff.rule}._",
        "",
        *[f"**{line}**" for line in scales(diff)],
        counts(diff),
        "",
    ]
    if diff.empty:
        lines += [f"**{NO_DIFFERENCES}**", ""]
    moved = [r for r in diff.changed if r.change != "same" or r.old_close != r.new_close]
    if moved:
        lines += ["#### Verdicts", "", "| change | claim | test | verdict |", "|---|---|---|---|"]
        lines += [
            f"| {'**worse**' if r.change == 'worse' else r.change} | {_cell(_where(r.key))} | "
            f"{_code(r.key.test)} | {_cell(verdicts(r).replace(' -> ', ' → '))} |"
            for r in moved
        ]
        lines.append("")
    checks = [(r, c) for r in diff.changed for c in r.checks if not c.relabelled_only]
    if checks:
        lines += [
            "#### Checks",
            "",
            "| claim | check | old | new | moved | noise | threshold | pass/fail |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for r, c in checks:
            moved_by = "n/a" if c.old_value is None or c.new_value is None else num(abs(c.new_value - c.old_value))
            flag = f"{'**drifted** ' if c.drifted else ''}{moved_by}"
            cmp = threshold(c.op, c.new_threshold)
            if c.comparison_changed:
                cmp += f" (was {threshold(c.old_op, c.old_threshold)})"
            passed = f"{_passed(c.old_passed)} → {_passed(c.new_passed)}" if c.pass_changed else _passed(c.new_passed)
            if c.relabelled:
                cmp += f"; from {c.old_source} → {c.new_source}"
            lines.append(
                f"| {_cell(_where(r.key))} | {_cell(c.name)} | {num(c.old_value)} | {num(c.new_value)} | "
                f"{flag} | {num(c.tolerance)} ({c.tolerance_from}) | {_cell(cmp)} | {passed} |"
            )
        lines.append("")
    other = [
        f"- {_cell(_where(r.key))} {_code(r.key.test)}: {line}"
        for r in diff.changed
        for line in (
            [f"check added {_code(n)}" for n in r.checks_added]
            + [f"check removed {_code(n)}" for n in r.checks_removed]
            + [_cell(line) for line in relabel_lines(r)]
            + ([_cell(declared_line(r.declared))] if r.declared else [])
        )
    ]
    other += [
        f"- added {_cell(_where(ref.key))} {_code(ref.key.test)}: {ref.verdict or 'unknown'}" for ref in diff.added
    ]
    other += [
        f"- **removed** {_cell(_where(ref.key))} {_code(ref.key.test)}: {ref.verdict or 'unknown'}"
        for ref in diff.removed
    ]
    if other:
        lines += ["#### Added, removed, relabelled, declared non-reproductions", "", *other, ""]
    lines.append(status(diff, fail_on))
    return "\n".join(lines)


def _where(key: RecordKey) -> str:
    kind = " (control)" if key.section == "control" else ""
    return f"{key.claim}{kind}" + (f" @ {key.cell}" if key.cell else "")


def _record(r: ClaimDiff) -> dict[str, Any]:
    data = asdict(r)
    for c, raw in zip(r.checks, data["checks"]):
        raw.update(pass_changed=c.pass_changed, comparison_changed=c.comparison_changed, relabelled=c.relabelled)
    return data


def to_json(diff: RunDiff, fail_on: str) -> dict[str, Any]:
    """The diff as plain data: the changed records only, with the counts and the exit's reasons (strict
    JSON: an infinite noise bound, from a one-seed interval, is null)."""
    why = diff.failures(fail_on)
    summary = {
        **{c: diff.count(c) for c in ("worse", "better", "changed", "same")},
        "added": len(diff.added),
        "removed": len(diff.removed),
        "drifted": sum(len(r.drifted) for r in diff.records),
        "pass_changed": sum(len(r.pass_changed) for r in diff.records),
        "relabelled": sum(len(r.relabelled) for r in diff.records),
        "within_noise": diff.within_noise,
    }
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
