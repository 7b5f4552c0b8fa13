"""The numbers the paper states (each claim's ``stated``, recorded in a run's catalogue) against a run
(lengthgen/report/stated_numbers.py, ``lengthgen multiverse --paper``)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from lengthgen.catalogue import Stated
from lengthgen.registry import Registry
from lengthgen.report import stated_numbers as sn
from tests.helpers import registry

REFERENCE = Path(__file__).parent / "data" / "claims-reference.json.gz"
# how many numbers the paper states per grid column (its claims' "Numbers the paper states"), written out
STATED_PER_COLUMN = {"C3": 1, "C4": 3, "C11": 5, "C13": 2, "C14": 3, "C15": 1, "C17": 1, "C21": 2, "C22": 2}
BASELINE_WIDTHS = {"C4": 64, "C13": 96}  # the untrained baselines: the width d of their 1/d reading


@pytest.fixture(scope="module")
def run() -> dict:
    return json.loads(gzip.decompress(REFERENCE.read_bytes()))


def test_the_claims_state_the_catalogues_numbers_and_the_run_records_them(run):
    stated = sn.stated_numbers(registry().catalogue)
    assert {c: [s.column for s in stated].count(c) for c in STATED_PER_COLUMN} == STATED_PER_COLUMN
    assert len(stated) == sum(STATED_PER_COLUMN.values())
    assert {s.column: s.baseline_width for s in stated if s.baseline_width is not None} == BASELINE_WIDTHS
    assert sn.stated_numbers(Registry.from_data(run).catalogue) == stated  # the run recorded them as they are
    assert sn.stated_numbers(Registry().catalogue) == []  # a run without a catalogue states none


def test_every_stated_number_has_its_measurement_in_a_paper_scale_run(run):
    catalogue = registry().catalogue
    paper, _ = sn.records_by_universe(run, catalogue)
    for s in sn.stated_numbers(catalogue):
        c = sn.compare(s, paper.get(s.column), sn.PAPER)
        assert c.agrees is not None, f"{s.claim} {s.quantity}: {c.measured}"


def test_agreement_is_the_paper_value_within_its_rounding_of_the_interval():
    s = sn.Placed("C4", "C4", Stated("q", 0.80, 0.80, 2, "w", ("x",)))
    assert sn.agrees_with(s, 0.81, (0.802, 0.82)) and sn.agrees_with(s, 0.81, (0.8049, 0.82))
    assert not sn.agrees_with(s, 0.81, (0.806, 0.82))  # 0.80 is 0.006 below the interval, beyond 0.005
    r = sn.Placed("C15", "C15", Stated("q", 0.67, 0.79, 2, "w", ("x",), match="all"))
    assert sn.agrees_with(r, 0.794, None) and not sn.agrees_with(r, 0.796, None)


def test_the_ranking_and_the_baselines(run):
    ranked = sn.rank(run)
    paper = next(r for r in ranked if r.universe == sn.PAPER)
    assert paper.compared == sum(STATED_PER_COLUMN.values()) and 0 < paper.agree < paper.compared
    lines = sn.baseline_lines(run)
    assert any(line.startswith("C4 baseline") and "1/d at d = 64 is 0.0156 (agrees)" in line for line in lines), lines


def test_a_ruled_out_cell_does_not_compare():
    s = sn.stated_numbers(registry().catalogue)[1]
    assert sn.compare(s, {"verdict": "ruled out", "checks": []}, "init=gpt2").agrees is None


def test_the_cli_prints_it(tmp_path, capsys, run):
    from lengthgen.cli import main

    path = tmp_path / "claims.json"
    path.write_text(json.dumps(run))
    assert main(["multiverse", "--report", str(path), "--paper"]) == 0
    out = capsys.readouterr().out
    assert "stated numbers against every universe" in out and "the untrained baselines:" in out


def test_a_combination_reads_each_claim_through_the_readings_that_touch_it():
    """A reading that does not touch a claim leaves its models as they are: a one-layer claim under a combination of
    a one-layer and a two-layer reading is the one-layer reading's cell; a claim none of them touches, the paper's."""
    from lengthgen.readings import CellPlan
    from lengthgen.report.stated_numbers import record_in

    plan = CellPlan(
        (("lengths=per-batch", ("C1", "C12")), ("init=torch", ("C12",))),
        (("lengths=per-batch", "C1"), ("lengths=per-batch", "C12"), ("init=torch", "C12")),
    )
    paper = {"C1": {"at": "paper C1"}, "C4": {"at": "paper C4"}}
    cells = {("lengths=per-batch", "C1"): {"at": "lengths C1"}, ("lengths=per-batch+init=torch", "C12"): {"at": "both"}}
    both = "lengths=per-batch+init=torch"
    catalogue = registry().catalogue
    assert record_in(both, "C1", paper, cells, plan, catalogue) == {"at": "lengths C1"}
    assert record_in(both, "C12", paper, cells, plan, catalogue) == {"at": "both"}
    assert record_in(both, "C4", paper, cells, plan, catalogue) == {"at": "paper C4"}
    assert record_in("init=torch", "C12", paper, cells, plan, catalogue) is None  # planned, not recorded here
