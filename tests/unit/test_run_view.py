"""The typed view of a run (lengthgen.analysis.run_view): parsed once from claims.json (a report directory,
a .json, a .json.gz, or the loaded data) or from the plugin's records, the same either way; files of an
earlier version (without the newer keys) parse; a verdict word this version does not know is a ValueError."""

from __future__ import annotations

import copy
import gzip
import json

import pytest

from lengthgen.records import ClaimRecord
from lengthgen.records import verdict as rule
from lengthgen.records.record import variant_of
from lengthgen.analysis.data import assemble, dump
from lengthgen.analysis.run_view import RunView, parse
from tests.helpers import SHARED, registry
from tests.report_samples import ENVIRONMENT, all_records, not_reproduced
from tests.unit.test_robustness_report import map_records

BASELINE = SHARED / "baselines" / "claims-paper-1e63f06.json.gz"
needs_baseline = pytest.mark.skipif(not BASELINE.exists(), reason=f"{BASELINE} is not beside this checkout")
NEWER_RECORD_KEYS = (
    "mode",
    "title",
    "prediction",
    "threshold_basis",
    "close",
    "close_checks",
    "deciding",
    "looks",
    "declared",
)  # keys earlier versions lacked
NEWER_CHECK_KEYS = (
    "threshold_source",
    "threshold_note",
    "interval",
    "decision_ci",
    "expected_to_fail",
    "seeds",
    "level",
    "has_interval",
    "close",
    "basis",
)


@pytest.fixture(scope="module")
def baseline() -> RunView:
    return RunView.from_json(BASELINE)


def by_test(view: RunView, claim: str, variant: str = "") -> ClaimRecord:
    (found,) = [c for c in view.records if c.claim == claim and c.variant == variant]
    return found


@needs_baseline
def test_the_baseline_parses_into_claims_predictions_and_controls(baseline):
    assert len(baseline.claims) == 27 and len(baseline.predictions) == 6 and len(baseline.controls) == 30
    assert baseline.completeness.complete and baseline.scale == "paper"
    # the file predates the recorded catalogue: its predictions are known by their paper value, and the label says
    # what ran; read with the claims' catalogue, it covers every claim and prediction of it
    assert baseline.completeness.label == "paper scale: 22 claims; 6 predictions (no catalogue recorded)"
    with_catalogue = RunView.from_data({**baseline.data, **registry().to_dict()})
    catalogue = registry().catalogue
    claims, predictions = len(catalogue.claims), len(catalogue.predictions)
    whole = "complete" if (claims, predictions) == (22, 6) else "partial"  # partial: a claim added since it ran
    assert with_catalogue.completeness.label == (
        f"paper scale, {whole}: 22 of {claims} catalogue claims; 6 of {predictions} predictions"
    )
    partial = {**baseline.data, **registry().to_dict(), "records": baseline.data["records"][1:]}  # C1 left out
    assert RunView.from_data(partial).completeness.missing == ("C1",)
    assert baseline.verdict_counts() == {"reproduced": 17, "reproduced (close)": 3, "not reproduced": 7}
    assert all(c.discriminates for c in baseline.controls)
    assert not baseline.robustness and not baseline.multiverse and baseline.robustness_environment is None
    with pytest.raises(ValueError, match="'tables'"):
        baseline.verdict_counts("tables")
    assert {c.variant for c in baseline.claims if c.claim == "C12"} == {"d64", "d96"}
    assert all(c.is_prediction and c.kind == "claim" for c in baseline.predictions)


@needs_baseline
def test_the_baseline_close_calls_and_declared_failures(baseline):
    closes = [c.claim for c in baseline.records if c.labelled_close]
    assert closes == ["C1", "C9", "C11", "P6"]
    c11 = by_test(baseline, "C11")
    assert c11.label == "reproduced (close)" and c11.verdict.css == "v-reproduced"
    assert [k.name for k in c11.close_checks] == ["linear K=3: |cos(m_Q, R_-K m_K)| (mean over seeds)"]
    assert c11.deciding is c11.close_checks[0] and c11.deciding.close and c11.deciding.seeds_to_decide
    c1 = by_test(baseline, "C1")
    # accuracies: their t-intervals clipped to [0, 1] ("bounded"), at the same level
    assert len(c1.close_checks) == 2 and all(k.interval == "bounded" and k.level == 0.95 for k in c1.close_checks)
    c8 = by_test(baseline, "C8")
    assert c8.verdict == "not reproduced" and not c8.close
    assert c8.declared.checks == (
        "APE K=3 L=48: peak absolute position of every seed",
        "APE K=3 L=48: selected offset of every seed is not -K",
    )
    assert c8.declared.strict and "flat profile" in c8.declared.why
    assert {k.name for k in c8.failed_checks} <= {k.name for k in c8.checks if k.expected_to_fail}
    assert baseline.controls_of(c8) and baseline.controls_of(c8)[0].claim == "C8"
    assert by_test(baseline, "C9").label == "reproduced (close)"


@needs_baseline
def test_the_view_agrees_with_the_verdict_rule_on_every_baseline_record(baseline):
    """The 1e63f06 file records its close flag but not its deciding check: the view decides it again by the
    records' rule, and agrees with what that run recorded."""
    raw = {r["test"]: r for r in baseline.data["records"]}
    for claim in baseline.records:
        record = ClaimRecord.from_dict(raw[claim.test])
        assert claim.deciding is rule.deciding_check(claim) and claim.deciding.name == rule.deciding_check(record).name
        assert [k.name for k in claim.close_checks] == [k.name for k in rule.close_checks(record)]
        assert claim.close == bool(raw[claim.test]["close"])  # the record's own field, as that run computed it
        assert all(k.threshold_source is None for k in claim.checks)  # the 1e63f06 file predates the key


def test_from_records_equals_from_json_of_the_written_file(tmp_path):
    records = all_records() + map_records()
    from_records = RunView.from_records(records, ENVIRONMENT)
    data = assemble(records, ENVIRONMENT)
    dump(data, tmp_path / "claims.json")
    with gzip.open(tmp_path / "claims.json.gz", "wt") as handle:
        json.dump(data, handle)
    for source in (
        tmp_path,
        tmp_path / "claims.json",
        str(tmp_path / "claims.json.gz"),
        json.loads((tmp_path / "claims.json").read_text()),
    ):
        assert RunView.from_json(source) == from_records
    assert [c.claim for c in from_records.claims] == ["C1", "C4", "C6", "C8", "C9", "C10", "C15", "C18"]
    assert [(c.setting, c.claim) for c in from_records.robustness] == [
        ("fresh-seeds", "C9"),
        ("offsets-far", "C1"),
        ("width-32", "C1"),
    ]
    assert from_records.robustness_environment["wall_time_s"] == ENVIRONMENT["wall_time_s"]


def test_an_older_file_without_the_newer_keys_parses(tmp_path):
    data = assemble(all_records(), ENVIRONMENT)
    old = copy.deepcopy(data)
    del old["controls"]
    for record in old["records"]:
        for key in NEWER_RECORD_KEYS:
            record.pop(key, None)
        for check in record["checks"]:
            for key in NEWER_CHECK_KEYS:
                check.pop(key, None)
    view = RunView.from_json(old)
    assert [c.claim for c in view.claims] == [c.claim for c in RunView.from_json(data).claims]
    c10 = next(c for c in view.claims if c.claim == "C10")
    assert c10.label == "reproduced (close)"  # a mean over seeds with an interval is "t" without "interval"
    assert c10.deciding.interval == "bounded" and c10.universe is None and c10.setting is None  # an accuracy: "t",
    # clipped to [0, 1]
    assert all(k.threshold_source is None and not k.expected_to_fail for c in view.claims for k in c.checks)
    assert view.controls == () and view.multiverse == ()


def test_newer_keys_are_carried(tmp_path):
    data = assemble(all_records() + map_records(), ENVIRONMENT)
    data["records"][0]["checks"][0]["threshold_source"] = "catalogue-prediction"
    cell = dict(
        copy.deepcopy(data["robustness"][0]), mode={"kind": "reading", "reading": "init-small"}, verdict="error"
    )
    data["multiverse"] = [cell]
    data["multiverse_environment"] = {"wall_time_s": 9.0}
    stray = dict(
        copy.deepcopy(data["records"][0]),
        mode={"kind": "reading", "reading": "mix-wide"},
        verdict="not reproduced (undeclared)",
    )
    data["records"].append(stray)  # a reading's record in the table goes to the multiverse
    view = RunView.from_json(data)
    assert view.claims[0].checks[0].threshold_source == "catalogue-prediction"
    assert [(c.universe, c.verdict) for c in view.multiverse] == [
        ("init-small", "error"),
        ("mix-wide", "not reproduced (undeclared)"),
    ]
    assert view.multiverse_environment == {"wall_time_s": 9.0}
    assert len(view.claims) == 8 and view.cells == view.robustness + view.multiverse


def test_a_missing_or_foreign_file_is_a_value_error_naming_it(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        RunView.from_json(tmp_path / "nothing.json")
    (tmp_path / "other.json.gz").write_bytes(gzip.compress(b'{"a": 1}'))
    with pytest.raises(ValueError, match="other.json.gz.*not a claims.json"):
        RunView.from_json(tmp_path / "other.json.gz")
    (tmp_path / "broken.json.gz").write_bytes(b"not gzip")
    with pytest.raises(ValueError, match="broken.json.gz"):
        RunView.from_json(tmp_path / "broken.json.gz")


def test_every_verdict_word_is_carried_with_a_label_and_an_unknown_one_is_a_value_error():
    record = not_reproduced()
    for verdict in ("not reproduced (undeclared)", "unexpectedly reproduced", "error"):
        claim = parse(dict(record, verdict=verdict))
        assert claim.verdict == verdict and claim.label == verdict
    assert parse(dict(record, verdict=None)).label == "unknown"
    with pytest.raises(ValueError, match="unknown verdict 'from the future'"):
        parse(dict(record, verdict="from the future"))


def test_variants_are_the_parameters_without_the_scale():
    assert variant_of("claims/test_c12.py::test_x[paper-d64]", "paper") == "d64"
    assert variant_of("claims/test_c01.py::test_x[paper]", "paper") == ""
    assert variant_of("claims/test_robustness.py::test_robustness[offsets-far-C1]", "paper") == "offsets-far-C1"
    assert variant_of("claims/test_robustness.py::test_robustness[offsets-far-C1]", "paper", "offsets-far", "C1") == ""
    assert variant_of("claims/test_multiverse.py::test_m[init-small-C12-d64]", "paper", "init-small", "C12") == "d64"
    assert variant_of("claims/test_c01.py::test_x", "quick") == ""
