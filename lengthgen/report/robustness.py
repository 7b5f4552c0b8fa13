"""The robustness map in the report: settings as columns, claims as rows, a verdict in each cell.

Its cells are the records of ``claims/test_robustness.py`` (a claim record with ``setting`` set). In
``claims.json`` they sit under ``"robustness"`` (beside ``"records"`` and ``"controls"``:
``analysis.data.split_settings``), so the claims table shows only the paper's point. A run that holds only one
part (``pytest claims -n auto``, then ``pytest claims -m robustness -n auto``, as CI runs them) keeps the
other part of the ``claims.json`` it finds (``analysis.data.carry_over``), so both end up on one page; the map
says which run produced it. Its columns are the catalogue's settings (``lengthgen.catalogue.ROBUSTNESS``, in the
catalogue's words; how the suite runs each is ``lengthgen.experiments.robustness``, which the report does not
import), its rows the claims whose entry names a setting (the run's catalogue, ``Entry.settings``); which claims
run at a setting and where a claim's cells stand are ``lengthgen.analysis.robustness``.

- :func:`build_map` / :func:`map_lines`: the map as data (``lengthgen robustness --out PATH``) and as text
  (``lengthgen robustness``, the terminal summary of a robustness run);
- :func:`grid_view`: the coloured grid for the page as a view-model (``lengthgen.report.grid``, laid out
  by ``templates/robustness.html.j2``, as the multiverse's), each cell linked to its checks.

The text's words and layout are templates (``templates/text/robustness.txt.j2``, with the pieces both grids share
in ``_grid.j2``); this module computes what it shows (:class:`MapText`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from lengthgen.catalogue import EMPTY, ROBUSTNESS, Catalogue
from lengthgen.analysis.data import claim_number
from lengthgen.report.grid import (
    MARKS,
    MISSING,
    NOT_APPLICABLE,
    CellText,
    Counts,
    Grid,
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
from lengthgen.report.templating import render_lines
from lengthgen.records import ClaimRecord, Verdict
from lengthgen.analysis.robustness import runs_at, spreads, views


GRID_ID = "robustness-grid"  # the page table's id
TEMPLATE = "text/robustness.txt.j2"  # the map's text (under report/templates)
CLAIM_W = 6  # characters of the text's claim column


def cell_id(setting: str, claim: str) -> str:
    """The page anchor of a cell's checks."""
    return f"robustness-{setting}-{claim}"


def build_map(cells: Sequence[ClaimRecord | Mapping[str, Any]], catalogue: Catalogue = EMPTY) -> dict[str, Any]:
    """The map as plain data: the catalogue's settings and the claims that run at them (``catalogue``: the run's),
    and per cell its verdict, reason, seeds and every failed check with its numbers. A cell the catalogue runs
    without a record is ``"missing"``."""
    cells = views(cells)
    by_cell = {(r.setting, r.claim): r for r in cells}
    at = runs_at(catalogue, cells)
    # the catalogue's order; claims it lacks by number (a run that recorded no catalogue)
    claims = sorted({c for ids in at.values() for c in ids}, key=lambda c: (catalogue.order(c), claim_number(c), c))
    out = []
    for s in ROBUSTNESS:
        for claim in claims:
            if claim not in at[s.name]:
                continue
            r = by_cell.get((s.name, claim))
            if r is None:
                out.append({"setting": s.name, "claim": claim, "verdict": "missing"})
                continue
            out.append({"setting": s.name, "claim": claim, **cell_data(r)})
    return {
        "settings": [{"name": s.name, "what": s.what, "claims": list(at[s.name])} for s in ROBUSTNESS],
        "claims": claims,
        "cells": out,
    }


@dataclass(frozen=True)
class MapText:
    """What the robustness map's text shows."""

    marks: Marks  # the marks its legend names
    table: TableText  # the claims as rows, the settings as columns
    cells: int  # the cells the catalogue runs
    counts: Counts  # those cells counted by verdict ("missing" without a record)
    spreads: tuple[tuple[str, str], ...]  # (claim, its cells against the paper's point); none without records
    details: tuple[CellText, ...]  # each recorded cell that did not reproduce; () without details


def map_text(
    cells: Sequence[ClaimRecord], details: bool, catalogue: Catalogue, records: Sequence[ClaimRecord]
) -> MapText:
    """What the text of the map of ``cells`` shows (:func:`map_lines`)."""
    data = build_map(cells, catalogue)
    by_cell = {(r.setting, r.claim): r for r in cells}
    names = [s["name"] for s in data["settings"]]
    planned = {(c["setting"], c["claim"]) for c in data["cells"]}
    rows = []
    for claim in data["claims"]:
        row = []
        for name in names:
            view = by_cell.get((name, claim))
            if (name, claim) not in planned or view is None:
                row.append(NOT_APPLICABLE if (name, claim) not in planned else MISSING)
            else:
                row.append(shown(view))
        rows.append((claim, row))
    spread = spreads(cells, records, catalogue) if records else {}
    return MapText(
        marks=MARKS,
        table=table_text("claim", CLAIM_W, names, rows),
        cells=len(data["cells"]),
        counts=cell_counts(data["cells"]),
        spreads=tuple((claim, s.text()) for claim, s in spread.items()),
        details=tuple(
            cell_text(c, c["claim"], c["setting"])
            for c in data["cells"]
            if details and c["verdict"] not in (Verdict.REPRODUCED, "missing")
        ),
    )


def map_lines(
    cells: Sequence[ClaimRecord | Mapping[str, Any]],
    details: bool = True,
    catalogue: Catalogue = EMPTY,
    records: Sequence[ClaimRecord] = (),
) -> list[str]:
    """The map as text: one row per claim, one column per setting; each claim's cells against its verdict at the
    paper's point (``records``, where given); then each cell that did not reproduce, with its failed checks'
    numbers."""
    shown_map = map_text(views(cells), details, catalogue, records)
    return render_lines(TEMPLATE, grid=shown_map)


def grid_view(
    cells: Sequence[ClaimRecord | Mapping[str, Any]],
    environment: Mapping[str, Any] | None = None,
    catalogue: Catalogue = EMPTY,
) -> Grid | None:
    """The map on the page (None without cells): a coloured grid, each cell a link to its checks below
    it, then one collapsed block per cell with its verdict, reason, scale and checks (failed first)."""
    if not cells:
        return None
    cells = views(cells)
    data = build_map(cells, catalogue)
    by_cell = {(r.setting, r.claim): r for r in cells}
    planned = {(c["setting"], c["claim"]) for c in data["cells"]}
    rows = []
    for claim in data["claims"]:
        keys = [(s["name"], claim) for s in data["settings"]]
        slots = [Slot(by_cell.get(k) if k in planned else None, k in planned, cell_id(*k)) for k in keys]
        rows.append((claim, tuple(grid_cell(slot, slot.view.label if slot.view else "") for slot in slots)))
    blocks = tuple(
        block(by_cell[c["setting"], c["claim"]], cell_id(c["setting"], c["claim"]), c["claim"], f"at {c['setting']}")
        for c in data["cells"]
        if (c["setting"], c["claim"]) in by_cell
    )
    return Grid(
        GRID_ID,
        "claim",
        tuple((s["name"], s["what"]) for s in data["settings"]),
        tuple(rows),
        blocks,
        run_line(environment),
    )
