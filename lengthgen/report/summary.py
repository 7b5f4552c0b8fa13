"""The terminal summary at the end of ``pytest claims``: the claims table in short, one line per claim
test (paper value beside the measured headline), the run's scale, verdict counts and cache counters."""

from __future__ import annotations

import itertools
import shutil
import textwrap
from typing import Any, Mapping, Sequence

from lengthgen.report import text

MIN_WIDTH = 100  # below this the paper and measured columns would be unreadable
VERDICT_W = 15  # the verdict column; wider when a label needs it ("not reproduced (close)")
CLOSE_SHOWN = 3  # close checks spelled out per claim (the rest are counted; all of them are on the page)
PAPER_SHARE = 0.4  # of the width left after the fixed columns
WRAP_LINES = 3  # lines a long paper value or measured headline may take


def _wrap(value: str, width: int, lines: int = WRAP_LINES) -> list[str]:
    wrapped = textwrap.wrap(value, width) or [""]
    if len(wrapped) > lines:
        wrapped = wrapped[:lines]
        wrapped[-1] = wrapped[-1][: max(width - 3, 0)].rstrip() + "..."
    return wrapped


def _close_lines(record: Mapping[str, Any], width: int) -> list[str]:
    """A close claim's close checks with their intervals, and the --until-decided path."""
    from lengthgen.report.verdict import close_checks

    lines = []
    close = close_checks(record)
    for check in close[:CLOSE_SHOWN]:
        line = f"close: {check['name']}: {text.close_text(check, record)}"
        lines += [f"{'':<12} {part}" for part in _wrap(line, width - 14, 2)]
    if len(close) > CLOSE_SHOWN:
        lines.append(f"{'':<12} close: and {len(close) - CLOSE_SHOWN} more (see the page)")
    if record.get("sequential"):
        lines += [f"{'':<12} {part}" for part in _wrap(text.path_text(record), width - 14, 2)]
    return lines


def summary_lines(records: Sequence[Mapping[str, Any]], environment: Mapping[str, Any] | None = None,
                  width: int | None = None, controls: Sequence[Mapping[str, Any]] = ()) -> list[str]:
    """The verdict table in short: claim, scale, verdict, checks passed, paper value, measured headline
    (the failed check, else the recorded headline quantities, else the check nearest its threshold)."""
    records = sorted(records, key=text.sort_key)
    width = max(width or shutil.get_terminal_size((160, 24)).columns, MIN_WIDTH)
    verdict_w = max([VERDICT_W] + [len(text.verdict_label(r)) for r in records if r.get("verdict")])
    fixed = f"{'claim':<5} {'scale':<6} {'verdict':<{verdict_w}} {'checks':>7}  "
    free = width - len(fixed) - 3
    paper_w = int(free * PAPER_SHARE)
    measured_w = free - paper_w
    lines = [f"{fixed}{'paper':<{paper_w}} | measured"]
    shared = text.shared_claims(records)
    predictions = [r for r in records if text.is_prediction(r)]
    for r in records:
        if predictions and r is predictions[0]:  # sorted after the paper's claims; their column: the prediction
            lines.append("predictions beyond the paper (P1-P6; the 'paper' column gives the prediction)")
        passed, total = text.checks_passed(r)
        checks = f"{passed}/{total}" if total else "-"
        paper = _wrap(r.get("statement" if text.is_prediction(r) else "paper_value", ""), paper_w)
        measured = _wrap(text.headline(r, compact=True), measured_w)
        for i, (p, m) in enumerate(itertools.zip_longest(paper, measured, fillvalue="")):
            shown = text.verdict_label(r) if r.get("verdict") else "?"
            head = (f"{r['claim']:<5} {r.get('scale', {}).get('name', '?'):<6} {shown:<{verdict_w}} "
                    f"{checks:>7}  ") if i == 0 else " " * len(fixed)
            lines.append(f"{head}{p:<{paper_w}} | {m}".rstrip())
        if r["claim"] in shared:
            lines.append(f"{'':<12} test: {text.test_name(r)}")
        if r.get("verdict") not in ("reproduced", None) and r.get("verdict_reason"):
            reason = r["verdict_reason"].splitlines()[0]
            lines += [f"{'':<12} -> {part}" for part in _wrap(reason, width - 16)]
        lines += _close_lines(r, width)
    paper_claims = [r for r in records if not text.is_prediction(r)] or records
    counts = ", ".join(f"{n} {v}" for v, n in text.verdict_counts(paper_claims).items())
    lines += textwrap.wrap(f"run: {text.run_label(records)}; {counts}", width, subsequent_indent="     ")
    if predictions and len(paper_claims) < len(records):
        predicted = ", ".join(f"{n} {v}" for v, n in text.verdict_counts(predictions).items())
        lines.append(f"predictions: {predicted}")
    if controls:
        good = [c for c in controls if c.get("verdict") == "discriminates"]
        lines.append(f"negative controls: {len(good)} of {len(controls)} discriminate (the claim's checks fail on the "
                     f"counterfactual)")
        for c in controls:
            if c.get("verdict") != "discriminates":
                lines.append(f"  control {c['claim']} {text.test_name(c)}: {c.get('verdict')}: "
                             f"{(c.get('verdict_reason') or '').splitlines()[0][:width - 30]}")
    if environment:
        lines.append(
            f"wall time {text.duration(environment.get('wall_time_s'))}; models trained "
            f"{environment.get('models_trained', 0)}, from the cache {environment.get('models_from_cache', 0)}; "
            f"{environment.get('workers', 1)} worker(s) x {environment.get('threads_per_process', 1)} thread(s)"
        )
    return lines
