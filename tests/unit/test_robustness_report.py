"""The robustness map in the report and on the command line: ``lengthgen robustness`` prints settings as
columns and claims as rows with a verdict in each cell and writes the map as JSON; claims.json keeps the
map apart from the claims table, and a run of one part keeps the other; the page links each cell."""

from __future__ import annotations

import json

from lengthgen.cli import main
from lengthgen.records import ClaimRecorder
from lengthgen.report import write_report
from lengthgen.analysis.data import load, split_settings
from lengthgen.report.robustness import build_map, cell_id, map_lines
from lengthgen.records.verdict import decide
from tests.helpers import registry
from tests.report_samples import ENVIRONMENT, all_records

SCALE = {
    "name": "paper",
    "seeds": 5,
    "seed_list": [0, 1, 2, 3, 4],
    "paper_seeds": 5,
    "steps": 4000,
    "sequences": 4096,
    "lengths": [12, 16, 20, 24, 32, 40, 48],
}


def cell(setting: str, claim: str, values: list[float], threshold: float = 0.95) -> dict:
    """A robustness cell's record, as the plugin finishes it."""
    c = ClaimRecorder(claim, f"claims/test_robustness.py::test_robustness[{setting}-{claim}]")
    c.set_setting(setting)
    c.set_scale(**SCALE, setting=setting)
    c.check("RoPE K=5 L=32: accuracy", values, ">=", threshold, paper="near 1.00")
    c.check("RoPE K=5 L=12: accuracy", [1.0] * len(values), ">=", threshold, paper="near 1.00")
    decide(c.record)
    return c.record.to_dict()


def map_records() -> list[dict]:
    return [
        cell("offsets-far", "C1", [1.0, 0.73, 1.0, 0.99, 1.0]),
        cell("width-32", "C1", [1.0] * 5),
        cell("fresh-seeds", "C9", [1.0] * 5),
    ]


def test_the_text_map_has_settings_as_columns_and_claims_as_rows():
    lines = map_lines(map_records(), catalogue=registry().catalogue)
    header = lines[1].split()
    assert header[0] == "claim" and header[1:] == [
        "offsets-far",
        "width-32",
        "width-128",
        "vocab-10",
        "vocab-40",
        "range-8-24",
        "fresh-seeds",
    ]
    rows = {
        line.split()[0]: line.split()[1:]
        for line in lines[2:]
        if line.split() and line.split()[0].startswith("C") and len(line.split()) == 8
    }
    assert rows["C1"] == ["NEW-not-repr~", "ok", "?", "?", "?", "?", "?"]  # ? = applies, no record; ~ close
    assert rows["C9"] == ["-", "-", "-", "-", "-", "-", "ok"]  # - = the catalogue does not run it there
    assert rows["C6"][0] == "?" and rows["C6"][1] == "-"
    details = "\n".join(lines)
    assert "C1 at offsets-far: not reproduced (undeclared) (close) (1/2 checks)" in details
    assert "FAIL RoPE K=5 L=32: accuracy: 0.944, needs >= 0.95 (per seed 1, 0.73, 1, 0.99, 1)" in details
    bare = map_lines(map_records(), details=False)  # without a catalogue: the recorded cells alone
    assert [line.split()[0] for line in bare[2:-1]] == ["C1", "C9"] and "?" not in " ".join(bare[2:-1])


def test_the_json_map_carries_every_failed_check_with_its_numbers():
    data = build_map(map_records(), registry().catalogue)
    cells = {(c["setting"], c["claim"]): c for c in data["cells"]}
    assert len(cells) == 45 and cells["width-128", "C4"]["verdict"] == "missing"
    failed = cells["offsets-far", "C1"]
    assert failed["verdict"] == "not reproduced (undeclared)" and failed["seeds"] == [0, 1, 2, 3, 4]
    assert failed["failed_checks"][0]["values"] == [1.0, 0.73, 1.0, 0.99, 1.0]
    assert failed["failed_checks"][0]["threshold"] == 0.95


def test_claims_json_keeps_the_map_apart_and_each_run_keeps_the_other_part(tmp_path):
    out = tmp_path / "reports"
    write_report(all_records(), ENVIRONMENT, out)
    claims_only = load(out / "claims.json")
    assert claims_only["robustness"] == [] and claims_only["records"]
    write_report(map_records(), dict(ENVIRONMENT, wall_time_s=42.0), out)  # a robustness run after it
    both = load(out / "claims.json")
    assert [r["claim"] for r in both["records"]] == [r["claim"] for r in claims_only["records"]]
    assert len(both["robustness"]) == 3 and all(r["mode"]["setting"] for r in both["robustness"])
    assert not split_settings(both["records"])[1]  # no cell in the claims table
    assert both["robustness_environment"]["wall_time_s"] == 42.0
    write_report(all_records(), ENVIRONMENT, out)  # a claims run after that keeps the map
    again = load(out / "claims.json")
    assert len(again["robustness"]) == 3 and again["robustness_environment"]["wall_time_s"] == 42.0
    page = (out / "index.html").read_text()
    assert 'id="robustness-grid"' in page and f'href="#{cell_id("offsets-far", "C1")}"' in page
    assert f'id="{cell_id("offsets-far", "C1")}"' in page and "RoPE K=5 L=32: accuracy" in page


def test_cli_prints_the_map_and_writes_json(tmp_path, capsys):
    out = tmp_path / "reports"
    write_report(map_records(), ENVIRONMENT, out, registry())
    assert main(["robustness", "--run", str(out / "claims.json")]) == 0  # printing writes nothing
    assert "offsets-far" in capsys.readouterr().out and not (out / "robustness.json").exists()
    written = tmp_path / "map" / "robustness.json"
    assert main(["robustness", "--run", str(out / "claims.json"), "--out", str(written)]) == 0
    printed = capsys.readouterr().out
    assert "offsets-far" in printed and "NEW-not-repr" in printed and f"wrote {written}" in printed
    data = json.loads(written.read_text())
    assert {c["verdict"] for c in data["cells"]} == {"not reproduced (undeclared)", "reproduced", "missing"}
    assert main(["robustness", "--list", "--run", str(out / "claims.json")]) == 0
    listed = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert "  C1, C3, C4, C5, C6, C8  (K in {4, 5, 6}" in listed["offsets-far"]  # the recorded catalogue's claims
    assert "  C1, C3, C8  (training lengths [8, 24]" in listed["range-8-24"]
    assert main(["robustness", "--list", "--run", str(tmp_path / "none.json")]) == 0  # no run: the settings
    assert "(claims from a recorded run)" in capsys.readouterr().out


def test_cli_without_a_map_is_one_line_and_status_2(tmp_path, capsys):
    out = tmp_path / "reports"
    write_report(all_records(), ENVIRONMENT, out)
    assert main(["robustness", "--run", str(out / "claims.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds no robustness map" in err
