"""pytest's outcome of a claim test follows from the verdict its recorder decided (``ClaimRecorder.verify``,
``lengthgen.testing.verdicts``): a declared non-reproduction ends as pytest's xfail with the verdict "not
reproduced", a finding fails the test, a reproduction passes, and an exception other than the verdict's is the
verdict "error". A real pytest run of hand-made claim tests in a subprocess (serially, no training), read through
its ``--junitxml`` (each test's outcome beside its ``lengthgen_verdict`` property) and its claims.json.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

pytestmark = pytest.mark.slow

TIMEOUT_S = 120

CLAIMS = """
import pytest
from lengthgen.records import Declared
from lengthgen.scale import PAPER

@pytest.mark.claim("C8")
def test_declared_failing_check(claim):
    claim.expect_not_reproduced(PAPER, Declared(("peak position*",), "a flat profile"))
    claim.check("peak position K=3", 44.0, "<", 16.0)
    claim.check("other", 1.0, ">=", 0.5)
    claim.verify()

@pytest.mark.claim("C5")
def test_raises(claim):
    claim.check("value", 0.9, ">=", 0.5)
    raise RuntimeError("boom")

@pytest.mark.claim("C4")
def test_undeclared_failing_check(claim):
    claim.check("value", 0.1, ">=", 0.5)
    claim.verify()

@pytest.mark.claim("C15")
def test_reproduced(claim):
    claim.check("value", 0.9, ">=", 0.5)
    claim.verify()
"""


def test_a_declared_failure_is_pytests_xfail_and_an_exception_is_an_error(tmp_path):
    (tmp_path / "test_claims.py").write_text(CLAIMS)
    out, junit = tmp_path / "report", tmp_path / "junit.xml"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "test_claims.py",
            "-o",
            "lengthgen_suite=true",
            "-o",
            "xfail_strict=true",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            f"--lengthgen-report-dir={out}",
            f"--lengthgen-cache-dir={tmp_path / 'cache'}",
            f"--junitxml={junit}",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    assert "2 failed, 1 passed, 1 xfailed" in result.stdout
    outcomes = {}  # each test's pytest outcome (the element that ended it, none when it passed) and its verdict
    for case in ET.parse(junit).getroot().iter("testcase"):
        properties = {p.get("name"): p.get("value") for p in case.iter("property")}
        ended = [(child.tag, child.get("type")) for child in case if child.tag in ("skipped", "failure", "error")]
        outcomes[case.get("name")] = (ended[0] if ended else ("passed", None), properties["lengthgen_verdict"])
    assert outcomes["test_declared_failing_check"] == (("skipped", "pytest.xfail"), "not reproduced")
    assert outcomes["test_raises"][0][0] == "failure" and outcomes["test_raises"][1] == "error"
    assert outcomes["test_undeclared_failing_check"][0][0] == "failure"
    assert outcomes["test_undeclared_failing_check"][1] == "not reproduced (undeclared)"
    assert outcomes["test_reproduced"] == (("passed", None), "reproduced")
    records = {r["claim"]: r for r in json.loads((out / "claims.json").read_text())["records"]}
    assert records["C8"]["verdict"] == "not reproduced"
    assert records["C8"]["verdict_reason"] == (
        "C8: 1 of 2 checks fail as expected (a flat profile): peak position K=3: measured 44 < 16.0; "
        "the other 1 checks hold"
    )
    assert [c["expected_to_fail"] for c in records["C8"]["checks"]] == [True, False]
    assert (records["C5"]["verdict"], records["C5"]["verdict_reason"]) == ("error", "RuntimeError: boom")
