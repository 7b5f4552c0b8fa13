"""Every threshold says where it comes from: each ``.check(`` call in the claim modules passes ``source=``
with one of ``records.THRESHOLD_SOURCES`` (a literal, so a reader sees it at the call), and the recorder
rejects an unknown source. Read from the source text (AST), so nothing trains."""

from __future__ import annotations

import ast

import pytest

from lengthgen.catalogue import Entry
from lengthgen.records import THRESHOLD_SOURCES, ClaimRecorder, ClaimRecord
from tests.helpers import ROOT

CLAIMS = ROOT / "claims"


def check_calls() -> list[tuple[str, ast.Call]]:
    """``(file:line, call)`` for every recorder check in claims/*.py: a ``<something>.check(...)`` call with the
    recorder's four positional arguments (name, value, op, threshold); a claim module's own ``check(claim,
    result)`` called as ``module.check(...)`` has fewer."""
    calls = []
    for path in sorted(CLAIMS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "check"
                and len(node.args) >= 4
            ):
                calls.append((f"{path.name}:{node.lineno}", node))
    return calls


def test_the_claim_modules_have_check_calls():
    assert len(check_calls()) >= 60  # a floor just below the claim modules' count of check calls: the walk finds them


def test_every_check_call_states_its_threshold_source():
    missing, unknown = [], []
    for where, call in check_calls():
        source = next((k.value for k in call.keywords if k.arg == "source"), None)
        if source is None:
            missing.append(where)
        elif not (isinstance(source, ast.Constant) and source.value in THRESHOLD_SOURCES):
            unknown.append(where)
    assert not missing, f"claim.check(...) without source= (one of {THRESHOLD_SOURCES}): {missing}"
    assert not unknown, f"source= is not a literal of {THRESHOLD_SOURCES}: {unknown}"


def test_the_source_is_recorded_serialised_and_validated():
    entry = Entry("C15", "t", "Fig. 4", "s", "0.67-0.79", "a", quote=("max g(s)/g(0) \u2248 0.67\u20130.79",))
    recorder = ClaimRecorder(entry)
    recorder.check(
        "ratio", 0.748, "in", (0.67, 0.79), source="paper-range", source_note="0.67-0.79", quoted="0.67-0.79"
    )
    data = recorder.record.to_dict()
    assert data["checks"][0]["threshold_source"] == "paper-range"
    assert data["checks"][0]["threshold_note"] == "0.67-0.79"
    assert data["threshold_basis"] == "paper"
    assert ClaimRecord.from_dict(data).checks[0].threshold_source == "paper-range"
    with pytest.raises(ValueError, match="'the paper, roughly'"):
        recorder.check("ratio", 0.748, ">=", 0.7, source="the paper, roughly")


def test_the_basis_is_over_the_deciding_checks():
    recorder = ClaimRecorder("C11")
    recorder.check("cosine", 0.1, "<=", 0.3, source="suite-reading")
    recorder.check("offset", -2.0, "==", -2.0, source="paper-number")
    assert recorder.record.to_dict()["threshold_basis"] == "suite reading"  # all pass: every check decides
    recorder.check("offset L=48", -1.0, "==", -2.0, source="paper-number")
    assert recorder.record.to_dict()["threshold_basis"] == "paper"  # the failed check decides
    predicted = ClaimRecorder("P1")
    predicted.check("offset", -2.0, "==", -2.0, source="catalogue-prediction")
    assert predicted.record.to_dict()["threshold_basis"] == "catalogue prediction"
    assert ClaimRecorder("C2").record.to_dict()["threshold_basis"] is None  # no checks
