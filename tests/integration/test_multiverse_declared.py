"""The multiverse's declarations as data (claims/multiverse_declared.json, lengthgen/analysis/declared.py) and the
preconditions that rule a cell out (claims/preconditions.py, ClaimRecorder.rule_out, the verdict "ruled out")."""

from __future__ import annotations

import dataclasses
import gzip
import json

import pytest

from lengthgen.records import ClaimRecord, ClaimRecorder, Declared, NotReproduced
from lengthgen.records.record import setting_of, universe_of
from lengthgen.analysis import declared as D
from tests.helpers import DATA, UNKNOWN_CLAIM, registry

import claims.test_multiverse as cells_module
from claims import multiverse as plan
from claims import preconditions
from claims.registry import CLAIMS

REFERENCE = DATA / "claims-reference.json.gz"  # a cold paper-scale run (its checks' names)
EXTENDED = DATA / "claims-extended.json.gz"  # the extended cells, with the same code


def _run() -> dict:
    """The reference run with the extended cells joined (every cell of the factorial)."""
    from lengthgen.analysis.data import with_cells_of

    reference = json.loads(gzip.decompress(REFERENCE.read_bytes()))
    return with_cells_of(reference, json.loads(gzip.decompress(EXTENDED.read_bytes())))


@pytest.fixture(scope="module")
def declared() -> D.Declarations:
    return plan.load_declarations()


def test_the_file_names_only_cells_of_the_plan_and_known_preconditions(declared):
    known = {(u.name, c) for u, c in plan.all_cells(plan.NONE_DECLARED)}
    assert set(declared.cells) <= known
    assert all(set(c.preconditions) <= set(preconditions.PRECONDITIONS) for c in declared.cells.values())


def test_a_file_naming_an_unknown_cell_is_one_line_naming_it(tmp_path):
    path = tmp_path / "declared.json"
    path.write_text(
        json.dumps(D.Declarations({("x", "C1"): D.RecordedCell("x", "C1", "reproduced")}, {}, {}).to_json())
    )
    with pytest.raises(ValueError, match=r"declared.json: cell \('x', 'C1'\) is not a cell of the multiverse"):
        plan.load_declarations(path)


def test_every_declared_check_is_one_the_claim_emits(declared):
    """Each check a cell declares failing is a check its column's claim records at the paper's point, or one the
    cell itself recorded in the reference run or the extended cells' (a check named by what it measured there,
    such as P6's "longest L selecting -K", is named by the universe's models)."""
    from lengthgen.analysis.outcome import column_of

    run = _run()
    catalogue = registry().catalogue
    emitted: dict[str, set[str]] = {}
    for r in run["records"]:
        if r.get("kind") == "claim" and not universe_of(r) and not setting_of(r):
            emitted.setdefault(column_of(r, catalogue), set()).update(c["name"] for c in r["checks"])
    own = {
        (universe_of(r), column_of(r, catalogue)): {c["name"] for c in r["checks"]} for r in run.get("multiverse", [])
    }
    for (universe, column), cell in declared.cells.items():
        if cell.outcome == "not reproduced" and cell.checks != D.OWN:
            unknown = set(cell.checks) - emitted.get(column, set()) - own.get((universe, column), set())
            assert not unknown, f"{universe}/{column}: {sorted(unknown)} are not checks {column} emits"


def test_every_non_reproduction_has_a_reason_and_every_cell_an_expectation(declared):
    for (universe, column), cell in declared.cells.items():
        expected = plan.declaration(declared, universe, column)
        if cell.outcome == "not reproduced":
            assert expected.declared is not None and expected.declared.why.strip()
        elif cell.outcome == "ruled out":
            assert expected.declared is None and expected.ruled_out
        else:
            assert expected == D.DeclaredCell()


def test_a_declared_cell_is_the_records_declaration_and_its_preconditions():
    """The file's outcome made a declaration: the claim's own (its reason added to the why), another set of checks
    (escaped to match exactly their names) with the reason, ruled out (the preconditions as patterns), reproduced."""
    own = Declared(("K=2*",), "the fit is less straight", gist="less straight")
    assert D.declared_cell(None, own, None) == D.DeclaredCell(own)  # never recorded: the claim's own declaration
    assert D.declared_cell(D.RecordedCell("u", "C6", "reproduced"), own, "why") == D.DeclaredCell()
    ruled = D.declared_cell(D.RecordedCell("u", "C6", "ruled out", preconditions=("one-layer fit",)), own, "why")
    assert ruled == D.DeclaredCell(None, ("one-layer fit",)) and ruled.ruled_out == ("one-layer fit: *",)
    mine = D.RecordedCell("u", "C6", "not reproduced", D.OWN)
    assert D.declared_cell(mine, own, None).declared is own
    assert D.declared_cell(mine, own, "init: flatter") == D.DeclaredCell(
        Declared(("K=2*",), "the fit is less straight; init: flatter")
    )
    other = D.RecordedCell("u", "C6", "not reproduced", ("K=3 [x]",))
    assert D.declared_cell(other, own, "init: flatter").declared == Declared(("K=3 [[]x]",), "init: flatter")
    assert "another set of its checks" in D.declared_cell(other, own, None).declared.why
    with pytest.raises(ValueError, match="'own' checks, but C6 declares none"):
        D.declared_cell(mine, None, "why")
    with pytest.raises(ValueError, match="no reason for its claim and choice"):
        D.declared_cell(other, None, None)
    with pytest.raises(ValueError, match="runs no checks to fail"):
        D.DeclaredCell(own, ("one-layer fit",))
    with pytest.raises(ValueError, match="tuple of names"):
        D.DeclaredCell(None, "one-layer fit")


def test_init_gpt2_is_ruled_out_for_every_one_layer_claim(declared):
    """The negative control of the preconditions: the reading under which the heads do not fit is ruled out."""
    for (universe, column), cell in declared.cells.items():
        if universe == "init=gpt2":
            assert cell.outcome == "ruled out" and "one-layer fit" in cell.preconditions, (universe, column)


@pytest.mark.parametrize("bad", [{"format": 9}, [], {"format": 1, "cells": [{"universe": "x"}]}])
def test_a_malformed_file_is_one_line(bad, tmp_path):
    path = tmp_path / "d.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(ValueError) as e:
        D.load(path)
    assert "\n" not in str(e.value)


def test_unknown_outcome_and_missing_file_raise(tmp_path):
    with pytest.raises(ValueError, match="unknown outcome 'maybe'"):
        D.RecordedCell("init=gpt2", "C1", "maybe")
    with pytest.raises(ValueError, match="no declarations file"):
        D.load(tmp_path / "absent.json")
    (tmp_path / "t.json").write_text("{")
    with pytest.raises(ValueError, match="not JSON"):
        D.load(tmp_path / "t.json")


def _recorded(verdict: str, failed: tuple[str, ...] = (), ruled_out: str | None = None, pre: str = "") -> ClaimRecord:
    """A decided multiverse cell's record with checks ``failed`` failing (or ruled out by precondition ``pre``)."""
    data = {"claim": "C12", "reading": "x", "verdict": verdict, "ruled_out": ruled_out}
    data["checks"] = [{"name": n, "value": 0.0, "op": ">=", "threshold": 1.0, "passed": False} for n in failed]
    if pre:
        data["preconditions"] = [{"name": pre, "value": 0.5, "op": ">=", "threshold": 0.95, "passed": False}]
    return ClaimRecord.from_dict(data)


def test_record_reads_outcomes_and_keeps_reasons():
    paper = D.AtPaper(("RoPE minus*",), frozenset({"RoPE minus APE"}))
    cells = {
        ("a", "C12"): _recorded("not reproduced", ("RoPE minus APE",)),
        ("b", "C12"): _recorded("not reproduced (undeclared)", ("APE L=48",)),
        ("c", "C12"): _recorded("reproduced"),
        ("d", "C12"): _recorded("ruled out", ruled_out="x", pre="two-layer fit: RoPE L=12"),
    }
    previous = D.Declarations({("e", "C1"): D.RecordedCell("e", "C1", "reproduced")}, {"C12": {"ape-rows": "why"}}, {})
    out = D.record(cells, {"C12": paper}, {"cpu_model": "cpu"}, previous)
    assert out.cells["a", "C12"].checks == D.OWN and out.cells["b", "C12"].checks == ("APE L=48",)
    assert out.cells["c", "C12"].outcome == "reproduced" and out.cells["e", "C1"].outcome == "reproduced"
    assert out.cells["d", "C12"].preconditions == ("two-layer fit",)
    assert out.reasons == {"C12": {"ape-rows": "why"}} and out.recorded == {"cpu_model": "cpu"}
    assert D.parse(json.loads(json.dumps(out.to_json()))) == out
    with pytest.raises(ValueError, match="cannot be recorded"):
        D.record({("a", "C1"): _recorded("error")}, {}, {}, None)


def test_escape_matches_exactly_the_name():
    from fnmatch import fnmatchcase

    name = "d=32 K=2: key [carrier] fraction*?"
    assert fnmatchcase(name, D.escape(name)) and not fnmatchcase(name + "x", D.escape(name))


# ------------------------------------------------------------------------------------- a cell, no training


def _fake(monkeypatch, fit: float):
    """claims/test_multiverse.py's cell with the measure and the preconditions replaced (no training): the
    one-layer precondition measures ``fit``; C20's check fails its own declared checks."""
    seen = []

    def fake_spec(column):
        def measure(scale, cache):
            seen.append(scale.universe.name)
            return "result"

        def check(claim, result):
            for pattern in plan.spec("C20").declaration("paper").checks:
                claim.check(pattern.rstrip("*") + " (mean over seeds)", 0.5, ">=", 0.85)
            claim.check("a check that holds", 1.0, ">=", 0.5)

        return dataclasses.replace(plan.spec(column), measure=measure, checks=(check,))

    fake = preconditions.Precondition(
        "one-layer fit",
        "fits",
        False,
        lambda s, c, r: [("RoPE K=1 L=12", {"encoding": "rope", "K": 1, "L": 12}, [fit] * 3)],
        ("RoPE",),
    )
    monkeypatch.setattr(cells_module, "spec", fake_spec)
    monkeypatch.setattr(preconditions, "of", lambda spec: (fake,))
    return seen


def _declare(cell: D.RecordedCell | None) -> D.Declarations:
    """Declarations holding ``cell`` alone (None: no cell)."""
    return D.Declarations({} if cell is None else {(cell.universe, cell.column): cell}, {}, {})


def test_a_cell_measures_under_its_universe_and_follows_its_declaration(monkeypatch):
    seen = _fake(monkeypatch, fit=1.0)
    declared = _declare(None)  # not in the file: the claim's own declaration at the paper's point
    recorder = ClaimRecorder("C20")
    with pytest.raises(NotReproduced):
        cells_module.test_multiverse("lengths=per-batch", "C20", declared, None, recorder)
    assert seen == ["lengths=per-batch"] and recorder.record.universe == "lengths=per-batch"
    assert [c.passed for c in recorder.record.preconditions] == [True]
    declared = _declare(D.RecordedCell("lengths=per-batch", "C20", "reproduced"))
    with pytest.raises(AssertionError):  # declared reproduced: the failing checks are undeclared
        cells_module.test_multiverse("lengths=per-batch", "C20", declared, None, ClaimRecorder("C20"))
    declared = _declare(D.RecordedCell("lengths=per-batch", "C20", "not reproduced", D.OWN))
    with pytest.raises(NotReproduced):
        cells_module.test_multiverse("lengths=per-batch", "C20", declared, None, ClaimRecorder("C20"))


def test_a_failed_precondition_rules_the_cell_out_without_measuring(monkeypatch):
    seen = _fake(monkeypatch, fit=0.55)
    declared = _declare(D.RecordedCell("init=gpt2", "C20", "ruled out", preconditions=("one-layer fit",)))
    recorder = ClaimRecorder("C20")
    cells_module.test_multiverse("init=gpt2", "C20", declared, None, recorder)  # passes: ruled out, as declared
    record = recorder.record
    assert seen == [] and not record.checks and record.verdict == "ruled out"
    assert "one-layer fit" in record.ruled_out and "0.55" in record.ruled_out
    declared = _declare(D.RecordedCell("init=gpt2", "C20", "reproduced"))
    recorder = ClaimRecorder("C20")
    with pytest.raises(AssertionError, match="which the declarations do not expect"):
        cells_module.test_multiverse("init=gpt2", "C20", declared, None, recorder)
    assert recorder.record.verdict == "not reproduced (undeclared)"


def test_a_cell_declared_ruled_out_whose_preconditions_hold_is_a_finding(monkeypatch):
    _fake(monkeypatch, fit=1.0)
    declared = _declare(D.RecordedCell("init=gpt2", "C20", "ruled out", preconditions=("one-layer fit",)))
    recorder = ClaimRecorder("C20")
    with pytest.raises(AssertionError, match="every precondition held"):
        cells_module.test_multiverse("init=gpt2", "C20", declared, None, recorder)
    assert recorder.record.verdict == "not reproduced (undeclared)"


def test_every_claim_with_a_family_has_its_preconditions():
    for spec in CLAIMS.values():
        names = [p.name for p in preconditions.of(spec)]
        assert ("one-layer fit" in names) == ("one-layer" in spec.families)
        assert ("two-layer fit" in names) == ("two-layer" in spec.families)
    assert [p.name for p in preconditions.of(CLAIMS["C21"])] == ["one-layer fit", "content fit"]


def _cell(claim, reading, verdict, failed=(), **extra):
    checks = [{"name": "ok check", "value": 1.0, "op": ">=", "threshold": 0.5, "passed": True}]
    checks += [{"name": n, "value": 0.1, "op": ">=", "threshold": 0.95, "passed": False} for n in failed]
    return {
        "claim": claim,
        "reading": reading,
        "verdict": verdict,
        "checks": checks,
        "kind": "claim",
        "test": f"claims/test_multiverse.py::test_multiverse[{reading}-{claim}]",
        "scale": {},
        "where": "w",
        "statement": "s",
        "paper_value": "p",
        "assertion": "a",
        **extra,
    }


def test_the_record_command_writes_and_refuses_bad_input(tmp_path, capsys):
    from lengthgen.cli import main
    from lengthgen.analysis.data import assemble

    run = tmp_path / "run" / "claims.json"  # a folder of its own: the command never writes into it
    run.parent.mkdir()
    cells = [
        _cell("C1", "lengths=per-batch", "not reproduced (undeclared)", ["RoPE K=3 L=32: accuracy"]),
        _cell(
            "C3",
            "init=gpt2",
            "ruled out",
            ruled_out="x",
            preconditions=[{"name": "one-layer fit: a", "value": 0.5, "op": ">=", "threshold": 0.95, "passed": False}],
        ),
    ]
    run.write_text(json.dumps(assemble([_cell("C1", None, "reproduced")] + cells, {"cpu_model": "cpu"})))
    out = tmp_path / "declared.json"
    assert main(["multiverse", "--run", str(run), "--record", str(out)]) == 0
    written = D.load(out)
    assert written.cells["lengths=per-batch", "C1"].checks == ("RoPE K=3 L=32: accuracy",)
    assert written.cells["init=gpt2", "C3"].preconditions == ("one-layer fit",)
    assert "2 cells, 2 from this run, 2 changed" in capsys.readouterr().out
    assert main(["multiverse", "--run", str(run), "--record", str(out)]) == 0
    assert "0 changed" in capsys.readouterr().out
    for bad, words in (("/proc/d.json", "cannot be written"), (run.parent / "d.json", "in the folder of the recorded")):
        assert main(["multiverse", "--run", str(run), "--record", str(bad)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err, err
    assert main(["multiverse", "--run", str(run), "--curve", UNKNOWN_CLAIM]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_recording_again_changes_only_the_cells_it_records_and_keeps_the_date(tmp_path, capsys):
    """A second ``--record`` of the same outcomes from another run leaves the file's bytes (its ``recorded``
    date among them) as they were; one that moves a cell changes that cell and the date, and no other cell."""
    from lengthgen.cli import main
    from lengthgen.analysis.data import assemble

    out = tmp_path / "declared.json"

    def record(c1_verdict: str, started: str) -> bytes:
        run = tmp_path / "run" / "claims.json"
        run.parent.mkdir(exist_ok=True)
        cells = [
            _cell("C1", None, "reproduced"),
            _cell("C1", "lengths=per-batch", c1_verdict, ["RoPE K=3 L=32: accuracy"] * (c1_verdict != "reproduced")),
            _cell("C3", "lengths=per-batch", "reproduced"),
        ]
        run.write_text(json.dumps(assemble(cells, {"cpu_model": "cpu", "started": started})))
        assert main(["multiverse", "--run", str(run), "--record", str(out)]) == 0, capsys.readouterr().err
        return out.read_bytes()

    first = record("not reproduced (undeclared)", "2026-01-01T00:00:00")
    assert record("not reproduced (undeclared)", "2026-02-02T00:00:00") == first
    assert "0 changed" in capsys.readouterr().out.splitlines()[-1]
    record("reproduced", "2026-03-03T00:00:00")
    before, after = D.parse(json.loads(first)), D.load(out)
    assert after.recorded["started"] == "2026-03-03T00:00:00", after.recorded
    assert after.cells["lengths=per-batch", "C1"].outcome == "reproduced"
    assert after.cells["lengths=per-batch", "C3"] == before.cells["lengths=per-batch", "C3"]
