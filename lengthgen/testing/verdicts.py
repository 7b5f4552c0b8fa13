"""Each claim test's record, with its verdict, onto its test report. The recorder decided the verdict once
(``verify()``, ``lengthgen.records.verdict.decide``) and pytest's outcome follows from it: a ``NotReproduced``
finding ends the test as pytest's xfail (:func:`pytest_runtest_call`). After the test (or its failed setup) the
record gets the runtime and the models its process trained during it, and a test that broke before or beside its
verdict (an exception, a skip, an assertion outside the recorder) gets its verdict here (:func:`broke`); the
record rides on the report's ``user_properties``, so the xdist controller receives every worker's records.

The test also gets a few short strings as JUnit properties (``item.user_properties``, as ``record_property``
adds them): ``lengthgen_claim`` (the id), ``lengthgen_kind``, ``lengthgen_verdict``, and for a claim
``lengthgen_paper``, ``lengthgen_measured``, ``lengthgen_checks`` and ``lengthgen_close``, so ``--junitxml``
shows them. pytest's
junitxml writes the properties of the teardown report, which pytest builds from ``item.user_properties``;
the record itself rides only on the (copied) list of the report that finished the test, so it never
reaches the XML."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from lengthgen.testing.run import RECORD_PROPERTY
from lengthgen.testing.session import session_of

if TYPE_CHECKING:
    from lengthgen.records import Verdict

# item.stash
RECORDER = pytest.StashKey[Any]()  # the test's ClaimRecorder or ControlRecorder, once its fixture ran
DURATION = pytest.StashKey[float]()  # seconds of the test's phases reported so far
TRAINED_BEFORE = pytest.StashKey[int]()  # models this process had trained when the test's setup began


def _message(report: pytest.TestReport) -> str | None:
    """The one-line reason pytest gives: the crash message, or the skip reason."""
    longrepr = report.longrepr
    if longrepr is None:
        return None
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # a skip: (path, line, "Skipped: reason")
        return str(longrepr[2]).removeprefix("Skipped: ")
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None and getattr(crash, "message", None):
        return crash.message
    lines = [line for line in str(longrepr).splitlines() if line.strip()]
    return lines[-1] if lines else None


def trained_so_far(config: pytest.Config) -> int:
    """Models this process has trained and stored so far (its cache's "computed" counts of model kinds, not of
    evaluations): a test's own count is the difference across it. A model trained for two tests counts once,
    in the test that trained it (the other reads it from the cache or its process's memo)."""
    cache = session_of(config).memo.cache
    if cache is None:
        return 0
    from lengthgen.testing.environment import is_evaluation

    return sum(
        int(n)
        for key, n in cache.stats.items()
        if key.endswith(":computed") and not is_evaluation(key.rpartition(":")[0])
    )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    item.stash[TRAINED_BEFORE] = trained_so_far(item.config)


def _unrun_recorder(item: pytest.Item, marker: pytest.Mark):
    """The recorder of a test that never ran (setup failed or skipped before the claim fixture)."""
    from lengthgen.records import ClaimRecorder, ControlRecorder

    recorder = (ControlRecorder if marker.name == "control" else ClaimRecorder)(marker.args[0], item.nodeid)
    scale = getattr(getattr(item, "callspec", None), "params", {}).get("scale")
    if isinstance(scale, str):
        recorder.set_scale(name=scale)
    return recorder


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """A declared non-reproduction (``verify()`` raised ``NotReproduced``) ends the test as pytest's xfail, with
    the verdict's reason: pytest's outcome follows from the verdict."""
    from lengthgen.records import NotReproduced

    try:
        return (yield)
    except NotReproduced as finding:
        pytest.xfail(finding.reason)


def broke(report: pytest.TestReport, call: pytest.CallInfo, record) -> Verdict | None:
    """How a finished test broke where its recorder's verdict does not stand: "skipped", "error" (an exception, a
    failed setup), "failed" (an assertion outside the recorder, or an xfail that is not its declared finding);
    None where the verdict the recorder decided ended the test."""
    from lengthgen.records import Verdict, VerdictFailed

    if report.skipped and not hasattr(report, "wasxfail"):
        return Verdict.SKIPPED
    if report.when == "setup":
        return Verdict.ERROR
    if hasattr(report, "wasxfail"):  # only the recorder's declared finding may end a claim test as an xfail
        return None if record.verdict is Verdict.NOT_REPRODUCED else Verdict.FAILED
    if call.excinfo is None:
        return None
    if call.excinfo.errisinstance(VerdictFailed):
        return None
    return Verdict.FAILED if call.excinfo.errisinstance(AssertionError) else Verdict.ERROR


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    marker = item.get_closest_marker("claim") or item.get_closest_marker("control")
    if marker is None:
        return
    item.stash[DURATION] = item.stash.get(DURATION, 0.0) + report.duration
    finished = report.when == "call" or (report.when == "setup" and not report.passed)
    if not finished:
        return
    from lengthgen.records import Verdict
    from lengthgen.records.verdict import broken, decide

    recorder = item.stash.get(RECORDER, None) or _unrun_recorder(item, marker)
    record = recorder.record
    record.runtime_s = item.stash[DURATION]
    record.models_trained = trained_so_far(item.config) - item.stash.get(TRAINED_BEFORE, 0)
    how = broke(report, call, record)
    if how is not None:
        reason = _message(report)
        if hasattr(report, "wasxfail"):
            reason = (
                f"xfail that is not the claim's declared finding (an exception is not a finding): {report.wasxfail}"
            )
        broken(record, how, f"setup failed: {reason}" if how is Verdict.ERROR and report.when == "setup" else reason)
    elif record.verdict is None:  # the test passed without calling verify(): its verdict is decided here, once
        decide(record)
    data = record.to_dict()
    report.user_properties.append((RECORD_PROPERTY, data))
    item.user_properties.extend(junit_properties(record))
    from lengthgen.testing.drawing import draw_soon

    draw_soon(item.config, data.get("figures"))  # by this process (or its training processes), not the report's


def junit_properties(record) -> list[tuple[str, str]]:
    """The record (``lengthgen.records.ClaimRecord``) in short, as JUnit properties (name, plain string): id,
    kind and verdict label; for a claim also the paper value (a prediction's statement), the measured headline,
    checks passed and the close call, as the markdown summary shows them (``lengthgen.report.markdown``)."""
    properties = [("lengthgen_claim", record.claim), ("lengthgen_kind", record.kind)]
    if record.kind != "claim":
        return properties + [("lengthgen_verdict", str(record.verdict or "unknown"))]
    from lengthgen.report import text
    from lengthgen.report.markdown import close_cell

    passed, total = record.checks_passed
    return properties + [
        ("lengthgen_verdict", record.label),
        ("lengthgen_paper", record.statement if record.is_prediction else record.paper_value),
        ("lengthgen_measured", text.headline(record, compact=True)),
        ("lengthgen_checks", f"{passed}/{total}"),
        ("lengthgen_close", close_cell(record) or "no"),
    ]
