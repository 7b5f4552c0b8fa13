"""The robustness map in the report: settings as columns, claims as rows, a verdict in each cell.

Its cells are the records of ``claims/test_robustness.py`` (a claim record with ``setting`` set). In
``claims.json`` they sit under ``"robustness"`` (beside ``"records"`` and ``"controls"``), so the claims
table shows only the paper's point. A run that holds only one part (``pytest claims -n auto``, then
``pytest claims -m robustness -n auto``, as CI runs them) keeps the other part of the ``claims.json`` it
finds (:func:`carry_over`), so both end up on one page; the map says which run produced it.

- :func:`split_settings`: (records at the paper's point, robustness cells);
- :func:`build_map` / :func:`map_lines`: the map as data (``lengthgen robustness --json``) and as text
  (``lengthgen robustness``, the terminal summary of a robustness run);
- :func:`grid_view`: the coloured grid for the page as a view-model (``lengthgen.report.grid``, laid out
  by ``templates/robustness.html.j2``, as the multiverse's), each cell linked to its checks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from lengthgen.report import text
from lengthgen.report.grid import (FAILED_SHOWN, MISSING, NOT_APPLICABLE, Grid, GridBlock, GridCell, Slot,  # noqa: F401
                                   block, counts_line, failed_check, failed_lines, grid_cell, run_line, short,
                                   table_lines)
from lengthgen.report.run_view import ClaimView


GRID_ID = "robustness-grid"  # the page table's id


def split_settings(records: Sequence[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """``(records at the paper's point, robustness cells)`` (a cell is a record with a ``setting``)."""
    return [r for r in records if not r.get("setting")], [r for r in records if r.get("setting")]


def carry_over(data: dict[str, Any], previous_path: Path) -> dict[str, Any]:
    """``data`` with the parts this run did not produce taken from the ``claims.json`` at ``previous_path``
    (if one is there and readable): a robustness-only (multiverse-only) run keeps the claims and the other
    grid, a claims run keeps both grids."""
    try:
        previous = json.loads(Path(previous_path).read_text())
    except (OSError, ValueError):
        return data
    if not isinstance(previous, dict):
        return data
    data = dict(data)
    if not data.get("records") and not data.get("controls") and (data.get("robustness") or data.get("multiverse")):
        for key in ("records", "controls", "environment"):
            if key in previous:
                data[key] = previous[key]
    for part in ("robustness", "multiverse"):  # the map's cells, the multiverse's cells
        if not data.get(part) and previous.get(part):
            data[part] = previous[part]
            data[f"{part}_environment"] = previous.get(f"{part}_environment") or {}
    return data


def cell_id(setting: str, claim: str) -> str:
    """The page anchor of a cell's checks."""
    return f"robustness-{setting}-{claim}"


def views(cells: Sequence[ClaimView | Mapping[str, Any]]) -> list[ClaimView]:
    """The cells' views (records are parsed: ``ClaimView.parse``)."""
    return [text.view(c) for c in cells]


def build_map(cells: Sequence[ClaimView | Mapping[str, Any]]) -> dict[str, Any]:
    """The map as plain data: the catalogue's settings and claims, and per cell its verdict, reason, seeds
    and every failed check with its numbers. A cell the catalogue runs without a record is ``"missing"``."""
    from lengthgen.experiments.robustness import SETTINGS

    cells = views(cells)
    by_cell = {(r.setting, r.claim): r for r in cells}
    claims = sorted({c for s in SETTINGS for c in s.claims} | {r.claim for r in cells}, key=text.claim_number)
    out = []
    for s in SETTINGS:
        for claim in claims:
            if claim not in s.claims:
                continue
            r = by_cell.get((s.name, claim))
            if r is None:
                out.append({"setting": s.name, "claim": claim, "verdict": "missing"})
                continue
            passed, total = r.checks_passed
            out.append({
                "setting": s.name, "claim": claim, "verdict": r.verdict, "label": r.verdict_label,
                "reason": r.raw.get("verdict_reason"), "test": r.raw.get("test"), "checks_passed": passed,
                "checks": total, "seeds": r.scale.raw.get("seed_list"),
                "failed_checks": [failed_check(c.raw) for c in r.failed_checks],
                "runtime_s": r.runtime_s,
            })
    return {"settings": [{"name": s.name, "what": s.what, "claims": list(s.claims)} for s in SETTINGS],
            "claims": claims, "cells": out}


def map_lines(cells: Sequence[ClaimView | Mapping[str, Any]], details: bool = True) -> list[str]:
    """The map as text: one row per claim, one column per setting; then each cell that did not reproduce,
    with its failed checks' numbers."""
    data = build_map(cells)
    names = [s["name"] for s in data["settings"]]
    verdicts = {(c["setting"], c["claim"]): c for c in data["cells"]}
    rows = []
    for claim in data["claims"]:
        row = []
        for name in names:
            c = verdicts.get((name, claim))
            if c is None or c["verdict"] == "missing":
                row.append(NOT_APPLICABLE if c is None else MISSING)
            else:
                row.append(short(c["verdict"]) + ("~" if c["label"].endswith("(close)") else ""))
        rows.append((claim, row))
    lines = ["robustness map (paper scale; verdict per claim x setting; ~ close call; - not run at that setting; "
             "? no record)"] + table_lines("claim", 6, names, rows)
    lines.append(counts_line(data["cells"]))
    if details:
        for c in data["cells"]:
            if c["verdict"] in ("reproduced", "missing"):
                continue
            lines.append(f"{c['claim']} at {c['setting']}: {c['label']} ({c['checks_passed']}/{c['checks']} checks)"
                         + (f": {c['reason'].splitlines()[0]}" if c.get("reason") else ""))
            lines += failed_lines(c["failed_checks"])
    return lines


def grid_view(cells: Sequence[ClaimView | Mapping[str, Any]],
              environment: Mapping[str, Any] | None = None) -> Grid | None:
    """The map on the page (None without cells): a coloured grid, each cell a link to its checks below
    it, then one collapsed block per cell with its verdict, reason, scale and checks (failed first)."""
    if not cells:
        return None
    cells = views(cells)
    data = build_map(cells)
    by_cell = {(r.setting, r.claim): r for r in cells}
    planned = {(c["setting"], c["claim"]) for c in data["cells"]}
    rows = []
    for claim in data["claims"]:
        keys = [(s["name"], claim) for s in data["settings"]]
        slots = [Slot(by_cell.get(k) if k in planned else None, k in planned, cell_id(*k)) for k in keys]
        rows.append((claim, tuple(grid_cell(slot, slot.view.verdict_label if slot.view else "") for slot in slots)))
    blocks = tuple(block(by_cell[c["setting"], c["claim"]], cell_id(c["setting"], c["claim"]), c["claim"],
                         f"at {c['setting']}")
                   for c in data["cells"] if (c["setting"], c["claim"]) in by_cell)
    return Grid(GRID_ID, "claim", tuple((s["name"], s["what"]) for s in data["settings"]), tuple(rows), blocks,
                run_line(environment))
