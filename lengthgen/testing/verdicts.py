"""Each claim test's record, with its verdict, onto its test report: after the test (or its failed
setup) the recorder's record gets the runtime, the models its process trained during it, pytest's outcome
and the verdict of ``lengthgen.report.verdict.decide``, and rides on the report's ``user_properties``, so the xdist
controller receives every worker's records. A ``NotReproduced`` finding is reported as pytest reports an
xfail.

The test also gets a few short strings as JUnit properties (``item.user_properties``, as ``record_property``
adds them): ``lengthgen_claim`` (the id), ``lengthgen_kind``, ``lengthgen_verdict``, and for a claim
``lengthgen_paper``, ``lengthgen_measured``, ``lengthgen_checks`` and ``lengthgen_close``, so ``--junitxml``
shows them. pytest's
junitxml writes the properties of the teardown report, which pytest builds from ``item.user_properties``;
the record itself rides only on the (copied) list of the report that finished the test, so it never
reaches the XML."""

from __future__ import annotations

import pytest

from lengthgen.testing import state


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


def _outcome(report: pytest.TestReport, call: pytest.CallInfo) -> str:
    """passed, xfailed, skipped, failed (an assertion of the test, or a strict xfail that passed), error."""
    if report.passed:
        return "passed"
    if report.skipped:
        return "xfailed" if hasattr(report, "wasxfail") else "skipped"
    if report.when == "call" and (call.excinfo is None or call.excinfo.errisinstance(AssertionError)):
        return "failed"
    return "error"


def trained_so_far(config: pytest.Config) -> int:
    """Models this process has trained and stored so far (its cache's "computed" counts of model kinds, not of
    evaluations): a test's own count is the difference across it. A model trained for two tests counts once,
    in the test that trained it (the other reads it from the cache or its process's memo)."""
    cache = config.stash.get(state.CACHE, None)
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
    item.stash[state.TRAINED_BEFORE] = trained_so_far(item.config)


def _unrun_recorder(item: pytest.Item, marker: pytest.Mark):
    """The recorder of a test that never ran (setup failed or skipped before the claim fixture)."""
    from lengthgen.records import ClaimRecorder, ControlRecorder

    recorder = (ControlRecorder if marker.name == "control" else ClaimRecorder)(marker.args[0], item.nodeid)
    scale = getattr(getattr(item, "callspec", None), "params", {}).get("scale")
    if isinstance(scale, str):
        recorder.set_scale(name=scale)
    return recorder


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    marker = item.get_closest_marker("claim") or item.get_closest_marker("control")
    if marker is None:
        return
    from lengthgen.records import NotReproduced

    if call.excinfo is not None and call.excinfo.errisinstance(NotReproduced) and report.when == "call":
        report.outcome = "skipped"  # as pytest reports an xfail: the finding, with this run's measured values
        report.wasxfail = call.excinfo.value.reason
    item.stash[state.DURATION] = item.stash.get(state.DURATION, 0.0) + report.duration
    recorder = item.stash.get(state.RECORDER, None)
    finished = report.when == "call" or (report.when == "setup" and not report.passed)
    if not finished:
        return
    if recorder is None:
        recorder = _unrun_recorder(item, marker)
    from lengthgen.report.verdict import decide

    record = recorder.record
    record.runtime_s = item.stash[state.DURATION]
    record.models_trained = trained_so_far(item.config) - item.stash.get(state.TRAINED_BEFORE, 0)
    record.outcome = _outcome(report, call)
    reason = report.wasxfail if record.outcome == "xfailed" else _message(report)
    if record.outcome == "error" and report.when == "setup":
        reason = f"setup failed: {reason}"
    data = record.to_dict()
    record.verdict, record.verdict_reason = decide(data, record.outcome, reason)
    if record.kind == "claim":
        from lengthgen.report.verdict import closeness

        for key, value in closeness(data).items():
            setattr(record, key, value)
    data.update(
        verdict=record.verdict,
        verdict_reason=record.verdict_reason,
        close=record.close,
        close_checks=record.close_checks,
        seeds_to_decide=record.seeds_to_decide,
    )
    report.user_properties.append((state.RECORD_PROPERTY, data))
    item.user_properties.extend(junit_properties(data))
    from lengthgen.testing.drawing import draw_soon

    draw_soon(item.config, data.get("figures"))  # by this process (or its training processes), not the report's


def junit_properties(record: dict) -> list[tuple[str, str]]:
    """The record in short, as JUnit properties (name, plain string): id, kind and verdict label; for a
    claim also the paper value (a prediction's statement), the measured headline, checks passed and the
    close call, as the markdown summary shows them (``lengthgen.report.markdown``, from the record's
    ``ClaimView``)."""
    properties = [("lengthgen_claim", record["claim"]), ("lengthgen_kind", record["kind"])]
    if record["kind"] != "claim":
        return properties + [("lengthgen_verdict", str(record.get("verdict") or "unknown"))]
    from lengthgen.report import text
    from lengthgen.report.markdown import close_cell
    from lengthgen.report.run_view import ClaimView

    view = ClaimView.parse(record)
    passed, total = view.checks_passed
    return properties + [
        ("lengthgen_verdict", view.verdict_label),
        ("lengthgen_paper", view.statement if view.is_prediction else view.paper_value),
        ("lengthgen_measured", text.headline(view, compact=True)),
        ("lengthgen_checks", f"{passed}/{total}"),
        ("lengthgen_close", close_cell(view) or "no"),
    ]
