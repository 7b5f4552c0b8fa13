"""The run's verdict table as GitHub-flavoured markdown (a job summary, a pull-request comment), rendered
from the typed view of a run (:class:`lengthgen.analysis.run_view.RunView`).

:func:`summary_markdown`: a heading with the run's scale and coverage; the verdict table (id, variant,
verdict, paper, measured, close; and "under other readings" when the run has a multiverse part) of the
paper's claims, then the predictions'; a line of verdict counts; the negative controls' tally; the
robustness map's and the multiverse's cells as compact tables (claims as rows, settings or readings as
columns; the multiverse's from the page's data, ``report.multiverse``, the suite's reading first) when the
run has them; the wall time and cache counters.
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping, Sequence

from lengthgen.catalogue import ROBUSTNESS
from lengthgen.analysis import multiverse as mv
from lengthgen.report.multiverse import slot_at
from lengthgen.report import text
from lengthgen.analysis.data import claim_number
from lengthgen.analysis.outcome import Outcome
from lengthgen.records import ClaimRecord
from lengthgen.records.verdicts import label_order
from lengthgen.analysis.run_view import RunView

CELL_CHARS = 160  # characters of a paper value or a measured headline in a table cell ("..." beyond)
READINGS_CHARS = 400  # characters of the "under other readings" cell (several readings with their numbers)
CONTROLS_LISTED = 10  # controls that did not discriminate, listed by name (the rest are counted)
TITLE = "lengthgen claims"


def cell(value: object, limit: int = CELL_CHARS) -> str:
    """``value`` as one table cell: one line, pipes escaped, ``<`` and ``>`` as entities (no HTML gets in),
    at most ``limit`` characters."""
    shown = re.sub(r"\s+", " ", str(value)).strip()
    if len(shown) > limit:
        shown = shown[: limit - 3].rstrip() + "..."
    return shown.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """A GitHub-flavoured markdown table (cells already escaped with :func:`cell`)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


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


def test_ids(claims: Sequence[ClaimRecord]) -> list[str]:
    """Each claim test's id in a table: the claim, and its variant (its function too when several test functions
    record the claim), e.g. "C12 d64", "C19 alibi (selects_the_target_like_rope)"."""
    functions: dict[str, set[str]] = {}
    for c in claims:
        functions.setdefault(c.claim, set()).add(function(c))
    return [f"{c.claim} {variant(c, len(functions[c.claim]) > 1)}".strip() for c in claims]


def verdict_cell(claim: ClaimRecord) -> str:
    """A claim test's verdict as a table cell, bold unless reproduced ("unknown" without a verdict): the summary's
    verdict tables and the documents' (``templates/docs/_shared.md.j2``, the ``verdict_cell`` filter)."""
    shown = cell(claim.label if claim.verdict else "unknown")
    return shown if claim.verdict is not None and claim.verdict.plain else f"**{shown}**"


def verdict_rows(
    claims: Sequence[ClaimRecord], readings: Mapping[str, mv.RowOutcome | None] | None = None
) -> list[list[str]]:
    """One row per claim test: id, variant (the test's parameters; its function too when several test
    functions record the claim), verdict (bold unless reproduced), paper value (a prediction's
    statement), measured headline, close; and, given ``readings`` (each test's multiverse outcome by test
    id), what the other readings do to the verdict (``multiverse.RowOutcome.text``, bold when it changes)."""
    functions: dict[str, set[str]] = {}
    for c in claims:
        functions.setdefault(c.claim, set()).add(function(c))
    rows = []
    for c in claims:
        row = [
            cell(c.claim),
            cell(variant(c, len(functions[c.claim]) > 1)),
            verdict_cell(c),
            cell(c.statement if c.is_prediction else c.paper_value),
            cell(text.headline(c, compact=True)),
            close_cell(c),
        ]
        if readings is not None:
            outcome = readings.get(c.test)
            said = cell(outcome.text(), READINGS_CHARS) if outcome is not None else ""
            row.append(f"**{said}**" if outcome is not None and outcome.state is Outcome.OTHER_WAY else said)
        rows.append(row)
    return rows


def counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {v}" for v, n in counts.items()) or "none"


def grid(cells: Sequence[ClaimRecord], column: str, order: Sequence[str] = ()) -> list[str]:
    """Cells as a compact table: a row per claim (and variant), a column per ``column`` ("setting" or
    "reading": the names in ``order`` first, then the rest in order of appearance), the verdict label in
    each cell ("" where that claim has none)."""
    seen = list(dict.fromkeys(getattr(c, column) or "?" for c in cells))
    columns = [n for n in order if n in seen] + [n for n in seen if n not in order]
    rows: dict[str, dict[str, str]] = {}
    for c in sorted(cells, key=lambda c: (claim_number(c.claim), c.claim)):
        row = f"{c.claim} {c.variant}".strip() if column == "reading" else c.claim
        rows.setdefault(row, {})[getattr(c, column) or "?"] = c.label
    return table(
        ["claim"] + [cell(n) for n in columns],
        ([cell(row)] + [cell(shown.get(n, "")) for n in columns] for row, shown in rows.items()),
    )


def multiverse_grid(view: RunView) -> list[str]:
    """The multiverse as a compact table, from the page's data (``multiverse.universe_grid``): a row per
    claim with a recorded cell, the suite's reading first, then each reading with a recorded cell, the
    verdict label in each cell ("" where the reading does not run the claim, "?" without a record)."""
    g = mv.view_grid(view)
    if g is None:
        return []
    readings = [n for n, _ in g.readings if any((n, row) in g.cells for row in g.rows)]
    rows = []
    for row in (r for r in g.rows if any((n, r) in g.cells for n in readings)):
        base = g.paper.get(row)
        shown = [base.label if base is not None else "?"]
        for n in readings:
            slot = slot_at(g, n, row)
            shown.append(slot.view.label if slot.view is not None else "?" if slot.planned else "")
        rows.append([cell(row)] + [cell(v) for v in shown])
    return table(["claim", mv.PAPER] + [cell(n) for n in readings], rows)


def setting_order() -> list[str]:
    """The robustness settings in the catalogue's order (``lengthgen.catalogue.ROBUSTNESS``)."""
    return [s.name for s in ROBUSTNESS]


def cell_counts(cells: Sequence[ClaimRecord]) -> str:
    labels = [c.label for c in cells]
    return counts_text({v: labels.count(v) for v in label_order(labels)})


def summary_markdown(view: RunView) -> str:
    """The run's summary as GitHub-flavoured markdown (ends with a newline)."""
    lines = [f"## {TITLE}: {view.completeness.label}", ""]
    header = ["id", "variant", "verdict", "paper", "measured", "close"]
    universes = mv.view_grid(view)  # None without a multiverse part: no column
    readings = None
    if universes is not None:
        header.append("under other readings")
        found = mv.outcomes(universes)
        readings = {c.test: mv.outcome_for(universes, c, found) for c in view.records}
    if view.claims:
        lines += table(header, verdict_rows(view.claims, readings)) + [""]
        lines.append(f"**Claims:** {counts_text(view.verdict_counts('claims'))}")
    if view.predictions:
        lines += ["", "### Predictions beyond the paper (the paper column gives the prediction)", ""]
        lines += table(header, verdict_rows(view.predictions, readings)) + [""]
        lines.append(f"**Predictions:** {counts_text(view.verdict_counts('predictions'))}")
    if not view.records:
        lines.append("No claim tests at the paper's point in this run.")
    if view.controls:
        good = sum(1 for c in view.controls if c.discriminates)
        lines += [
            "",
            f"**Negative controls:** {good} of {len(view.controls)} discriminate (the claim's checks fail "
            f"on the counterfactual)",
        ]
        bad = [c for c in view.controls if not c.discriminates]
        lines += [
            f"- control {cell(c.claim)} `{cell(c.test_name)}`: **{cell(c.verdict or 'unknown')}**: "
            f"{cell((c.verdict_reason or '').splitlines()[0] if c.verdict_reason else '')}"
            for c in bad[:CONTROLS_LISTED]
        ]
        if len(bad) > CONTROLS_LISTED:
            lines.append(f"- and {len(bad) - CONTROLS_LISTED} more")
    for cells, column, heading in (
        (view.robustness, "setting", "Robustness map"),
        (view.multiverse, "reading", "Multiverse"),
    ):
        if cells:
            lines += ["", f"### {heading} ({len(cells)} cells: {cell_counts(cells)})", ""]
            lines += grid(cells, column, setting_order()) if column == "setting" else multiverse_grid(view)
    if any(c.labelled_close for c in view.records + view.cells):
        lines += [
            "",
            "_(close): a deciding check's interval contains its threshold; more seeds could turn the verdict._",
        ]
    env = view.environment
    if env:
        fingerprint = f"; code fingerprint `{cell(env['code_fingerprint'])}`" if env.get("code_fingerprint") else ""
        lines += [
            "",
            f"wall time {text.duration(env.get('wall_time_s'))}; models trained "
            f"{env.get('models_trained', 0)}, from the cache {env.get('models_from_cache', 0)}{fingerprint}",
        ]
    return "\n".join(lines) + "\n"
