"""The verdict rule (lengthgen.records.verdict.decide, broken) on hand-made records, and the record itself."""

from __future__ import annotations

import dataclasses
import json
import math
from types import SimpleNamespace

import pytest

from lengthgen.records import Check, ClaimRecord, ClaimRecorder, Control, Declared, NotReproduced, VerdictFailed
from lengthgen.records.verdict import FAIL, PASS, XFAIL, broken, close_checks, deciding_check, decide, undecided
from lengthgen.scale import PAPER as PAPER_SCALE
from lengthgen.testing.verdicts import broke

PAPER = {"name": "paper", "seeds": 8, "paper_seeds": 8}
TWO_OF_EIGHT = {"name": "paper", "seeds": 2, "paper_seeds": 8}
DILUTION = Declared(("K=1 L=48: *",), "dilution")


def record(scale: dict, values, op=">=", threshold=0.85, reduce="mean", **kwargs) -> ClaimRecord:
    recorder = ClaimRecorder("C6")
    recorder.set_scale(**scale)
    recorder.check("statistic", values, op, threshold, reduce=reduce, **kwargs)
    return recorder.record


def test_every_check_passing_is_reproduced():
    data = record(PAPER, [0.9] * 8)
    assert decide(data) == PASS and (data.verdict, data.verdict_reason) == ("reproduced", None)


def test_no_checks_cannot_be_decided():
    data = ClaimRecorder("C6").record
    assert decide(data) == FAIL and data.verdict == "failed" and "no checks" in data.verdict_reason


def test_a_declared_failure_is_not_reproduced_with_this_runs_values():
    recorder = ClaimRecorder("C20")
    recorder.expect_not_reproduced(PAPER_SCALE, DILUTION)
    recorder.check("K=1 L=48: accuracy", 0.82, ">=", 0.95)
    recorder.check("K=1 L=40: accuracy", 0.96, ">=", 0.95)
    with pytest.raises(
        NotReproduced,
        match=r"1 of 2 checks fail as expected \(dilution\): K=1 L=48: accuracy: "
        r"measured 0.82 >= 0.95; the other 1 checks hold",
    ):
        recorder.verify()
    assert recorder.record.verdict == "not reproduced"
    assert [c.expected_to_fail for c in recorder.record.checks] == [True, False]


def test_an_undeclared_failure_an_unexpected_pass_and_a_stray_pattern_fail_the_test():
    other = ClaimRecorder("C20")
    other.expect_not_reproduced(PAPER_SCALE, DILUTION)
    other.check("K=1 L=48: accuracy", 0.82, ">=", 0.95)
    other.check("K=1: argmax of phi_c", 3.0, "==", 0.0)
    with pytest.raises(VerdictFailed, match="not among the expected failures"):
        other.verify()
    assert other.record.verdict == "not reproduced (undeclared)"
    passing = ClaimRecorder("C20")
    passing.expect_not_reproduced(PAPER_SCALE, DILUTION)
    passing.check("K=1 L=48: accuracy", 0.97, ">=", 0.95)
    with pytest.raises(VerdictFailed, match="unexpected pass"):
        passing.verify()
    assert passing.record.verdict == "unexpectedly reproduced"
    stray = ClaimRecorder("C20")
    stray.expect_not_reproduced(PAPER_SCALE, Declared(("nothing like this*",), "dilution"))
    stray.check("K=1 L=48: accuracy", 0.5, ">=", 0.95)
    with pytest.raises(VerdictFailed, match="match no check"):
        stray.verify()
    assert stray.record.verdict == "failed"


def test_a_declaration_applies_only_at_its_scales():
    recorder = ClaimRecorder("C20")
    recorder.expect_not_reproduced(dataclasses.replace(PAPER_SCALE, name="quick"), DILUTION)
    assert recorder.record.declared is None


def test_a_custom_seed_run_that_passes_a_declared_non_reproduction_is_reproduced():
    recorder = ClaimRecorder("C20")
    recorder.expect_not_reproduced(dataclasses.replace(PAPER_SCALE, seeds=(0, 1)), DILUTION)
    recorder.check("K=1 L=48: accuracy", 0.97, ">=", 0.95)
    recorder.verify()  # not strict: no error
    assert recorder.record.verdict == "reproduced"


def test_control_verdicts():
    data = record(PAPER, [0.5] * 8)
    data.mode = Control("zeros")
    assert decide(data) == PASS and data.verdict == "discriminates"
    blind = record(PAPER, [0.9] * 8)
    blind.mode = Control("zeros")
    assert decide(blind) == FAIL and blind.verdict == "failed" and "does not discriminate" in blind.verdict_reason


def verified(scale: dict, values, declared: Declared | None = None, **kwargs) -> ClaimRecord:
    """A record whose test ran ``verify()``, with the check ``statistic`` of ``values`` and one that holds."""
    recorder = ClaimRecorder("C11")
    recorder.set_scale(**scale)
    if declared is not None:
        recorder.expect_not_reproduced(PAPER_SCALE, declared)
    recorder.check("statistic", values, ">=", 0.85, **kwargs)
    recorder.check("other", 1.0, ">=", 0.5, source="paper-number")
    with pytest.raises(VerdictFailed):
        recorder.verify()
    return recorder.record


def test_an_undeclared_failing_check_is_a_finding_with_its_measured_value():
    data = verified(PAPER, [0.5] * 8)
    assert data.verdict == "not reproduced (undeclared)"
    assert data.verdict_reason.startswith(
        "C11 not reproduced at the catalogue's point, not declared: 1 of 2 checks fail: statistic: measured 0.5 >= 0.85"
    )
    assert data.verdict_reason.endswith("the other 1 checks hold")


def test_an_undeclared_finding_says_where_it_ran():
    more = verified({"name": "paper", "seeds": 24, "paper_seeds": 5}, [0.5] * 24)
    assert "with 24 seeds (the paper's 5)" in more.verdict_reason
    recorder = ClaimRecorder("C11")
    recorder.set_setting("fresh-seeds")
    recorder.set_scale(name="paper", seeds=5, paper_seeds=5, seed_list=[100, 101, 102, 103, 104])
    recorder.check("statistic", [0.5] * 5, ">=", 0.85)
    assert decide(recorder.record) == FAIL
    assert "at the robustness setting fresh-seeds, with seeds 100..104" in recorder.record.verdict_reason
    looked = record({"name": "paper", "seeds": 24, "paper_seeds": 5}, [0.5] * 24)
    looked.looks = {"seeds_final": 24}
    decide(looked)
    assert "with 24 seeds (--lengthgen-until-decided; the paper's 5)" in looked.verdict_reason


def test_a_finding_that_turns_only_on_suite_readings_says_so():
    data = verified(PAPER, [0.5] * 8, source="suite-reading", source_note='"fits in distribution"')
    assert data.threshold_basis == "suite reading"
    assert "the suite's reading of the paper" in data.verdict_reason
    paper = verified(PAPER, [0.5] * 8, source="paper-number")
    assert paper.threshold_basis == "paper"
    assert "suite's reading" not in paper.verdict_reason


def test_a_strict_declaration_that_passes_is_unexpectedly_reproduced():
    data = record(PAPER, [0.9] * 8)
    data.declared = Declared(("statistic",), "partial alignment")
    assert decide(data) == FAIL and data.verdict == "unexpectedly reproduced"
    data.declared = dataclasses.replace(data.declared, strict=False)
    assert decide(data) == PASS and data.verdict == "reproduced"


def test_a_broken_test_keeps_pytests_reason():
    error = record(PAPER, [0.9] * 8)
    broken(error, "error", "RuntimeError: boom")
    assert (error.verdict, error.verdict_reason, error.close) == ("error", "RuntimeError: boom", False)
    outside = record(PAPER, [0.5] * 8)  # a plain assert failed after a failing check was recorded
    broken(outside, "failed", "AssertionError: ...")
    assert (outside.verdict, outside.verdict_reason) == ("failed", "AssertionError: ...")
    skipped = ClaimRecorder("C9").record
    broken(skipped, "skipped", "no quick variant")
    assert (skipped.verdict, skipped.verdict_reason) == ("skipped", "no quick variant")
    with pytest.raises(ValueError, match="'weird'"):
        broken(skipped, "weird", None)


def test_recorder_inconclusive_wins_over_a_pass():
    recorder = ClaimRecorder("C6")
    recorder.set_scale(**PAPER)
    recorder.check("statistic", [0.9] * 8, ">=", 0.85)
    recorder.inconclusive("the probe saw no carrier")
    assert decide(recorder.record) == PASS
    assert (recorder.record.verdict, recorder.record.verdict_reason) == ("inconclusive", "the probe saw no carrier")


def test_too_few_seeds_with_the_threshold_inside_the_interval_is_inconclusive():
    passing = record(TWO_OF_EIGHT, [0.80, 0.95])  # mean 0.875, interval about [-0.08, 1.83]
    assert decide(passing) == PASS and passing.verdict == "inconclusive"
    assert "2 of the paper's 8" in passing.verdict_reason and "statistic" in passing.verdict_reason
    failing = record(TWO_OF_EIGHT, [0.70, 0.95])  # mean 0.825 < 0.85, but the interval holds 0.85
    assert decide(failing) == FAIL and failing.verdict == "inconclusive"


def test_too_few_seeds_but_decisive_keeps_the_verdict():
    clear = record(TWO_OF_EIGHT, [0.97, 0.98])
    assert decide(clear) == PASS and clear.verdict == "reproduced"
    assert verified(TWO_OF_EIGHT, [0.10, 0.12]).verdict == "not reproduced (undeclared)"


def test_a_single_seed_of_several_decides_nothing():
    one = record({"name": "paper", "seeds": 1, "paper_seeds": 8}, [0.99])
    decide(one)
    assert one.verdict == "inconclusive"


def test_the_papers_seed_count_decides_even_a_close_call():
    close = record(PAPER, [0.80, 0.95, 0.82, 0.91, 0.84, 0.88, 0.86, 0.90])
    assert close.checks[0].close and not undecided(close.checks[0], close)
    decide(close)
    assert close.verdict == "reproduced" and close.label == "reproduced (close)"


def test_every_seed_checks_are_not_mean_checks():
    data = record(TWO_OF_EIGHT, [0.90, 0.95], reduce="all")
    assert data.checks[0].value == 0.90  # the worst seed is the statistic
    decide(data)
    assert data.verdict == "reproduced"


def test_record_round_trips_and_tolerates_unknown_fields():
    data = record(PAPER, [0.9, 0.95], op="in", threshold=(0.8, 1.0))
    decide(data)
    written = data.to_dict()
    assert ClaimRecord.from_dict(written).to_dict() == written
    written["added_by_a_later_version"] = 1
    written["checks"][0]["also_new"] = True
    loaded = ClaimRecord.from_dict(written)
    assert loaded.checks[0].threshold == (0.8, 1.0) and loaded.checks[0].reduce == "mean"
    old = {k: v for k, v in written.items() if k not in ("verdict_reason", "added_by_a_later_version")}
    old["checks"] = [{k: v for k, v in c.items() if k not in ("reduce", "also_new")} for c in written["checks"]]
    assert ClaimRecord.from_dict(old).checks[0].reduce is None  # a claims.json of the first version


def test_an_older_flat_record_reads_into_its_mode():
    old = {"claim": "C1", "setting": "width-32", "expected_failures": {"patterns": ["x*"], "why": "w"}}
    loaded = ClaimRecord.from_dict(old)
    assert loaded.setting == "width-32" and loaded.declared.checks == ("x*",) and loaded.declared.why == "w"
    cell = ClaimRecord.from_dict({"claim": "C1", "reading": "init=gpt2"})
    assert cell.universe == "init=gpt2" and cell.mode.kind == "universe" and cell.kind == "claim"
    control = ClaimRecord.from_dict({"claim": "C1", "kind": "control", "counterfactual": "zeros"})
    assert control.kind == "control" and control.counterfactual == "zeros"


def test_an_older_records_looks_headlines_and_declaration_read_into_their_fields():
    old = {
        "claim": "C9",
        "scale": {"name": "paper", "seeds": 12, "paper_seeds": 5},
        "expected_failures": {"patterns": ["cell*", "other"], "why": "a flat profile", "strict": False},
        "sequential": {"level": 0.99, "seeds_final": 12},
        "headlines": ["slope"],
        "measured": {
            "intercept": {"mean": 0.1, "ci95": [0.0, 0.2], "values": [0.1]},
            "slope": {"mean": 0.5, "ci95": [0.4, None], "values": [0.5]},
        },
        "checks": [
            # an older check: no interval kind, seeds, level or derived facts; a mean with an interval is a t
            {
                "name": "cell",
                "value": 0.2,
                "op": "<=",
                "threshold": 0.15,
                "passed": False,
                "reduce": "mean",
                "values": [0.19, 0.2, 0.21],
                "ci95": [0.1, 0.3],
                "decision_ci": [0.16, 0.24],
            },
        ],
    }
    loaded = ClaimRecord.from_dict(old)
    assert loaded.mode.kind == "paper" and loaded.setting is None and loaded.universe is None
    assert loaded.declared == Declared(("cell*", "other"), "a flat profile", ("paper", "quick"), strict=False)
    assert loaded.looks == {"level": 0.99, "seeds_final": 12}
    assert [(m.name, m.headline) for m in loaded.measured] == [("intercept", False), ("slope", True)]
    assert [m.name for m in loaded.headlines] == ["slope"]
    assert loaded.measured[1].ci95[0] == 0.4 and math.isnan(loaded.measured[1].ci95[1])  # a bound JSON lost
    (check,) = loaded.checks
    assert (check.interval, check.seeds, check.level) == ("t", 3, 0.99)  # its values' count; the run's level
    assert check.has_interval and not check.close and check.basis == "suite reading"  # [0.16, 0.24] decides
    written = loaded.to_dict()
    assert written["declared"]["checks"] == ["cell*", "other"] and written["looks"]["seeds_final"] == 12
    assert "expected_failures" not in written and "sequential" not in written and "headlines" not in written


def test_a_checks_derived_facts_round_trip():
    close = _record(("cell", [0.146, 0.149, 0.147], "<=", 0.15, {"source": "paper-number"})).checks[0]
    assert (close.has_interval, close.close, close.basis, close.interval, close.seeds) == (True, True, "paper", "t", 3)
    raised = Check(  # a deciding interval at a raised level that excludes the threshold its 95% interval holds
        "fit",
        0.9,
        ">=",
        0.85,
        True,
        (0.8, 0.95, 0.95),
        (0.7, 1.1),
        reduce="mean",
        interval="t",
        decision_ci=(0.86, 0.94),
        level=0.99,
        seeds=3,
        threshold_source="catalogue-prediction",
    )
    assert raised.has_interval and not raised.close and raised.decided and raised.basis == "catalogue prediction"
    ranged = Check("ratio", 0.75, "in", (0.74, 0.76), True, interval="exact", threshold_source="paper-range")
    assert (ranged.has_interval, ranged.close, ranged.basis) == (False, False, "paper")
    lead = _record(("lead", 0.001, ">", 0.0, {"bootstrap": ([-0.01, 0.0, 0.012, 0.002], sum)})).checks[0]
    assert (lead.has_interval, lead.close, lead.basis) == (True, True, "suite reading")
    for check in (close, raised, ranged, lead):
        written = check.to_dict()
        assert {k: written[k] for k in ("has_interval", "close", "basis")} == {
            "has_interval": check.has_interval,
            "close": check.close,
            "basis": check.basis,
        }
        assert Check.from_dict(json.loads(json.dumps(written))) == check  # tuples and the "in" range come back
    # the facts are derived again on reading, never taken from the file: a stale "close" is not believed
    stale = dict(raised.to_dict(), close=True, has_interval=False, basis="paper")
    assert Check.from_dict(stale) == raised and not Check.from_dict(stale).close


def test_verify_returns_raises_not_reproduced_or_fails_the_test_as_the_verdict_says():
    reproduced = ClaimRecorder("C20")
    reproduced.expect_not_reproduced(PAPER_SCALE, DILUTION, strict=False)
    reproduced.check("K=1 L=48: accuracy", 0.97, ">=", 0.95)
    assert reproduced.verify() is None and reproduced.record.verdict == "reproduced"
    declared = ClaimRecorder("C20")
    declared.expect_not_reproduced(PAPER_SCALE, DILUTION)
    declared.check("K=1 L=48: accuracy", 0.82, ">=", 0.95)
    with pytest.raises(NotReproduced) as raised:
        declared.verify()
    assert not isinstance(raised.value, AssertionError)  # pytest's xfail, not a failure
    assert raised.value.reason == declared.record.verdict_reason and declared.record.verdict == "not reproduced"
    undeclared = ClaimRecorder("C20")
    undeclared.check("K=1 L=48: accuracy", 0.82, ">=", 0.95)
    with pytest.raises(VerdictFailed, match="C20 failed: 1 of 1 checks failed\n  - K=1 L=48: accuracy") as failed:
        undeclared.verify()
    assert isinstance(failed.value, AssertionError) and undeclared.record.verdict == "not reproduced (undeclared)"


@pytest.mark.parametrize(
    "declared, value, verdict",
    [
        (None, 0.5, "not reproduced (undeclared)"),  # no declaration at all
        (Declared(("another",), "dilution"), 0.5, "failed"),  # the failing check is not the declared one
        (Declared(("statistic",), "dilution"), 0.9, "unexpectedly reproduced"),  # no check failed
    ],
)
def test_an_xfail_that_is_not_the_recorders_declared_finding_is_failed(declared, value, verdict):
    data = record(PAPER, [value] * 8)
    data.declared = declared
    decide(data)
    assert data.verdict == verdict
    xfailed = SimpleNamespace(skipped=True, wasxfail="not declared", when="call")  # pytest.xfail() in the test
    call = SimpleNamespace(excinfo=None)
    assert broke(xfailed, call, data) == "failed"
    finding = record(PAPER, [0.5] * 8)
    finding.declared = Declared(("statistic",), "dilution")
    assert decide(finding) == XFAIL and broke(xfailed, call, finding) is None  # the finding verify() raised


def test_how_a_test_broke_beside_its_verdict():
    data = record(PAPER, [0.9] * 8)
    decide(data)
    passed = SimpleNamespace(skipped=False, when="call")

    def raised(error: BaseException) -> SimpleNamespace:
        return SimpleNamespace(excinfo=pytest.ExceptionInfo.from_exc_info((type(error), error, None)))

    assert broke(passed, SimpleNamespace(excinfo=None), data) is None
    assert broke(passed, raised(VerdictFailed("finding")), data) is None  # the verdict failed the test
    assert broke(passed, raised(AssertionError("assert 1 == 2")), data) == "failed"
    assert broke(passed, raised(RuntimeError("boom")), data) == "error"
    assert broke(SimpleNamespace(skipped=False, when="setup"), raised(RuntimeError("fixture")), data) == "error"
    assert broke(SimpleNamespace(skipped=True, when="call"), SimpleNamespace(excinfo=None), data) == "skipped"


def _record(*checks, verdict: str | None = None) -> ClaimRecord:
    """A decided record with the given checks: (name, values or value, op, threshold, keyword arguments)."""
    recorder = ClaimRecorder("C9")
    recorder.set_scale(name="paper", seeds=3, paper_seeds=3)
    for name, value, op, threshold, kwargs in checks:
        recorder.check(name, value, op, threshold, **kwargs)
    decide(recorder.record)
    if verdict is not None:
        recorder.record.verdict = verdict
    return recorder.record


CLOSE_MEAN = ("cell", [0.146, 0.149, 0.147], "<=", 0.15, {})  # C9's deciding cell: [0.1435, 0.1511]
CLEAR_MEAN = ("other", [0.11, 0.12, 0.115], "<=", 0.15, {})


def test_close_is_a_deciding_interval_that_contains_the_threshold():
    close = _record(CLOSE_MEAN, CLEAR_MEAN)
    assert close.close and [c.name for c in close.close_checks] == ["cell"]
    assert close.check("cell").seeds_to_decide == 4
    assert close.label == "reproduced (close)"
    assert _record(CLEAR_MEAN).label == "reproduced"
    assert dataclasses.replace(close, verdict="inconclusive").label == "inconclusive"
    barely = _record(("barely", [0.149, 0.152, 0.151], "<=", 0.15, {}))  # more seeds pushed it over
    assert barely.verdict == "not reproduced (undeclared)" and barely.label == "not reproduced (undeclared) (close)"
    broken(barely, "failed", "assert False")  # an assertion outside: the label stays, its close checks listed
    assert barely.label == "failed" and [c.name for c in barely.close_checks] == ["barely"]
    broken(barely, "error", "RuntimeError")
    assert not barely.close  # an error is never a close call


@pytest.mark.parametrize(
    "check",
    [
        ("every seed", [0.146, 0.149, 0.147], "<=", 0.15, {"reduce": "all"}),  # more seeds can only find a worse one
        ("worst", [0.146, 0.149, 0.147], "<=", 0.15, {"reduce": "max"}),
        ("offset", [-2.0, -2.0, -1.0], "==", -2.0, {}),  # an identity has no interval
        ("ratio", 0.7479, "in", (0.74, 0.76), {"exact": True}),
        ("single number", 0.1499, "<=", 0.15, {}),
    ],
)
def test_checks_without_an_interval_are_never_close(check):
    data = _record(check)
    assert not data.checks[0].has_interval and close_checks(data) == []


def test_a_bootstrap_statistic_can_be_close():
    import numpy as np

    data = _record(("lead", 0.001, ">", 0.0, {"bootstrap": ([-0.01, 0.0, 0.012, 0.002], np.mean)}))
    assert data.checks[0].interval == "bootstrap" and [c.name for c in close_checks(data)] == ["lead"]


def test_a_failing_claim_is_close_only_when_every_failed_check_is():
    barely = ("barely", [0.149, 0.152, 0.151], "<=", 0.15, {})  # fails, interval holds 0.15
    clearly = ("clearly", [0.5, 0.52, 0.51], "<=", 0.15, {})
    one = _record(barely, CLEAR_MEAN)
    one.declared = Declared(("barely",), "known")
    decide(one)
    assert [c.name for c in close_checks(one)] == ["barely"] and one.label == "not reproduced (close)"
    both = _record(barely, clearly, CLOSE_MEAN)
    both.declared = Declared(("barely", "clearly"), "known")
    assert decide(both) == XFAIL
    assert close_checks(both) == [] and both.label == "not reproduced"  # a clear failure decides by itself
    assert deciding_check(both).name == "clearly"  # the failure furthest below its threshold
    every = _record(barely, ("every seed", [0.2, 0.2, 0.1], "<=", 0.15, {"reduce": "all"}))
    assert deciding_check(every).name == "every seed"  # as many seeds fail: one without an interval first
    one_seed = _record(barely, ("every seed", [0.2, 0.1, 0.1], "<=", 0.15, {"reduce": "all"}))
    assert deciding_check(one_seed).name == "barely"  # two seeds on the failing side against one


def test_the_deciding_failure_is_the_one_most_seeds_fail_then_the_furthest():
    # the first failing check has 1 of 5 seeds off, a later one 3 of 5: the later one decides, its worst seed shown
    first = ("L=24: offset, every seed", [-2, -21, -2, -2, -2], "==", -2, {"reduce": "all"})
    most = ("L=48: offset, every seed", [-40, -40, -2, -40, -2], "==", -2, {"reduce": "all"})
    data = _record(first, most)
    decider = deciding_check(data)
    assert decider.name == most[0], decider.name
    assert (decider.value, decider.failing, decider.seed_count_text) == (-40, 3, "3 of 5 seeds at -40")
    near = ("near, every seed", [-2, -3, -2], "==", -2, {"reduce": "all"})
    far = ("far, every seed", [-2, -30, -2], "==", -2, {"reduce": "all"})
    assert deciding_check(_record(near, far)).name == "far, every seed"  # a tie: the furthest from its threshold


def test_the_deciding_check_of_a_passing_claim_is_the_nearest_in_standard_errors():
    data = _record(CLEAR_MEAN, CLOSE_MEAN, ("far", [0.9, 0.95, 0.92], ">=", 0.5, {}))
    assert deciding_check(data).name == "cell" and data.deciding.name == "cell"
    margin, low, high = data.checks[1].margin
    assert low < 0 < margin < high  # positive: it holds; its interval crosses the threshold
    flat = _record(("flat", [0.9, 0.9, 0.9], ">=", 0.5, {}))
    assert flat.checks[0].margin[0] == float("inf")
