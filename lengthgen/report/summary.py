"""The terminal summary at the end of ``pytest claims``: the robustness map's and the multiverse's cells
as compact grids (:func:`terminal_lines`), then the claims table in short, one line per claim test (paper
value beside the measured headline), the run's scale, verdict counts and cache counters."""

from __future__ import annotations

import itertools
import shutil
import textwrap
from typing import Any, Mapping, Sequence

from lengthgen.report import text
from lengthgen.report.multiverse import grid_lines
from lengthgen.report.robustness import map_lines
from lengthgen.records import ClaimRecord, Verdict
from lengthgen.analysis.run_view import RunView

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


def _close_lines(claim: ClaimRecord, width: int) -> list[str]:
    """A close claim's close checks with their intervals, and the --lengthgen-until-decided path."""
    lines = []
    close = claim.close_checks
    for check in close[:CLOSE_SHOWN]:
        line = f"close: {check.name}: {text.close_text(check)}"
        lines += [f"{'':<12} {part}" for part in _wrap(line, width - 14, 2)]
    if len(close) > CLOSE_SHOWN:
        lines.append(f"{'':<12} close: and {len(close) - CLOSE_SHOWN} more (see the page)")
    if claim.looks:
        lines += [f"{'':<12} {part}" for part in _wrap(text.path_text(claim.looks), width - 14, 2)]
    return lines


def run_view(
    run: RunView | Sequence[Mapping[str, Any]],
    environment: Mapping[str, Any] | None = None,
    controls: Sequence[Mapping[str, Any]] = (),
) -> RunView:
    """``run`` itself, or the view of a run's records (claims and predictions; cells, if any, go to the map)
    with its ``controls`` and ``environment``."""
    if isinstance(run, RunView):
        return run
    return RunView.from_records([*run, *controls], environment or {})


def summary_lines(
    run: RunView | Sequence[Mapping[str, Any]],
    environment: Mapping[str, Any] | None = None,
    width: int | None = None,
    controls: Sequence[Mapping[str, Any]] = (),
) -> list[str]:
    """The verdict table in short: claim, scale, verdict, checks passed, paper value, measured headline
    (the failed check, else the recorded headline quantities, else the check nearest its threshold).

    ``run``: the run's view; or its records (``ClaimRecord.to_dict()``), with ``environment`` and ``controls``
    (``run_view``). Given a view, ``environment`` (when not None) replaces the view's."""
    view = run_view(run, environment, controls)
    environment = view.environment if environment is None else environment
    records = view.records
    width = max(width or shutil.get_terminal_size((160, 24)).columns, MIN_WIDTH)
    verdict_w = max([VERDICT_W] + [len(r.label) for r in records if r.verdict])
    fixed = f"{'claim':<5} {'scale':<6} {'verdict':<{verdict_w}} {'checks':>7}  "
    free = width - len(fixed) - 3
    paper_w = int(free * PAPER_SHARE)
    measured_w = free - paper_w
    lines = [f"{fixed}{'paper':<{paper_w}} | measured"]
    shared = text.shared_claims(records)
    for r in records:
        if view.predictions and r is view.predictions[0]:  # after the paper's claims; their column: the prediction
            lines.append("predictions beyond the paper (the 'paper' column gives the prediction)")
        passed, total = r.checks_passed
        checks = f"{passed}/{total}" if total else "-"
        paper = _wrap(r.statement if r.is_prediction else r.paper_value, paper_w)
        measured = _wrap(text.headline(r, compact=True), measured_w)
        for i, (p, m) in enumerate(itertools.zip_longest(paper, measured, fillvalue="")):
            shown = r.label if r.verdict else "?"
            head = (
                (f"{r.claim:<5} {r.scale.get('name', '?'):<6} {shown:<{verdict_w}} {checks:>7}  ")
                if i == 0
                else " " * len(fixed)
            )
            lines.append(f"{head}{p:<{paper_w}} | {m}".rstrip())
        if r.claim in shared:
            lines.append(f"{'':<12} test: {r.test_name}")
        if r.verdict not in (Verdict.REPRODUCED, None) and r.verdict_reason:
            reason = r.verdict_reason.splitlines()[0]
            lines += [f"{'':<12} -> {part}" for part in _wrap(reason, width - 16)]
        lines += _close_lines(r, width)
    counts = ", ".join(f"{n} {v}" for v, n in view.verdict_counts("claims" if view.claims else "records").items())
    lines += textwrap.wrap(f"run: {view.completeness.label}; {counts}", width, subsequent_indent="     ")
    if view.predictions and view.claims:
        predicted = ", ".join(f"{n} {v}" for v, n in view.verdict_counts("predictions").items())
        lines.append(f"predictions: {predicted}")
    if view.controls:
        good = [c for c in view.controls if c.discriminates]
        lines.append(
            f"negative controls: {len(good)} of {len(view.controls)} discriminate (the claim's checks fail "
            f"on the counterfactual)"
        )
        for c in view.controls:
            if not c.discriminates:
                lines.append(
                    f"  control {c.claim} {c.test_name}: {c.verdict}: "
                    f"{(c.verdict_reason or '').splitlines()[0][: width - 30]}"
                )
    if environment:
        lines.append(
            f"wall time {text.duration(environment.get('wall_time_s'))}; models trained "
            f"{environment.get('models_trained', 0)}, from the cache {environment.get('models_from_cache', 0)}; "
            f"{environment.get('workers', 1)} worker(s) x {environment.get('threads_per_process', 1)} thread(s)"
        )
    return lines


def terminal_lines(view: RunView, width: int | None = None) -> list[str]:
    """What ``pytest claims`` prints at its end: the robustness map and the multiverse as grids (their
    cells never sit among the claims), then the claims table (:func:`summary_lines`); a run of cells
    alone ends with the wall time and cache counters only."""
    lines = map_lines(view.robustness, catalogue=view.catalogue, records=view.records) if view.robustness else []
    lines += grid_lines(view.multiverse, records=view.records, registry=view.registry) if view.multiverse else []
    summary = summary_lines(view, width=width)
    return lines + (summary[-1:] if view.cells and not view.records else summary)
