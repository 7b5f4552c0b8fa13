"""The JUnit properties of a claim test (``lengthgen.testing.verdicts.junit_properties``): short strings that
say what the markdown summary says of it, under names apart from the record's xdist transport
(``run.RECORD_PROPERTY``), so the controller never takes one for a record. A real ``--junitxml`` run,
serially and under xdist, is in ``tests/integration/test_summary_md.py``."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from lengthgen.records import ClaimRecord, ControlRecorder
from lengthgen.testing.run import RECORD_PROPERTY, RunRecords
from lengthgen.testing.verdicts import junit_properties

from tests import report_samples

NAMES = [
    "lengthgen_claim",
    "lengthgen_kind",
    "lengthgen_verdict",
    "lengthgen_paper",
    "lengthgen_measured",
    "lengthgen_checks",
    "lengthgen_close",
]


def test_a_claims_properties_are_its_row_of_the_summary():
    properties = junit_properties(ClaimRecord.from_dict(report_samples.reproduced()))
    assert [name for name, _ in properties] == NAMES
    values = dict(properties)
    assert values["lengthgen_claim"] == "C1" and values["lengthgen_kind"] == "claim"
    assert values["lengthgen_verdict"] == "reproduced" and values["lengthgen_close"] == "no"
    assert values["lengthgen_paper"] and values["lengthgen_measured"]
    assert all(isinstance(value, str) for _, value in properties)


def test_a_close_call_and_a_failure_say_so():
    close = dict(junit_properties(ClaimRecord.from_dict(report_samples.close_call())))
    assert close["lengthgen_verdict"] == "reproduced (close)" and close["lengthgen_close"].startswith("close (")
    failed = dict(junit_properties(ClaimRecord.from_dict(report_samples.failed())))
    assert failed["lengthgen_verdict"] == "failed"
    passed, total = map(int, failed["lengthgen_checks"].split("/"))
    assert passed < total
    assert (
        dict(junit_properties(ClaimRecord.from_dict(report_samples.not_reproduced())))["lengthgen_verdict"]
        == "not reproduced"
    )


def test_a_control_carries_its_id_and_verdict():
    control = ControlRecorder("C15", "claims/test_c15_kernel.py::test_control[quick]").record
    control.verdict = "discriminates"
    assert junit_properties(control) == [
        ("lengthgen_claim", "C15"),
        ("lengthgen_kind", "control"),
        ("lengthgen_verdict", "discriminates"),
    ]


def test_the_transport_name_is_none_of_the_junit_names_and_the_controller_ignores_them():
    assert RECORD_PROPERTY not in NAMES
    record = report_samples.reproduced()
    run = RunRecords()
    call = SimpleNamespace(user_properties=[(RECORD_PROPERTY, record)])  # the call report: the record
    teardown = SimpleNamespace(
        user_properties=junit_properties(ClaimRecord.from_dict(record))
    )  # junitxml's: item.user_properties
    run.pytest_runtest_logreport(call)
    run.pytest_runtest_logreport(teardown)
    assert run.records == [record]


def test_a_tests_model_count_is_its_processs_trained_models_across_it():
    """``trained_so_far`` counts the models this process stored (every model kind, no evaluation); a test's
    ``models_trained`` is its difference across the test."""
    from collections import Counter

    import pytest

    from lengthgen.testing.session import SESSION, LengthgenSession
    from lengthgen.testing.verdicts import trained_so_far

    config = SimpleNamespace(stash=pytest.Stash())
    config.stash[SESSION] = state = LengthgenSession(
        started=0.0, fresh_after=None, plan=None, report_dir=Path("reports"), run=RunRecords(), runtime=None
    )
    assert trained_so_far(config) == 0  # no cache made yet in this process
    stats = Counter({"train:computed": 3, "two-layer:computed": 2, "eval:computed": 5, "two-layer-eval:computed": 4})
    stats["train:hit"] = 7
    state.memo.cache = SimpleNamespace(stats=stats)
    assert trained_so_far(config) == 5
