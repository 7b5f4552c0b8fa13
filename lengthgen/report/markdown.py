"""The run's verdict table as GitHub-flavoured markdown (a job summary, a pull-request comment), rendered
from the typed view of a run (:class:`lengthgen.analysis.run_view.RunView`).

:func:`summary_markdown`: a heading with the run's scale and coverage; the verdict table (id, variant,
verdict, paper, measured, close; and "under other readings" when the run has a multiverse part) of the
paper's claims, then the predictions'; a line of verdict counts; the negative controls' tally; the
robustness map's and the multiverse's cells as compact tables (claims as rows, settings or readings as
columns; the multiverse's from the page's data, ``report.multiverse``, the suite's reading first) when the
run has them; the wall time and cache counters.

The words and the layout are the template's (``templates/text/markdown.md.j2``); this module computes what it
shows (:class:`MarkdownSummary`), every cell escaped by the template's ``cell`` filter
(``report.templating.cell``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from lengthgen.catalogue import ROBUSTNESS
from lengthgen.analysis import multiverse as mv
from lengthgen.report.multiverse import slot_at
from lengthgen.report import text
from lengthgen.report.templating import cell, render_text
from lengthgen.report.views import Control, Counts, Footer, footer
from lengthgen.analysis.data import claim_number
from lengthgen.analysis.outcome import Outcome
from lengthgen.records import ClaimRecord
from lengthgen.records.verdicts import label_order
from lengthgen.analysis.run_view import RunView

__all__ = ["cell", "close_cell", "summary_markdown", "test_ids"]

TEMPLATE = "text/markdown.md.j2"  # the markdown summary's template (under report/templates)
CONTROLS_LISTED = 10  # controls that did not discriminate, listed by name (the rest are counted)


@dataclass(frozen=True)
class VerdictRow:
    """One claim test's row of the verdict table."""

    claim: str  # the claim's id
    variant: str  # the test's parameters; its function too when several test functions record the claim
    verdict: str  # the verdict as a table cell, bold unless reproduced (``verdict_cell``)
    paper: str  # the paper's value (a prediction's statement)
    measured: str  # the measured headline, parenthesised parts of names dropped
    close: str  # "close (n checks)" for a close call, else ""
    readings: str  # what the other readings do to the verdict ("" without a multiverse outcome)
    changes: bool  # the other readings change the verdict: ``readings`` shown in bold


@dataclass(frozen=True)
class Controls:
    """The negative controls' tally."""

    good: int  # controls that discriminate (the claim's checks fail on the counterfactual)
    total: int  # controls in the run
    listed: tuple[Control, ...]  # the first ones that do not discriminate (``CONTROLS_LISTED``)
    more: int  # those that do not discriminate beyond the listed ones


@dataclass(frozen=True)
class Grid:
    """The robustness map's or the multiverse's cells as a compact table."""

    cells: int  # the cells of the run's part
    counts: Counts  # the cells' verdict labels counted
    header: tuple[str, ...]  # the table's header: "claim", then a column per setting or reading
    rows: tuple[tuple[str, ...], ...]  # a row per claim: its name, then the verdict label per column


@dataclass(frozen=True)
class MarkdownSummary:
    """What the markdown summary shows."""

    run: str  # the run's scale and coverage (``Completeness.label``)
    readings: bool  # the tables have the "under other readings" column (the run has a multiverse part)
    claims: tuple[VerdictRow, ...]  # the paper's claim tests
    claim_counts: Counts  # their verdicts counted
    predictions: tuple[VerdictRow, ...]  # the predictions beyond the paper
    prediction_counts: Counts  # their verdicts counted
    any_records: bool  # the run holds claim tests at the paper's point
    controls: Controls | None  # the negative controls' tally; None without controls
    robustness: Grid | None  # the robustness map; None without its cells
    multiverse: Grid | None  # the multiverse; None without its cells
    close_note: bool  # a label says "(close)": the note saying what it means is shown
    footer: Footer | None  # None without a recorded environment


def close_cell(claim: ClaimRecord) -> str:
    """ "close (n checks)" for a close call (its close deciding checks' count), else ""."""
    n = len(claim.close_checks)
    return f"close ({n} check{'s' if n != 1 else ''})" if n else ""


def function(claim: ClaimRecord) -> str:
    """The test function's name without ``test_`` and parameters."""
    return claim.test_name.split("[", 1)[0].removeprefix("test_")


def variant(claim: ClaimRecord, several: bool) -> str:
    """The variant column: the test's parameters, and its function when the claim has ``several``."""
    if not several:
        return claim.variant
    return f"{claim.variant} ({function(claim)})" if claim.variant else function(claim)


def variants(claims: Sequence[ClaimRecord]) -> list[str]:
    """Each claim test's variant column (:func:`variant`), its function named where several test functions record
    its claim."""
    functions: dict[str, set[str]] = {}
    for c in claims:
        functions.setdefault(c.claim, set()).add(function(c))
    return [variant(c, len(functions[c.claim]) > 1) for c in claims]


def test_ids(claims: Sequence[ClaimRecord]) -> list[str]:
    """Each claim test's id in a table: the claim, and its variant (its function too when several test functions
    record the claim), e.g. "C12 d64", "C19 alibi (selects_the_target_like_rope)"."""
    return [f"{c.claim} {v}".strip() for c, v in zip(claims, variants(claims))]


def verdict_cell(claim: ClaimRecord) -> str:
    """A claim test's verdict as a table cell, bold unless reproduced ("unknown" without a verdict): the summary's
    verdict tables and the documents' (``templates/docs/_shared.md.j2``, the ``verdict_cell`` filter)."""
    shown = cell(claim.label if claim.verdict else "unknown")
    return shown if claim.verdict is not None and claim.verdict.plain else f"**{shown}**"


def verdict_rows(
    claims: Sequence[ClaimRecord], readings: Mapping[str, mv.RowOutcome | None] | None = None
) -> tuple[VerdictRow, ...]:
    """One row per claim test; given ``readings`` (each test's multiverse outcome by test id), what the other
    readings do to the verdict (``multiverse.RowOutcome.text``)."""
    rows = []
    for c, shown in zip(claims, variants(claims)):
        outcome = readings.get(c.test) if readings is not None else None
        rows.append(
            VerdictRow(
                claim=c.claim,
                variant=shown,
                verdict=verdict_cell(c),
                paper=c.statement if c.is_prediction else c.paper_value,
                measured=text.headline(c, compact=True),
                close=close_cell(c),
                readings=outcome.text() if outcome is not None else "",
                changes=outcome is not None and outcome.state is Outcome.OTHER_WAY,
            )
        )
    return tuple(rows)


def counted(labels: Sequence[str]) -> Counts:
    """The verdict labels counted, in the report's order of labels."""
    return tuple((v, labels.count(v)) for v in label_order(labels))


def grid(cells: Sequence[ClaimRecord], column: str, order: Sequence[str] = ()) -> Grid:
    """Cells as a compact table: a row per claim (and variant), a column per ``column`` ("setting" or
    "reading": the names in ``order`` first, then the rest in order of appearance), the verdict label in
    each cell ("" where that claim has none)."""
    seen = list(dict.fromkeys(getattr(c, column) or "?" for c in cells))
    columns = [n for n in order if n in seen] + [n for n in seen if n not in order]
    rows: dict[str, dict[str, str]] = {}
    for c in sorted(cells, key=lambda c: (claim_number(c.claim), c.claim)):
        row = f"{c.claim} {c.variant}".strip() if column == "reading" else c.claim
        rows.setdefault(row, {})[getattr(c, column) or "?"] = c.label
    return Grid(
        len(cells),
        counted([c.label for c in cells]),
        ("claim", *columns),
        tuple((row, *(shown.get(n, "") for n in columns)) for row, shown in rows.items()),
    )


def multiverse_grid(view: RunView) -> Grid:
    """The multiverse as a compact table, from the page's data (``multiverse.universe_grid``): a row per
    claim with a recorded cell, the suite's reading first, then each reading with a recorded cell, the
    verdict label in each cell ("" where the reading does not run the claim, "?" without a record)."""
    g = mv.view_grid(view)
    readings = [n for n, _ in g.readings if any((n, row) in g.cells for row in g.rows)] if g is not None else []
    rows = []
    for row in (r for r in g.rows if any((n, r) in g.cells for n in readings)) if g is not None else ():
        base = g.paper.get(row)
        shown = [base.label if base is not None else "?"]
        for n in readings:
            slot = slot_at(g, n, row)
            shown.append(slot.view.label if slot.view is not None else "?" if slot.planned else "")
        rows.append((row, *shown))
    cells = view.multiverse
    header = ("claim", mv.PAPER, *readings) if g is not None else ()
    return Grid(len(cells), counted([c.label for c in cells]), header, tuple(rows))


def controls(view: RunView) -> Controls | None:
    """The negative controls' tally, and the first of those that do not discriminate."""
    if not view.controls:
        return None
    bad = [c for c in view.controls if not c.discriminates]
    listed = tuple(
        Control(
            c.claim,
            c.test_name,
            c.verdict or "unknown",
            (c.verdict_reason or "").splitlines()[0] if c.verdict_reason else "",
        )
        for c in bad[:CONTROLS_LISTED]
    )
    return Controls(len(view.controls) - len(bad), len(view.controls), listed, max(len(bad) - CONTROLS_LISTED, 0))


def summary_view(view: RunView) -> MarkdownSummary:
    """What the markdown summary of ``view`` shows."""
    universes = mv.view_grid(view)  # None without a multiverse part: no column
    readings = None
    if universes is not None:
        found = mv.outcomes(universes)
        readings = {c.test: mv.outcome_for(universes, c, found) for c in view.records}
    return MarkdownSummary(
        run=view.completeness.label,
        readings=universes is not None,
        claims=verdict_rows(view.claims, readings),
        claim_counts=tuple(view.verdict_counts("claims").items()),
        predictions=verdict_rows(view.predictions, readings),
        prediction_counts=tuple(view.verdict_counts("predictions").items()),
        any_records=bool(view.records),
        controls=controls(view),
        robustness=grid(view.robustness, "setting", [s.name for s in ROBUSTNESS]) if view.robustness else None,
        multiverse=multiverse_grid(view) if view.multiverse else None,
        close_note=any(c.labelled_close for c in view.records + view.cells),
        footer=footer(view.environment),
    )


def summary_markdown(view: RunView) -> str:
    """The run's summary as GitHub-flavoured markdown (ends with a newline)."""
    return render_text(TEMPLATE, summary=summary_view(view))
