"""The robustness map in the report: settings as columns, claims as rows, a verdict in each cell.

Its cells are the records of ``claims/test_robustness.py`` (a claim record with ``setting`` set). In
``claims.json`` they sit under ``"robustness"`` (beside ``"records"`` and ``"controls"``), so the claims
table shows only the paper's point. A run that holds only one part (``pytest claims -n auto``, then
``pytest claims -m robustness -n auto``, as CI runs them) keeps the other part of the ``claims.json`` it
finds (:func:`carry_over`), so both end up on one page; the map says which run produced it.

- :func:`split_settings`: (records at the paper's point, robustness cells);
- :func:`build_map` / :func:`map_lines`: the map as data (``lengthgen robustness --json``) and as text
  (``lengthgen robustness``, the terminal summary of a robustness run);
- :func:`grid_html`: the coloured grid for the page, each cell linked to its checks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from lengthgen.report import text

NOT_APPLICABLE = "-"  # a cell the catalogue does not run
MISSING = "?"  # a cell the catalogue runs that has no record in this report
SHORT = {"reproduced": "ok", "not reproduced": "not-repr", "failed": "FAILED", "inconclusive": "inconcl",
         "skipped": "skipped"}  # the text map's cell labels (one word each); "~" marks a close call
FAILED_SHOWN = 4  # failed checks spelled out per cell in the text map (all of them in the JSON and on the page)


def split_settings(records: Sequence[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """``(records at the paper's point, robustness cells)`` (a cell is a record with a ``setting``)."""
    return [r for r in records if not r.get("setting")], [r for r in records if r.get("setting")]


def carry_over(data: dict[str, Any], previous_path: Path) -> dict[str, Any]:
    """``data`` with the part this run did not produce taken from the ``claims.json`` at ``previous_path``
    (if one is there and readable): a robustness-only run keeps the claims, a claims run keeps the map."""
    try:
        previous = json.loads(Path(previous_path).read_text())
    except (OSError, ValueError):
        return data
    if not isinstance(previous, dict):
        return data
    data = dict(data)
    if not data.get("records") and not data.get("controls") and data.get("robustness"):
        for key in ("records", "controls", "environment"):
            if key in previous:
                data[key] = previous[key]
    elif not data.get("robustness") and previous.get("robustness"):
        data["robustness"] = previous["robustness"]
        data["robustness_environment"] = previous.get("robustness_environment") or {}
    return data


def cell_id(setting: str, claim: str) -> str:
    """The page anchor of a cell's checks."""
    return f"robustness-{setting}-{claim}"


def _failed(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [c for c in record.get("checks") or [] if not c.get("passed")]


def build_map(cells: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The map as plain data: the catalogue's settings and claims, and per cell its verdict, reason, seeds
    and every failed check with its numbers. A cell the catalogue runs without a record is ``"missing"``."""
    from lengthgen.experiments.robustness import SETTINGS

    by_cell = {(r["setting"], r["claim"]): r for r in cells}
    claims = sorted({c for s in SETTINGS for c in s.claims} | {r["claim"] for r in cells}, key=text.claim_number)
    out = []
    for s in SETTINGS:
        for claim in claims:
            if claim not in s.claims:
                continue
            r = by_cell.get((s.name, claim))
            if r is None:
                out.append({"setting": s.name, "claim": claim, "verdict": "missing"})
                continue
            passed, total = text.checks_passed(r)
            out.append({
                "setting": s.name, "claim": claim, "verdict": r.get("verdict"), "label": text.verdict_label(r),
                "reason": r.get("verdict_reason"), "test": r.get("test"), "checks_passed": passed,
                "checks": total, "seeds": (r.get("scale") or {}).get("seed_list"),
                "failed_checks": [{k: list(c[k]) if isinstance(c.get(k), tuple) else c.get(k)
                                   for k in ("name", "value", "op", "threshold", "values")} for c in _failed(r)],
                "runtime_s": r.get("runtime_s"),
            })
    return {"settings": [{"name": s.name, "what": s.what, "claims": list(s.claims)} for s in SETTINGS],
            "claims": claims, "cells": out}


def map_lines(cells: Sequence[Mapping[str, Any]], details: bool = True) -> list[str]:
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
                shown = SHORT.get(c["verdict"], c["verdict"]) + ("~" if c["label"].endswith("(close)") else "")
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


def grid_html(cells: Sequence[Mapping[str, Any]], environment: Mapping[str, Any] | None = None) -> str:
    """The map on the page: a coloured grid (each cell a link to its checks below it), then one collapsed
    block per cell with its verdict, reason, scale and checks (failed first)."""
    from lengthgen.report.page import badge, checks_table, esc, verdict_class

    if not cells:
        return ('<p class="small muted" id="robustness">No robustness map in this report (run '
                "<code>pytest claims -m robustness -n auto</code>).</p>")
    data = build_map(cells)
    names = [s["name"] for s in data["settings"]]
    by_cell = {(r["setting"], r["claim"]): r for r in cells}
    verdicts = {(c["setting"], c["claim"]): c for c in data["cells"]}
    head = "".join(f'<th title="{esc(s["what"])}">{esc(s["name"])}</th>' for s in data["settings"])
    rows = []
    for claim in data["claims"]:
        tds = []
        for name in names:
            c = verdicts.get((name, claim))
            if c is None:
                tds.append('<td class="na muted">&ndash;</td>')
            elif c["verdict"] == "missing":
                tds.append('<td class="v-unknown" title="no record in this report">?</td>')
            else:
                title = esc(c.get("reason") or f"{c['checks_passed']} of {c['checks']} checks passed")
                tds.append(f'<td class="cell {verdict_class(c["verdict"])}" title="{title}">'
                           f'<a href="#{esc(cell_id(name, claim))}">{esc(c["label"])}</a></td>')
        rows.append(f'<tr><th class="claim">{esc(claim)}</th>{"".join(tds)}</tr>')
    blocks = []
    for c in data["cells"]:
        r = by_cell.get((c["setting"], c["claim"]))
        if r is None:
            continue
        checks = sorted(r.get("checks") or [], key=lambda k: bool(k.get("passed")))
        reason = f"<div>{esc(r['verdict_reason'])}</div>" if r.get("verdict_reason") else ""
        blocks.append(
            f'<details class="robustness-cell" id="{esc(cell_id(c["setting"], c["claim"]))}"'
            f'{" open" if c["verdict"] not in ("reproduced",) else ""}><summary>{esc(c["claim"])} at '
            f'{esc(c["setting"])} {badge(r.get("verdict"))} <span class="small">{c["checks_passed"]} of '
            f'{c["checks"]} checks &middot; {esc(text.scale_text(r.get("scale", {})))} &middot; '
            f'{esc(r.get("test", ""))}</span></summary>{reason}{checks_table(checks)}</details>')
    when = ""
    if environment:
        when = (f' <span class="small">(run started {esc(environment.get("started", "?"))}, wall time '
                f'{esc(text.duration(environment.get("wall_time_s")))}, models trained '
                f'{esc(environment.get("models_trained", "?"))})</span>')
    style = ("<style>#robustness-grid td.cell { background: var(--vb); font-weight: 600; white-space: nowrap; }"
             "#robustness-grid td.cell a { color: var(--v); } #robustness-grid td, #robustness-grid th "
             "{ text-align: center; } #robustness-grid { width: auto; }</style>")
    return (f'{style}<p class="small" id="robustness">Each claim of the catalogue\'s robustness table, rerun at '
            "paper scale with its assertion unchanged at settings the paper did not use (L &le; 16 read as "
            f"L &le; Lmax, APE's near chance as 1/m + 0.10); click a cell for its checks.{when}</p>"
            f'<table id="robustness-grid"><thead><tr><th>claim</th>{head}</tr></thead><tbody>{"".join(rows)}'
            f"</tbody></table>{''.join(blocks)}")
