"""The multiverse in claims.json, the text grid and `lengthgen multiverse` (synthetic records, no training)."""

from __future__ import annotations

import json

from lengthgen.report.data import assemble
from lengthgen.report.multiverse import build_grid, claim_summary, grid_lines
from lengthgen.report.robustness import carry_over


def record(claim, reading=None, verdict="reproduced", failed=(), test=None):
    checks = [{"name": "ok check", "value": 1.0, "op": ">=", "threshold": 0.5, "passed": True}]
    checks += [{"name": n, "value": 0.1, "op": ">=", "threshold": 0.95, "passed": False, "values": [0.1, 0.1]}
               for n in failed]
    return {"claim": claim, "reading": reading, "verdict": verdict, "checks": checks, "kind": "claim",
            "test": test or f"claims/test_multiverse.py::test_multiverse[{reading}-{claim}]", "scale": {}}


def test_assemble_puts_reading_records_in_multiverse_and_carry_over_keeps_them(tmp_path):
    data = assemble([record("C1"), record("C1", "init=gpt2")], {"host": "x"})
    assert [r["claim"] for r in data["records"]] == ["C1"]
    assert [r["reading"] for r in data["multiverse"]] == ["init=gpt2"] and data["multiverse_environment"]
    previous = tmp_path / "claims.json"
    previous.write_text(json.dumps(data))
    only_grid = carry_over(assemble([record("C8", "ape-rows=zero")], {}), previous)
    assert only_grid["records"] == data["records"] and only_grid["multiverse"][0]["claim"] == "C8"
    only_claims = carry_over(assemble([record("C3")], {}), previous)
    assert only_claims["multiverse"] == data["multiverse"]


def test_grid_marks_run_missing_and_failed_cells():
    cells = [record("C1", "init=gpt2", "not reproduced (undeclared)", ["RoPE K=1 L=48: accuracy"]),
             record("C12", "init=torch", test="x::test_multiverse[init=torch-C12-d64]")]
    grid = build_grid(cells)
    by = {(c["reading"], c["column"]): c for c in grid["cells"]}
    assert by["init=gpt2", "C1"]["failed_checks"][0]["name"] == "RoPE K=1 L=48: accuracy"
    assert by["init=torch", "C12-d64"]["verdict"] == "reproduced" and by["init=torch", "C12"]["verdict"] == "missing"
    assert ("ape-value=token", "C3") not in by  # C3 reads RoPE heads only
    text = "\n".join(grid_lines(cells))
    assert "NEW-not-repr" in text and "FAIL RoPE K=1 L=48: accuracy" in text and "left out: C17 under init=gpt2" in text
    summary = claim_summary([record("C1", test="t1"), record("C12", test="t[paper-d64]")], cells)
    assert summary["C1"].startswith("init=gpt2: not reproduced (undeclared) (RoPE K=1 L=48: accuracy: 0.1, "
                                    "needs >= 0.95)")
    assert summary["C12-d64"].startswith("holds under every reading (1 reading;")


def test_cli_lists_the_registry_and_refuses_a_missing_report(tmp_path, capsys):
    from lengthgen.cli import main

    assert main(["multiverse", "--list"]) == 0
    out = capsys.readouterr().out
    assert "init=gpt2" in out and "who:" in out and "left at one reading:" in out
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(assemble([record("C1", "init=gpt2")], {})))
    assert main(["multiverse", "--report", str(path)]) == 0
    assert json.loads((tmp_path / "multiverse.json").read_text())["cells"]
