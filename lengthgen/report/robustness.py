"""The robustness map in the report: settings as columns, claims as rows, a verdict in each cell.

Its cells are the records of ``claims/test_robustness.py`` (a claim record with ``setting`` set). In
``claims.json`` they sit under ``"robustness"`` (beside ``"records"`` and ``"controls"``), so the claims
table shows only the paper's point. A run that holds only one part (``pytest claims -n auto``, then
``pytest claims -m robustness -n auto``, as CI runs them) keeps the other part of the ``claims.json`` it
finds (:func:`carry_over`), so both end up on one page; the map says which run produced it.

- :func:`split_settings`: (records at the paper's point, robustness cells);
- :func:`build_map` / :func:`map_lines`: the map as data (``lengthgen robustness --json``) and as text
  (``lengthgen robustness``, the terminal summary of a robustness run);
- :func:`grid_view`: the coloured grid for the page as a view-model (laid out by
  ``templates/robustness.html.j2``), each cell linked to its checks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from lengthgen.report import text
from lengthgen.report.run_view import STYLES, ClaimView
from lengthgen.report.views import Badge, CheckRow, badge, check_rows


NOT_APPLICABLE = "-"  # a cell the catalogue does not run
MISSING = "?"  # a cell the catalogue runs that has no record in this report
FAILED_SHOWN = 4  # failed checks spelled out per cell in the text map (all of them in the JSON and on the page)
GRID_KINDS = ("na", "missing", "cell")  # the page grid's cells: not run at that setting, no record, a verdict


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


def short(verdict: str) -> str:
    """The text map's one-word cell label (``run_view.VERDICT_STYLES``; an unknown verdict as it is)."""
    return STYLES[verdict].short if verdict in STYLES else verdict


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
                "failed_checks": [{k: list(c.raw[k]) if isinstance(c.raw.get(k), tuple) else c.raw.get(k)
                                   for k in ("name", "value", "op", "threshold", "values")} for c in r.failed_checks],
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
    widths = [max(len(n), 9) for n in names]
    lines = ["robustness map (paper scale; verdict per claim x setting; ~ close call; - not run at that setting; "
             "? no record)",
             f"{'claim':<6}" + " ".join(f"{n:<{w}}" for n, w in zip(names, widths))]
    for claim in data["claims"]:
        row = []
        for name, w in zip(names, widths):
            c = verdicts.get((name, claim))
            if c is None or c["verdict"] == "missing":
                shown = NOT_APPLICABLE if c is None else MISSING
            else:
                shown = short(c["verdict"]) + ("~" if c["label"].endswith("(close)") else "")
            row.append(f"{shown:<{w}}")
        lines.append(f"{claim:<6}" + " ".join(row).rstrip())
    counts: dict[str, int] = {}
    for c in data["cells"]:
        counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
    lines.append(f"{len(data['cells'])} cells: " + ", ".join(f"{n} {v}" for v, n in sorted(counts.items())))
    if details:
        for c in data["cells"]:
            if c["verdict"] in ("reproduced", "missing"):
                continue
            lines.append(f"{c['claim']} at {c['setting']}: {c['label']} ({c['checks_passed']}/{c['checks']} checks)"
                         + (f": {c['reason'].splitlines()[0]}" if c.get("reason") else ""))
            for check in c["failed_checks"][:FAILED_SHOWN]:
                seeds = f" (per seed {text.per_seed(check['values'])})" if check.get("values") else ""
                lines.append(f"    FAIL {check['name']}: {text.num(check['value'], 4)}, needs "
                             f"{text.threshold_text(check['op'], check['threshold'])}{seeds}")
            if len(c["failed_checks"]) > FAILED_SHOWN:
                lines.append(f"    and {len(c['failed_checks']) - FAILED_SHOWN} more failed checks")
    return lines


@dataclass(frozen=True)
class GridCell:
    kind: str  # "na" (the catalogue does not run it), "missing" (no record in this report) or "cell"
    css: str  # the verdict's class ("" unless a cell)
    title: str  # the verdict's reason, else how many checks passed ("" unless a cell)
    href: str  # the anchor of its checks below the grid ("" unless a cell)
    label: str  # the verdict as shown, "(close)" included ("" unless a cell)

    def __post_init__(self) -> None:
        if self.kind not in GRID_KINDS:
            raise ValueError(f"grid cell kind {self.kind!r}: not one of {GRID_KINDS}")


@dataclass(frozen=True)
class GridBlock:
    anchor: str  # the block's id (``cell_id``)
    open: bool  # starts expanded (every cell that did not reproduce)
    claim: str  # "C1"
    setting: str  # the setting's name
    badge: Badge  # the verdict
    checks_passed: int  # checks passed
    checks: int  # checks in all
    scale: str  # the scale's description
    test: str  # the test's name
    reason: str | None  # why the verdict
    rows: tuple[CheckRow, ...]  # every check, failed first


@dataclass(frozen=True)
class Grid:
    settings: tuple[tuple[str, str], ...]  # (name, what it changes) per column
    rows: tuple[tuple[str, tuple[GridCell, ...]], ...]  # (claim, its cell per setting) per row
    blocks: tuple[GridBlock, ...]  # one per recorded cell, in the map's order
    run: tuple[str, str, str] | None  # (started, wall time, models trained) of the run that drew it


def grid_view(cells: Sequence[ClaimView | Mapping[str, Any]],
              environment: Mapping[str, Any] | None = None) -> Grid | None:
    """The map on the page (None without cells): a coloured grid, each cell a link to its checks below
    it, then one collapsed block per cell with its verdict, reason, scale and checks (failed first)."""
    if not cells:
        return None
    cells = views(cells)
    data = build_map(cells)
    by_cell = {(r.setting, r.claim): r for r in cells}
    verdicts = {(c["setting"], c["claim"]): c for c in data["cells"]}
    rows = []
    for claim in data["claims"]:
        row = []
        for s in data["settings"]:
            c = verdicts.get((s["name"], claim))
            if c is None or c["verdict"] == "missing":
                row.append(GridCell("na" if c is None else "missing", "", "", "", ""))
                continue
            cell = by_cell[s["name"], claim]
            row.append(GridCell("cell", cell.css,
                                c.get("reason") or f"{c['checks_passed']} of {c['checks']} checks passed",
                                cell_id(s["name"], claim), c["label"]))
        rows.append((claim, tuple(row)))
    blocks = []
    for c in data["cells"]:
        r = by_cell.get((c["setting"], c["claim"]))
        if r is None:
            continue
        blocks.append(GridBlock(
            cell_id(c["setting"], c["claim"]), c["verdict"] != "reproduced", c["claim"], c["setting"],
            badge(r.verdict), c["checks_passed"], c["checks"], text.scale_text(r.scale),
            r.test, r.verdict_reason, check_rows(sorted(r.checks, key=lambda k: k.passed))))
    run = None
    if environment:
        run = (str(environment.get("started", "?")), text.duration(environment.get("wall_time_s")),
               str(environment.get("models_trained", "?")))
    return Grid(tuple((s["name"], s["what"]) for s in data["settings"]), tuple(rows), tuple(blocks), run)
