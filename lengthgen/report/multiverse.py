"""The multiverse drawn: the grid of ``lengthgen.analysis.multiverse`` (claims as rows, readings as columns,
the suite's own reading first) as plain data (``lengthgen multiverse --out PATH``), as text (``lengthgen
multiverse``, the terminal summary) and as the page's coloured grid, each cell linked to its checks; the
verdicts' display is ``lengthgen.records.verdicts``, the grid machinery the robustness map's
(``lengthgen.report.grid``).

- :func:`build_grid` / :func:`grid_lines`: the grid as plain data and as text;
- :func:`grid_view`: the coloured grid on the page.

The text's words and layout are templates (``templates/text/multiverse.txt.j2``, with the pieces both grids share
in ``_grid.j2``); this module computes what it shows (:class:`MultiverseText`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from lengthgen.registry import EMPTY as NO_REGISTRY
from lengthgen.registry import Registry
from lengthgen.analysis.multiverse import PAPER, PAPER_WHAT, UniverseGrid, cell_id, universe_grid, view_grid
from lengthgen.report.grid import (
    MARKS,
    MISSING,
    NOT_APPLICABLE,
    CellText,
    Counts,
    Grid,
    GridCell,
    Marks,
    Slot,
    TableText,
    block,
    cell_counts,
    cell_data,
    cell_text,
    grid_cell,
    run_line,
    shown,
    table_text,
)
from lengthgen.report.templating import render_macro, render_lines
from lengthgen.records import ClaimRecord
from lengthgen.records.check import fit_text
from lengthgen.analysis.run_view import RunView

GRID_ID = "multiverse-grid"  # the page table's id
TEMPLATE = "text/multiverse.txt.j2"  # the grid's text (under report/templates)
PIECES = "text/_grid.j2"  # the text grids' pieces: a ruled-out reading's line


def slot_at(grid: UniverseGrid, reading: str, row: str) -> Slot:
    """The cell (``reading``, ``row``) to draw: its recorded cell, whether the registry runs it, its anchor."""
    planned = (reading, row) in grid.planned or (reading, row) in grid.cells
    return Slot(grid.cells.get((reading, row)), planned, cell_id(reading, row))


def build_grid(
    cells: Sequence[ClaimRecord | Mapping[str, Any]],
    records: Sequence[ClaimRecord | Mapping[str, Any]] = (),
    registry: Registry = NO_REGISTRY,
) -> dict[str, Any]:
    """The grid as plain data: the readings, the rows ("columns": claims, C12/C13 per width) with their
    verdict at the paper's point, and per cell the registry runs its verdict (``"missing"`` without a
    record), label, whether it differs from the paper's point, reason, seeds and failed checks."""
    g = universe_grid(cells, records, registry)
    out = []
    for reading, _ in g.readings:
        for row in g.rows:
            slot = slot_at(g, reading, row)
            if not slot.planned:
                continue
            c = slot.view
            if c is None:
                out.append({"reading": reading, "column": row, "verdict": "missing"})
                continue
            out.append(
                {"reading": reading, "column": row, "claim": c.claim, **cell_data(c, changed=g.changed(reading, row))}
            )
    return {
        "readings": [{"name": n, "what": what, "claims": list(registry.plan.claims_of(n))} for n, what in g.readings],
        "columns": list(g.rows),
        "paper": {row: (v.label if v is not None else None) for row, v in g.paper.items()},
        "cells": out,
        "left_out": [{"reading": u, "claim": c, "why": why} for u, c, why in g.left_out],
    }


@dataclass(frozen=True)
class RuledOut:
    """A reading alone that rules cells out."""

    reading: str  # the reading's name
    cells: int  # the cells it rules out
    fit: str  # which models fail its preconditions and which fit, with their numbers (``records.check.fit_text``)


@dataclass(frozen=True)
class MultiverseText:
    """What the multiverse's text shows."""

    marks: Marks  # the marks its legend names
    paper: str  # the first column's name: the suite's own reading (``analysis.multiverse.PAPER``)
    table: TableText  # the rows (claims, C12/C13 per width), the suite's reading, then a column per reading
    cells: int  # the cells the registry runs
    counts: Counts  # those cells counted by verdict ("missing" without a record)
    left_out: int  # cells left to the extended run that this run's selection could have held (0: none)
    left_rows: tuple[str, ...]  # the rows those cells are of, in the catalogue's order
    ruled_out: tuple[RuledOut, ...]  # the readings alone that rule cells out
    details: tuple[CellText, ...]  # each recorded cell whose verdict differs from the paper's point; () without details


def multiverse_text(
    cells: Sequence[ClaimRecord | Mapping[str, Any]],
    details: bool,
    records: Sequence[ClaimRecord | Mapping[str, Any]],
    registry: Registry,
) -> MultiverseText:
    """What the text of the multiverse of ``cells`` shows (:func:`grid_lines`)."""
    g = universe_grid(cells, records, registry)
    data = build_grid(cells, records, registry)
    names = [n for n, _ in g.readings]
    rows = []
    for row in g.rows:
        base = g.paper.get(row)
        shown_row = [shown(base) if base is not None else MISSING if records else NOT_APPLICABLE]
        for reading in names:
            slot = slot_at(g, reading, row)
            shown_row.append(NOT_APPLICABLE if not slot.planned else MISSING if slot.view is None else shown(slot.view))
        rows.append((row, shown_row))
    first = max([len("claim")] + [len(r) for r in g.rows]) + 1
    left = left_out(g)
    spelled = []
    for c in data["cells"] if details else ():
        if c["verdict"] == "missing" or not c["changed"]:
            continue
        base = g.paper.get(c["column"])
        spelled.append(cell_text(c, c["column"], c["reading"], base.label if base is not None else None))
    return MultiverseText(
        marks=MARKS,
        paper=PAPER,
        table=table_text("claim", first, [PAPER] + names, rows),
        cells=len(data["cells"]),
        counts=cell_counts(data["cells"]),
        left_out=len(left),
        left_rows=tuple(sorted(dict.fromkeys(row for _, row in left), key=g.catalogue.column_order)),
        ruled_out=ruled_out(g),
        details=tuple(spelled),
    )


def grid_lines(
    cells: Sequence[ClaimRecord | Mapping[str, Any]],
    details: bool = True,
    records: Sequence[ClaimRecord | Mapping[str, Any]] = (),
    registry: Registry = NO_REGISTRY,
) -> list[str]:
    """The grid as text: one row per claim, the suite's reading first, then one column per reading; then
    each cell whose verdict differs from the paper's point, with its failed checks' numbers."""
    shown_grid = multiverse_text(cells, details, records, registry)
    return render_lines(TEMPLATE, grid=shown_grid)


def left_out(grid: UniverseGrid) -> list[tuple[str, str]]:
    """The cells left to the extended run (``-m multiverse_extended``) that this run's selection could have held,
    as (reading, row): of the rows it recorded a cell of, the left-out cells it did not record."""
    rows = {row for _, row in grid.cells}
    return sorted((u, row) for u, row in grid.extended if row in rows and (u, row) not in grid.cells)


def ruled_out(grid: UniverseGrid) -> tuple[RuledOut, ...]:
    """Per reading alone that rules cells out, which models fail its preconditions and which fit, with their
    numbers (over its ruled-out cells)."""
    out = []
    for reading, _ in grid.readings:
        if "+" in reading:
            continue
        cells = [c for (u, _), c in grid.cells.items() if u == reading and c.ruled_out is not None]
        if not cells:
            continue
        checks = {p.name: p for c in cells for p in c.preconditions}
        out.append(RuledOut(reading, len(cells), fit_text(list(checks.values()))))
    return tuple(out)


def ruled_out_lines(grid: UniverseGrid) -> list[str]:
    """:func:`ruled_out` in lines: "init=gpt2 (24 cells): the RoPE models do not fit in range (0.54-0.60); APE fits
    (1.00)"."""
    return [render_macro(PIECES, "ruled_out_line", r) for r in ruled_out(grid)]


CONSEQUENTIAL_MARK = "\u25c6"  # after a cell's word: the claim hinges on this reading (its main effect excludes 0)


def marked(cell: GridCell, hinges: bool) -> GridCell:
    """``cell`` with the consequential mark and its tooltip, where the row's claim ``hinges`` on its reading."""
    if not hinges:
        return cell
    why = "the claim hinges on this reading: its main effect on the curve's check excludes 0"
    return dataclasses.replace(cell, label=f"{cell.label} {CONSEQUENTIAL_MARK}", title=f"{why}; {cell.title}")


def grid_view(
    view: RunView, anchors: Mapping[str, str] | None = None, consequential: frozenset[tuple[str, str]] = frozenset()
) -> Grid | None:
    """The multiverse on the page (None without cells): claims as rows, the suite's reading first (linked to
    the claim's section: ``anchors``, test id -> anchor), then a column per reading, each cell coloured by its
    verdict with its short word and linked to its checks below the grid; a cell of ``consequential`` ((reading,
    row) pairs: the row's claim hinges on the reading, ``specification.CurveView.hinges_on``) is marked."""
    g = view_grid(view)
    if g is None:
        return None
    anchors = anchors or {}
    rows = []
    for row in g.rows:
        base = g.paper.get(row)
        paper = grid_cell(
            Slot(base, True, anchors.get(base.test, "") if base is not None else ""),
            shown(base) if base is not None else "",
        )
        cells = [
            marked(grid_cell(slot, shown(slot.view) if slot.view else ""), (n, row) in consequential)
            for n, slot in ((n, slot_at(g, n, row)) for n, _ in g.readings)
        ]
        rows.append((row, (paper, *cells)))
    blocks = tuple(
        block(g.cells[n, row], cell_id(n, row), row, f"under {n}")
        for n, _ in g.readings
        for row in g.rows
        if (n, row) in g.cells
    )
    return Grid(
        GRID_ID,
        "claim",
        ((PAPER, PAPER_WHAT),) + g.readings,
        tuple(rows),
        blocks,
        run_line(view.multiverse_environment),
    )
