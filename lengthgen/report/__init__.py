"""The reproduction report: ``claims.json`` (the records) and a one-page ``index.html``.

This is the minimal writer; see ``lengthgen/report/`` modules for the page, figures and summary.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any, Sequence


def _sorted(records: Sequence[dict]) -> list[dict]:
    def key(record: dict) -> tuple:
        return (int(record["claim"][1:]), record.get("test", ""))

    return sorted(records, key=key)


def summary_lines(records: Sequence[dict]) -> list[str]:
    """The verdict table in short, one line per claim test."""
    lines = [f"{'claim':<6} {'scale':<7} {'verdict':<15} {'checks':>7}  test"]
    for record in _sorted(records):
        checks = record.get("checks", [])
        passed = sum(1 for c in checks if c["passed"])
        scale = record.get("scale", {}).get("name", "?")
        lines.append(
            f"{record['claim']:<6} {scale:<7} {record.get('verdict') or '?':<15} {passed:>3}/{len(checks):<3}  {record.get('test', '')}"
        )
    return lines


def write_report(records: Sequence[dict], environment: dict[str, Any], out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    data = {"environment": environment, "records": _sorted(records)}
    json_path = out_dir / "claims.json"
    json_path.write_text(json.dumps(data, indent=1, default=str))
    rows = "".join(
        f"<tr><td>{html.escape(r['claim'])}</td><td>{html.escape(str(r.get('verdict')))}</td>"
        f"<td>{html.escape(r['statement'])}</td></tr>"
        for r in data["records"]
    )
    html_path = out_dir / "index.html"
    html_path.write_text(f"<!doctype html><html><body><table>{rows}</table></body></html>")
    return [html_path, json_path]
