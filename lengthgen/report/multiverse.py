"""The multiverse in the report: readings as rows, claims as columns, a verdict in each cell.

Its cells are the records of ``claims/test_multiverse.py`` (a claim record with ``reading`` set); in
``claims.json`` they sit under ``"multiverse"`` (``lengthgen.report.data.assemble``; a multiverse-only run
keeps the rest of the ``claims.json`` it finds, ``lengthgen.report.robustness.carry_over``).

- :func:`build_grid`: the grid as plain data (``lengthgen multiverse --json``): the readings, the columns
  (C12/C13 per width), per cell its verdict, reason and failed checks with their numbers;
- :func:`grid_lines`: the grid as text (``lengthgen multiverse``);
- :func:`claim_summary`: per claim, "holds under every reading" or the readings under which its verdict
  changes (the claims table's column).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

FAILED_SHOWN = 4  # failed checks spelled out per cell in the text grid (all of them in the JSON)
SHORT = {"reproduced": "ok", "not reproduced": "not-repr", "failed": "FAILED", "inconclusive": "inconcl",
         "skipped": "skipped", "error": "ERROR", "unexpectedly reproduced": "unexp-ok",
         "not reproduced (undeclared)": "undecl"}  # one word per verdict in the text grid
NOT_RUN = "-"  # a cell the multiverse does not run (the reading does not touch the claim, or it is left out)
MISSING = "?"  # a cell the multiverse runs without a record in this report


def column_of(record: Mapping[str, Any]) -> str:
    """The grid column of a cell's record: its claim, with "-d64" for C12/C13's first width."""
    test = str(record.get("test") or "")
    return record["claim"] + ("-d64" if test.endswith("-d64]") else "")


def _failed(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [{k: c.get(k) for k in ("name", "value", "op", "threshold", "values")}
            for c in record.get("checks") or [] if not c.get("passed")]


def build_grid(cells: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The grid as plain data: the registry's readings, the columns, and per cell that runs its verdict
    (``"missing"`` without a record), reason, seeds and failed checks with their numbers."""
    from lengthgen.experiments.multiverse import UNIVERSES

    from lengthgen.experiments.multiverse import cells as planned, left_out, sort_key

    by_cell = {(r["reading"], column_of(r)): r for r in cells}
    runs = planned()
    columns = sorted({c for _, c in runs} | {c for _, c in by_cell}, key=sort_key)
    out = []
    for universe, column in runs:
        r = by_cell.get((universe.name, column))
        if r is None:
            out.append({"reading": universe.name, "column": column, "verdict": "missing"})
            continue
        checks = r.get("checks") or []
        out.append({"reading": universe.name, "column": column, "claim": r["claim"], "verdict": r.get("verdict"),
                    "reason": r.get("verdict_reason"), "test": r.get("test"),
                    "checks_passed": sum(bool(c.get("passed")) for c in checks), "checks": len(checks),
                    "seeds": (r.get("scale") or {}).get("seed_list"), "failed_checks": _failed(r),
                    "runtime_s": r.get("runtime_s")})
    return {"readings": [{"name": u.name, "what": u.describe(), "claims": list(u.claims)} for u in UNIVERSES],
            "columns": columns, "cells": out,
            "left_out": [{"reading": u, "claim": c, "why": why} for u, c, why in left_out()]}


def grid_lines(cells: Sequence[Mapping[str, Any]], details: bool = True) -> list[str]:
    """The grid as text: one row per reading, one column per claim; then each cell that did not reproduce,
    with its failed checks' numbers."""
    data = build_grid(cells)
    verdicts = {(c["reading"], c["column"]): c for c in data["cells"]}
    names = [r["name"] for r in data["readings"]]
    first = max(len(n) for n in names)
    widths = [max(len(c), 8) for c in data["columns"]]
    lines = ["multiverse (paper scale; verdict per reading x claim; - not run under that reading; ? no record)",
             f"{'reading':<{first}} " + " ".join(f"{c:<{w}}" for c, w in zip(data["columns"], widths))]
    for name in names:
        row = []
        for column, w in zip(data["columns"], widths):
            c = verdicts.get((name, column))
            shown = NOT_RUN if c is None else MISSING if c["verdict"] == "missing" else SHORT.get(c["verdict"], c["verdict"])
            row.append(f"{shown:<{w}}")
        lines.append(f"{name:<{first}} " + " ".join(row).rstrip())
    counts: dict[str, int] = {}
    for c in data["cells"]:
        counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
    lines.append(f"{len(data['cells'])} cells: " + ", ".join(f"{n} {v}" for v, n in sorted(counts.items())))
    for item in data["left_out"]:
        lines.append(f"left out: {item['claim']} under {item['reading']}: {item['why']}")
    if details:
        for c in data["cells"]:
            if c["verdict"] in ("reproduced", "missing"):
                continue
            lines.append(f"{c['column']} under {c['reading']}: {c['verdict']} ({c['checks_passed']}/{c['checks']} checks)"
                         + (f": {c['reason'].splitlines()[0]}" if c.get("reason") else ""))
            for check in c["failed_checks"][:FAILED_SHOWN]:
                lines.append(f"    FAIL {check['name']}: {_num(check['value'])}, needs {check['op']} {check['threshold']}")
            if len(c["failed_checks"]) > FAILED_SHOWN:
                lines.append(f"    and {len(c['failed_checks']) - FAILED_SHOWN} more failed checks")
    return lines


def claim_summary(records: Sequence[Mapping[str, Any]], cells: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Per column: "holds under every reading", or the readings under which the verdict differs from the
    paper point's (with the failed checks' count); "" for a column no reading touches."""
    paper = {column_of(r): r.get("verdict") for r in records if not r.get("reading") and not r.get("setting")}
    changed: dict[str, list[str]] = {}
    seen: set[str] = set()
    for c in build_grid(cells)["cells"]:
        if c["verdict"] == "missing":
            continue
        seen.add(c["column"])
        base = paper.get(c["column"])
        if base is not None and c["verdict"] != base or base is None and c["verdict"] != "reproduced":
            changed.setdefault(c["column"], []).append(
                f"{c['reading']}: {c['verdict']} ({len(c['failed_checks'])} failed checks)")
    return {col: ("; ".join(changed[col]) if col in changed else "holds under every reading") for col in seen}


def _num(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, (int, float)) else str(value)
