"""The specification curve per claim (lengthgen/analysis/curve.py, drawn by lengthgen/report/curve.py) and
`lengthgen multiverse --curve` (synthetic records, no training, no torch)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lengthgen.readings import READINGS
from lengthgen.analysis.curve import curve, deciding_check_name, matrix_rows
from lengthgen.report.curve import curve_lines, curve_png
from lengthgen.analysis.run_view import RunView
from tests.helpers import UNKNOWN_CLAIM as UNKNOWN
from tests.helpers import registry

ACCURACY = "RoPE K=1 L=48: accuracy"
PEAK = "APE K=3 L=48: peak absolute position"
EXTRA = "RoPE K=1 L=40: accuracy"  # only at the paper's point: never the curve's check, however close


def check(name, value, op, threshold, ci95=None, expected_to_fail=False):
    passed = (
        threshold[0] <= value <= threshold[1] if op == "in" else value >= threshold if op == ">=" else value < threshold
    )
    return {
        "name": name,
        "value": value,
        "op": op,
        "threshold": threshold,
        "passed": passed,
        "ci95": ci95,
        "expected_to_fail": expected_to_fail,
    }


def record(verdict, checks, reading=None):
    test = f"claims/test_multiverse.py::test_multiverse[{reading}-C8]" if reading else "claims/test_c08.py::t[paper]"
    return {
        "claim": "C8",
        "where": "Sec. 4",
        "statement": "a statement",
        "paper_value": "a value",
        "assertion": "an assertion",
        "test": test,
        "scale": {"name": "paper", "seeds": 8, "paper_seeds": 8},
        "checks": checks,
        "verdict": verdict,
        "outcome": "passed",
        "reading": reading,
    }


def records():
    """C8 at the paper's point (reproduced) and four cells: one failing, one ruled out (no checks ran)."""
    return [
        record(
            "reproduced",
            [
                check(ACCURACY, 0.97, ">=", 0.85, [0.95, 0.99]),
                check(PEAK, 11.0, "<", 16.0, [10.0, 12.0]),
                check(EXTRA, 0.851, ">=", 0.85),
            ],
        ),
        record(
            "reproduced", [check(ACCURACY, 0.90, ">=", 0.85, [0.88, 0.92]), check(PEAK, 12.0, "<", 16.0)], "init=gpt2"
        ),
        record(
            "not reproduced (undeclared)",
            [check(ACCURACY, 0.60, ">=", 0.85, [0.55, 0.65]), check(PEAK, 13.0, "<", 16.0)],
            "ape-rows=zero",
        ),
        record("ruled out", [], "lengths=per-batch+ape-rows=zero"),
        record(
            "unexpectedly reproduced",
            [check(ACCURACY, 0.93, ">=", 0.85, [0.9, 0.96]), check(PEAK, 9.0, "<", 16.0)],
            "all-alternatives",
        ),
    ]


@pytest.fixture
def claims_json(tmp_path):
    rows = records()
    path = tmp_path / "claims.json"
    data = {"format": 1, "environment": {}, "records": rows[:1], "controls": [], "multiverse": rows[1:]}
    path.write_text(json.dumps(data))
    return path


def test_points_are_sorted_by_value_with_the_unmeasured_last(claims_json):
    c = curve(RunView.from_json(claims_json), "C8")
    assert [p.universe for p in c.points] == [
        "ape-rows=zero",
        "init=gpt2",
        "all-alternatives",
        "paper",
        "lengths=per-batch+ape-rows=zero",
    ]
    assert [p.value for p in c.points] == [0.60, 0.90, 0.93, 0.97, None]
    ruled = c.points[-1]
    assert ruled.ruled_out and ruled.readings == ("lengths=per-batch", "ape-rows=zero") and not ruled.passed
    assert c.points[0].ci95 == (0.55, 0.65) and not c.points[0].passed
    assert c.points[2].readings[0] == "lengths=per-batch" and len(c.points[2].readings) == len(READINGS)
    assert c.points[3].readings == () and (c.check, c.op, c.threshold) == (ACCURACY, ">=", 0.85)
    assert c == curve(records(), "C8")  # the records themselves give the same curve


def test_the_deciding_check_is_the_common_one_closest_at_the_paper_point():
    rows = records()
    # at the paper's point: accuracy (0.97 - 0.85) / 0.85 = 0.14, peak (16 - 11) / 16 = 0.31; EXTRA is closer
    # (0.001) but absent from the cells
    assert deciding_check_name(rows) == ACCURACY
    assert deciding_check_name(rows[:1]) == EXTRA  # alone, the paper's point's closest
    paper = record("reproduced", [check("b", 2.0, ">=", 1.0), check("a", 2.0, ">=", 1.0)])
    assert deciding_check_name([paper]) == "a"  # a tie goes by name
    failed = record("not reproduced", [check("z", 0.9, ">=", 1.0), check("a", 1.0, ">=", 1.0)])
    assert deciding_check_name([failed]) == "z"  # a failed check's margin is negative
    inside = record("reproduced", [check("in", 0.5, "in", [0.45, 10.0]), check("lo", 1.0, ">=", 0.5)])
    assert deciding_check_name([inside]) == "in"  # to the nearer bound, over the width: 0.05 / 9.55 < 0.5 / 0.5
    with pytest.raises(ValueError, match="no check is recorded in every cell"):
        deciding_check_name([paper, record("reproduced", [check("c", 1.0, ">=", 0.5)], "init=gpt2")])


def test_the_summary_counts_admissible_universes_only(claims_json):
    c = curve(RunView.from_json(claims_json), "C8")
    assert (c.admissible, c.reproduced) == (4, 3)
    assert c.summary() == "reproduced in 3 of 4 admissible universes; not reproduced, decided, in 1"
    assert curve_lines(c)[-1] == c.summary()


def test_a_cell_on_the_other_side_within_its_interval_is_within_noise_not_a_change(claims_json):
    """The one rule: a failing cell whose seeds' interval contains the threshold decides nothing."""
    data = json.loads(claims_json.read_text())
    (cell,) = [r for r in data["multiverse"] if r["reading"] == "ape-rows=zero"]
    accuracy = cell["checks"][0]
    accuracy.update(value=0.84, ci95=[0.80, 0.88], reduce="mean", values=[0.80, 0.88], passed=False)
    c = curve(RunView.from_json(data), "C8")
    assert (c.admissible, c.reproduced) == (4, 3)
    assert c.summary() == "reproduced in 3 of 4 admissible universes; the 1 other within the seeds' noise"
    accuracy.update(value=0.60, ci95=[0.55, 0.65], values=[0.55, 0.65])  # its interval excludes 0.85: decided
    assert "decided, in 1" in curve(RunView.from_json(data), "C8").summary()


def test_the_text_has_a_line_per_universe_and_the_matrix_of_readings(claims_json):
    lines = curve_lines(curve(RunView.from_json(claims_json), "C8"))
    assert lines[0].startswith(f"C8: specification curve of {ACCURACY!r} (needs >= 0.85); 5 universes")
    rows = {line.split()[1]: line for line in lines[2:7]}
    assert "FAIL" in rows["ape-rows=zero"] and "[0.55, 0.65]" in rows["ape-rows=zero"]
    assert "pass" in rows["paper"] and "reproduced" in rows["paper"]
    assert (
        "ruled out" in rows["lengths=per-batch+ape-rows=zero"] and "excluded" in rows["lengths=per-batch+ape-rows=zero"]
    )
    end = next(i for i, line in enumerate(lines) if line.startswith("main effects"))
    matrix = {line.split()[0]: line.split()[1:] for line in lines[8:end]}
    assert matrix["choice"] == ["1", "2", "3", "4", "5"]
    assert matrix["lengths"] == ["·", "·", "per-batch", "·", "per-batch"]
    assert matrix["init"] == ["·", "gpt2", "gpt2+torch+flax", "·", "·"]  # all-alternatives: every init reading
    assert matrix["ape-rows"] == ["zero", "·", "zero", "·", "zero"]
    assert matrix["two-layer-steps"] == ["·", "·", "900", "·", "·"]
    assert list(matrix)[1:] == [name for name, _ in matrix_rows(curve(records(), "C8").points)]


def test_the_png_is_written(claims_json, tmp_path):
    out = curve_png(curve(RunView.from_json(claims_json), "C8"), tmp_path / "figs" / "c8.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 1000


def test_cli_prints_the_curve_and_refuses_an_unknown_claim_in_one_line(claims_json, tmp_path, tmp_path_factory, capsys):
    from lengthgen.cli import main

    png = tmp_path_factory.mktemp("drawn") / "curve.png"  # outside the run's folder, which is only read
    assert main(["multiverse", "--run", str(claims_json), "--curve", "C8", "--out", str(png)]) == 0
    out = capsys.readouterr().out
    assert "reproduced in 3 of 4 admissible universes" in out and png.stat().st_size > 0
    assert not (tmp_path / "multiverse.json").exists()  # the curve instead of the grid
    recorded = tmp_path / "recorded" / "claims.json"  # as a claims run records it: with the claims' catalogue
    recorded.parent.mkdir()
    recorded.write_text(
        json.dumps({**json.loads(claims_json.read_text()), "catalogue": registry().catalogue.to_dict()})
    )
    refusals = (
        (recorded, UNKNOWN, f"unknown claim {UNKNOWN!r}"),
        (recorded, "C5", "C5 has no multiverse cells"),
        (claims_json, UNKNOWN, f"{UNKNOWN} has no multiverse cells"),  # without a catalogue no claim is unknown
    )
    for report, claim, words in refusals:
        assert main(["multiverse", "--run", str(report), "--curve", claim]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.count("\n") == 1 and words in captured.err
    assert main(["multiverse", "--run", str(claims_json)]) == 0  # without --curve: the grid
    assert "multiverse (paper scale" in capsys.readouterr().out and not (tmp_path / "multiverse.json").exists()


def test_the_curve_modules_import_neither_torch_nor_matplotlib():
    code = (
        "import sys, lengthgen.analysis.curve, lengthgen.report.curve\n"
        "print(sorted({'torch', 'matplotlib'} & set(sys.modules)))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_main_effects_compare_matched_universes(claims_json):
    """A reading's effect: its universe's value minus the same universe's without it, with the seed intervals
    combined; consequential when the interval excludes 0."""
    from lengthgen.analysis.curve import main_effects

    effects = {e.reading: e for e in main_effects(curve(RunView.from_json(claims_json), "C8"))}
    assert set(effects) <= {r.name for r in __import__("lengthgen.readings", fromlist=["READINGS"]).READINGS}
    assert all(e.pairs >= 1 and e.half >= 0 for e in effects.values())
    lines = curve_lines(curve(RunView.from_json(claims_json), "C8"))
    assert any(line.startswith("main effects") for line in lines) == bool(effects)


def test_a_main_effect_by_hand():
    from lengthgen.analysis.curve import Curve, CurvePoint, main_effects
    from lengthgen.analysis.outcome import Outcome

    OTHER, HOLDS = Outcome.OTHER_WAY, Outcome.HOLDS

    points = (
        CurvePoint("ape-rows=zero", ("ape-rows=zero",), 0.5, (0.45, 0.55), False, "not reproduced", False, OTHER),
        CurvePoint("paper", (), 1.0, (0.9, 1.1), True, "reproduced", True),
        CurvePoint("init=gpt2", ("init=gpt2",), None, None, False, "ruled out", False, Outcome.RULED_OUT),
        CurvePoint("lengths=per-batch", ("lengths=per-batch",), 0.99, (0.89, 1.09), True, "reproduced", True, HOLDS),
    )
    (lengths, rows) = main_effects(Curve("C8", "C8", "x", ">=", 0.85, points))
    assert rows.reading == "ape-rows=zero" and rows.pairs == 1 and abs(rows.mean + 0.5) < 1e-12
    assert abs(rows.half - (0.1**2 + 0.05**2) ** 0.5) < 1e-12 and rows.consequential
    assert lengths.reading == "lengths=per-batch" and not lengths.consequential  # -0.01 within +-0.14


def test_the_summary_counts_each_universe_by_its_outcome():
    """Where the paper's point does not reproduce, the universes on the other side are the ones that do: each
    counted by its outcome against the paper's point, decided or within noise; a ruled-out one not at all."""
    from lengthgen.analysis.curve import Curve, CurvePoint
    from lengthgen.analysis.outcome import Outcome

    def point(universe: str, reproduces: bool, outcome: Outcome | None) -> CurvePoint:
        verdict = "reproduced" if reproduces else "ruled out" if outcome is Outcome.RULED_OUT else "not reproduced"
        return CurvePoint(universe, (universe,), 0.5, None, reproduces, verdict, reproduces, outcome)

    points = (
        point("paper", False, None),
        point("init=flax", True, Outcome.OTHER_WAY),
        point("init=torch", True, Outcome.WITHIN_NOISE),
        point("lengths=per-batch", False, Outcome.HOLDS),
        point("init=gpt2", False, Outcome.RULED_OUT),
    )
    c = Curve("C8", "C8", "x", ">=", 0.85, points)
    assert not c.paper_reproduces and (c.admissible, c.reproduced) == (4, 2)
    assert c.summary() == (
        "reproduced in 2 of 4 admissible universes; reproduced in 2: 1 decided, 1 within the seeds' noise"
    )
    assert Curve("C8", "C8", "x", ">=", 0.85, points[:3:2]).summary() == (
        "reproduced in 1 of 2 admissible universes; the 1 reproducing within the seeds' noise"
    )
