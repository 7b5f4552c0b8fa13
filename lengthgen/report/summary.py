"""The terminal summary at the end of ``pytest claims``: the robustness map's and the multiverse's cells
as compact grids (:func:`terminal_lines`), then the claims table in short, one line per claim test (paper
value beside the measured headline), the run's scale, verdict counts and cache counters.

The words and the layout are the template's (``templates/text/summary.txt.j2``, wrapping long values with the
``wrap_lines`` filter); this module computes what it shows (:class:`TerminalSummary`) and the columns' widths.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from lengthgen.report import text
from lengthgen.report.multiverse import grid_lines
from lengthgen.report.robustness import map_lines
from lengthgen.report.templating import render_lines
from lengthgen.report.views import Control, Counts, Footer, footer
from lengthgen.records import ClaimRecord, Verdict
from lengthgen.analysis.run_view import RunView

TEMPLATE = "text/summary.txt.j2"  # the terminal summary's template (under report/templates)
MIN_WIDTH = 100  # below this the paper and measured columns would be unreadable
CLAIM_W = 5  # the claim column
SCALE_W = 6  # the scale column
VERDICT_W = 15  # the verdict column; wider when a label needs it ("not reproduced (close)")
CHECKS_W = 7  # the checks column ("passed/total")
CLOSE_SHOWN = 3  # close checks spelled out per claim (the rest are counted; all of them are on the page)
PAPER_SHARE = 0.4  # of the width left after the fixed columns


@dataclass(frozen=True)
class Layout:
    """The table's widths, in characters."""

    width: int  # the whole line (the terminal's, at least ``MIN_WIDTH``)
    claim: int  # the claim column
    scale: int  # the scale column
    verdict: int  # the verdict column: ``VERDICT_W``, or the longest label shown
    checks: int  # the checks column
    fixed: int  # the columns before the paper's, with their separators
    paper: int  # the paper column
    measured: int  # the measured column


@dataclass(frozen=True)
class CloseCheck:
    """A close check, spelled out."""

    name: str  # the check's name
    text: str  # its statistic, interval, threshold and the seeds that would decide it (``text.close_text``)


@dataclass(frozen=True)
class Row:
    """One claim test in the table, with the lines under it."""

    claim: str  # the claim's id
    scale: str  # the scale's name, "?" unrecorded
    verdict: str  # the verdict's label, "?" without a verdict
    checks: str  # "passed/total", "-" without checks
    first_prediction: bool  # the first prediction beyond the paper: the predictions' heading goes above it
    paper: str  # the paper's value (a prediction's statement)
    measured: str  # the measured headline, parenthesised parts of names dropped
    test: str | None  # the test's name where its claim has several tests in the run, else None
    reason: str | None  # the first line of the verdict's reason, shown for any verdict but reproduced; else None
    close: tuple[CloseCheck, ...]  # the first close checks (``CLOSE_SHOWN``)
    more_close: int  # close checks beyond those shown
    path: str | None  # the --lengthgen-until-decided path in a line (``text.path_text``), None without one


@dataclass(frozen=True)
class TerminalSummary:
    """What the terminal summary's table and the lines after it show."""

    layout: Layout  # the widths
    rows: tuple[Row, ...]  # the claim tests: the paper's claims, then the predictions
    run: str  # the run's scale and coverage (``Completeness.label``)
    counts: Counts  # the claims' verdicts counted (every claim test's, in a run without claims)
    prediction_counts: Counts | None  # the predictions' verdicts counted, where the run has claims and predictions
    controls: int  # the negative controls in the run
    good_controls: int  # those that discriminate (the claim's checks fail on the counterfactual)
    failing_controls: tuple[Control, ...]  # those that do not
    footer: Footer | None  # None without a recorded environment


def layout(records: Sequence[ClaimRecord], width: int | None) -> Layout:
    """The widths for ``records`` on a terminal ``width`` wide (the terminal's when None)."""
    width = max(width or shutil.get_terminal_size((160, 24)).columns, MIN_WIDTH)
    verdict_w = max([VERDICT_W] + [len(r.label) for r in records if r.verdict])
    fixed = CLAIM_W + 1 + SCALE_W + 1 + verdict_w + 1 + CHECKS_W + 2
    free = width - fixed - 3
    paper_w = int(free * PAPER_SHARE)
    return Layout(width, CLAIM_W, SCALE_W, verdict_w, CHECKS_W, fixed, paper_w, free - paper_w)


def row(r: ClaimRecord, view: RunView, shared: set[str]) -> Row:
    """``r``'s row of the table."""
    passed, total = r.checks_passed
    close = r.close_checks
    return Row(
        claim=r.claim,
        scale=r.scale.get("name", "?"),
        verdict=r.label if r.verdict else "?",
        checks=f"{passed}/{total}" if total else "-",
        first_prediction=bool(view.predictions) and r is view.predictions[0],
        paper=r.statement if r.is_prediction else r.paper_value,
        measured=text.headline(r, compact=True),
        test=r.test_name if r.claim in shared else None,
        reason=r.verdict_reason.splitlines()[0]
        if r.verdict not in (Verdict.REPRODUCED, None) and r.verdict_reason
        else None,
        close=tuple(CloseCheck(c.name, text.close_text(c)) for c in close[:CLOSE_SHOWN]),
        more_close=max(len(close) - CLOSE_SHOWN, 0),
        path=text.path_text(r.looks) if r.looks else None,
    )


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


def summary_view(view: RunView, environment: Mapping[str, Any], width: int | None) -> TerminalSummary:
    """What the terminal summary of ``view`` shows on a terminal ``width`` wide, with ``environment``'s wall time
    and counters."""
    records = view.records
    shared = text.shared_claims(records)
    return TerminalSummary(
        layout=layout(records, width),
        rows=tuple(row(r, view, shared) for r in records),
        run=view.completeness.label,
        counts=tuple(view.verdict_counts("claims" if view.claims else "records").items()),
        prediction_counts=(
            tuple(view.verdict_counts("predictions").items()) if view.predictions and view.claims else None
        ),
        controls=len(view.controls),
        good_controls=sum(1 for c in view.controls if c.discriminates),
        failing_controls=tuple(
            Control(c.claim, c.test_name, c.verdict, (c.verdict_reason or "").splitlines()[0])
            for c in view.controls
            if not c.discriminates
        ),
        footer=footer(environment),
    )


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
    shown = summary_view(view, view.environment if environment is None else environment, width)
    return render_lines(TEMPLATE, summary=shown)


def terminal_lines(view: RunView, width: int | None = None) -> list[str]:
    """What ``pytest claims`` prints at its end: the robustness map and the multiverse as grids (their
    cells never sit among the claims), then the claims table (:func:`summary_lines`); a run of cells
    alone ends with the wall time and cache counters only."""
    lines = map_lines(view.robustness, catalogue=view.catalogue, records=view.records) if view.robustness else []
    lines += grid_lines(view.multiverse, records=view.records, registry=view.registry) if view.multiverse else []
    summary = summary_lines(view, width=width)
    return lines + (summary[-1:] if view.cells and not view.records else summary)
