"""The verdict rule (lengthgen.report.verdict.decide) on hand-made records, and the record itself."""

from __future__ import annotations

import pytest

from lengthgen.records import ClaimRecord, ClaimRecorder
from lengthgen.report.verdict import decide, is_close, undecided

PAPER = {"name": "paper", "seeds": 8, "paper_seeds": 8}
TWO_OF_EIGHT = {"name": "paper", "seeds": 2, "paper_seeds": 8}


def record(scale: dict, values, op=">=", threshold=0.85, reduce="mean") -> dict:
    recorder = ClaimRecorder("C6")
    recorder.set_scale(**scale)
    recorder.check("statistic", values, op, threshold, reduce=reduce)
    return recorder.record.to_dict()


def test_passed_is_reproduced():
    assert decide(record(PAPER, [0.9] * 8), "passed") == ("reproduced", None)


def declared(values, patterns=("statistic",)) -> dict:
    """A record whose test declared its expected failures, with its checks marked as verify() marks them."""
    data = record(PAPER, values)
    data["expected_failures"] = {"patterns": list(patterns), "why": "dilution", "strict": True}
    for c in data["checks"]:
        c["expected_to_fail"] = c["name"] in patterns
    return data


def test_xfail_is_not_reproduced_with_its_reason():
    assert decide(declared([0.5] * 8), "xfailed", "measured 0.5") == ("not reproduced", "measured 0.5")


def test_an_xfail_without_declared_checks_is_failed():
    verdict, reason = decide(record(PAPER, [0.5] * 8), "xfailed", "boom")
    assert verdict == "failed" and "without declared expected failures" in reason


def test_an_xfail_whose_failed_check_was_not_declared_is_failed():
    verdict, reason = decide(declared([0.5] * 8, patterns=("another",)), "xfailed", "measured 0.5")
    assert verdict == "failed" and "statistic" in reason


def test_an_xfail_with_no_failed_check_is_failed():
    assert decide(declared([0.9] * 8), "xfailed", "measured 0.9")[0] == "failed"


def test_verify_raises_not_reproduced_only_for_the_declared_checks():
    from lengthgen.records import NotReproduced
    from lengthgen.scale import PAPER as PAPER_SCALE

    recorder = ClaimRecorder("C20")
    recorder.expect_not_reproduced(PAPER_SCALE, "K=1 L=48: *", "dilution")
    recorder.check("K=1 L=48: accuracy", 0.82, ">=", 0.95)
    recorder.check("K=1 L=40: accuracy", 0.96, ">=", 0.95)
    with pytest.raises(
        NotReproduced,
        match=r"1 of 2 checks fail as expected \(dilution\): K=1 L=48: accuracy: "
        r"measured 0.82 >= 0.95; the other 1 checks hold",
    ):
        recorder.verify()
    assert [c.expected_to_fail for c in recorder.record.checks] == [True, False]


def test_verify_fails_on_an_undeclared_failure_an_unexpected_pass_and_a_stray_pattern():
    from lengthgen.scale import PAPER as PAPER_SCALE

    other = ClaimRecorder("C20")
    other.expect_not_reproduced(PAPER_SCALE, "K=1 L=48: *", "dilution")
    other.check("K=1 L=48: accuracy", 0.82, ">=", 0.95)
    other.check("K=1: argmax of phi_c", 3.0, "==", 0.0)
    with pytest.raises(AssertionError, match="not among the expected failures"):
        other.verify()
    passing = ClaimRecorder("C20")
    passing.expect_not_reproduced(PAPER_SCALE, "K=1 L=48: *", "dilution")
    passing.check("K=1 L=48: accuracy", 0.97, ">=", 0.95)
    with pytest.raises(AssertionError, match="unexpected pass"):
        passing.verify()
    stray = ClaimRecorder("C20")
    stray.expect_not_reproduced(PAPER_SCALE, "nothing like this*", "dilution")
    stray.check("K=1 L=48: accuracy", 0.5, ">=", 0.95)
    with pytest.raises(AssertionError, match="match no check"):
        stray.verify()


def test_a_custom_seed_run_that_passes_a_declared_non_reproduction_is_reproduced():
    import dataclasses

    from lengthgen.scale import PAPER as PAPER_SCALE

    recorder = ClaimRecorder("C20")
    recorder.expect_not_reproduced(dataclasses.replace(PAPER_SCALE, seeds=(0, 1)), "K=1 L=48: *", "dilution")
    recorder.check("K=1 L=48: accuracy", 0.97, ">=", 0.95)
    recorder.verify()  # not strict: no error


def test_control_verdicts():
    data = record(PAPER, [0.5] * 8)
    data["kind"] = "control"
    assert decide(data, "passed")[0] == "discriminates"
    assert decide(data, "failed", "AssertionError: does not discriminate") == (
        "failed",
        "AssertionError: does not discriminate",
    )
    assert decide(data, "error", "RuntimeError: boom") == ("error", "RuntimeError: boom")


def verified(scale: dict, values, patterns=(), **kwargs) -> dict:
    """A record whose test ran ``verify()`` (its conclusion recorded), with one check of ``values``."""
    from lengthgen.scale import PAPER as PAPER_SCALE

    recorder = ClaimRecorder("C11")
    recorder.set_scale(**scale)
    if patterns:
        recorder.expect_not_reproduced(PAPER_SCALE, list(patterns), "partial alignment")
    recorder.check("statistic", values, ">=", 0.85, **kwargs)
    recorder.check("other", 1.0, ">=", 0.5, source="paper-number")
    with pytest.raises(Exception):
        recorder.verify()
    return recorder.record.to_dict()


def test_an_undeclared_failing_check_is_a_finding_not_an_error():
    data = verified(PAPER, [0.5] * 8)
    assert data["verified"] == "undeclared failures"
    verdict, reason = decide(data, "failed", "AssertionError: C11 failed: ...")
    assert verdict == "not reproduced (undeclared)"
    assert reason.startswith(
        "C11 not reproduced at the catalogue's point, not declared: 1 of 2 checks fail: statistic: measured 0.5 >= 0.85"
    )
    assert reason.endswith("the other 1 checks hold")


def test_an_undeclared_finding_says_where_it_ran():
    more = verified({"name": "paper", "seeds": 24, "paper_seeds": 5}, [0.5] * 24)
    assert "with 24 seeds (the paper's 5)" in decide(more, "failed")[1]
    fresh = verified({"name": "paper", "seeds": 5, "paper_seeds": 5, "seed_list": [100, 101, 102, 103, 104]}, [0.5] * 5)
    fresh["setting"] = "fresh-seeds"
    assert "at the robustness setting fresh-seeds, with seeds 100..104" in decide(fresh, "failed")[1]
    sequential = verified({"name": "paper", "seeds": 24, "paper_seeds": 5}, [0.5] * 24)
    sequential["sequential"] = {"seeds_final": 24}
    assert "with 24 seeds (--lengthgen-until-decided; the paper's 5)" in decide(sequential, "failed")[1]


def test_a_finding_that_turns_only_on_suite_readings_says_so():
    data = verified(PAPER, [0.5] * 8, source="suite-reading", source_note='"fits in distribution"')
    assert data["threshold_basis"] == "suite reading"
    assert "the suite's reading of the paper" in decide(data, "failed")[1]
    paper = verified(PAPER, [0.5] * 8, source="paper-number")
    assert paper["threshold_basis"] == "paper"
    assert "suite's reading" not in decide(paper, "failed")[1]


def test_a_strict_declaration_that_passes_is_unexpectedly_reproduced():
    data = verified(PAPER, [0.9] * 8, patterns=("statistic",))
    assert data["verified"] == "unexpected pass"
    reason = "AssertionError: C11: unexpected pass: ..."
    assert decide(data, "failed", reason) == ("unexpectedly reproduced", reason)


def test_an_exception_is_an_error_and_an_assertion_outside_the_recorder_is_failed():
    assert decide(record(PAPER, [0.9] * 8), "error", "RuntimeError: boom") == ("error", "RuntimeError: boom")
    # verify() never concluded (a plain assert, or a failing check recorded before an assertion elsewhere)
    assert decide(record(PAPER, [0.5] * 8), "failed", "AssertionError: ...") == ("failed", "AssertionError: ...")
    assert decide(record(PAPER, [0.9] * 8), "failed", "assert 1 == 2") == ("failed", "assert 1 == 2")


def test_skip_is_skipped_with_its_reason():
    assert decide({"claim": "C9"}, "skipped", "no quick variant") == ("skipped", "no quick variant")


def test_recorder_inconclusive_wins_over_a_pass():
    data = record(PAPER, [0.9] * 8)
    data["inconclusive_reason"] = "the probe saw no carrier"
    assert decide(data, "passed") == ("inconclusive", "the probe saw no carrier")


def test_too_few_seeds_with_the_threshold_inside_the_interval_is_inconclusive():
    passing = record(TWO_OF_EIGHT, [0.80, 0.95])  # mean 0.875, interval about [-0.08, 1.83]
    verdict, reason = decide(passing, "passed")
    assert verdict == "inconclusive" and "2 of the paper's 8" in reason and "statistic" in reason
    failing = record(TWO_OF_EIGHT, [0.70, 0.95])  # mean 0.825 < 0.85, but the interval holds 0.85
    assert decide(failing, "failed", "AssertionError")[0] == "inconclusive"


def test_too_few_seeds_but_decisive_keeps_the_verdict():
    assert decide(record(TWO_OF_EIGHT, [0.97, 0.98]), "passed") == ("reproduced", None)
    assert decide(verified(TWO_OF_EIGHT, [0.10, 0.12]), "failed", "AssertionError")[0] == "not reproduced (undeclared)"


def test_a_single_seed_of_several_decides_nothing():
    one = record({"name": "paper", "seeds": 1, "paper_seeds": 8}, [0.99])
    assert decide(one, "passed")[0] == "inconclusive"


def test_the_papers_seed_count_decides_even_a_close_call():
    close = record(PAPER, [0.80, 0.95, 0.82, 0.91, 0.84, 0.88, 0.86, 0.90])
    assert is_close(close["checks"][0])
    assert not undecided(close["checks"][0], close["scale"])
    assert decide(close, "passed") == ("reproduced", None)


def test_every_seed_checks_are_not_mean_checks():
    data = record(TWO_OF_EIGHT, [0.90, 0.95], reduce="all")
    assert data["checks"][0]["value"] == 0.90  # the worst seed is the statistic
    assert decide(data, "passed") == ("reproduced", None)


def test_unknown_outcome_is_rejected():
    with pytest.raises(ValueError, match="'weird'"):
        decide({}, "weird")


def test_record_round_trips_and_tolerates_unknown_fields():
    data = record(PAPER, [0.9, 0.95], op="in", threshold=(0.8, 1.0))
    data["added_by_a_later_version"] = 1
    data["checks"][0]["also_new"] = True
    loaded = ClaimRecord.from_dict(data)
    assert loaded.checks[0].threshold == (0.8, 1.0) and loaded.checks[0].reduce == "mean"
    old = {k: v for k, v in data.items() if k not in ("verdict_reason", "outcome", "added_by_a_later_version")}
    old["checks"] = [{k: v for k, v in c.items() if k not in ("reduce", "also_new")} for c in data["checks"]]
    assert ClaimRecord.from_dict(old).checks[0].reduce is None  # a claims.json of the first version


def _record(*checks, verdict="reproduced") -> dict:
    """A record with the given checks: (name, values or value, op, threshold, keyword arguments)."""
    recorder = ClaimRecorder("C9")
    recorder.set_scale(name="paper", seeds=3, paper_seeds=3)
    for name, value, op, threshold, kwargs in checks:
        recorder.check(name, value, op, threshold, **kwargs)
    data = recorder.record.to_dict()
    data["verdict"] = verdict
    return data


CLOSE_MEAN = ("cell", [0.146, 0.149, 0.147], "<=", 0.15, {})  # C9's deciding cell: [0.1435, 0.1511]
CLEAR_MEAN = ("other", [0.11, 0.12, 0.115], "<=", 0.15, {})


def test_close_is_a_deciding_interval_that_contains_the_threshold():
    from lengthgen.report.verdict import closeness, label

    close = _record(CLOSE_MEAN, CLEAR_MEAN)
    assert closeness(close) == {"close": True, "close_checks": ["cell"], "seeds_to_decide": {"cell": 4}}
    assert label(close) == "reproduced (close)"
    assert label(_record(CLEAR_MEAN)) == "reproduced"
    assert label({**close, "verdict": "inconclusive"}) == "inconclusive"
    barely = _record(("barely", [0.149, 0.152, 0.151], "<=", 0.15, {}), verdict="failed")  # more seeds pushed it over
    assert label({**barely, "outcome": "failed"}) == "failed"  # the label stays; its close checks are listed
    assert closeness({**barely, "outcome": "failed"})["close_checks"] == ["barely"]
    assert closeness({**barely, "outcome": "error"})["close"] is False  # an error is never a close call


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
    from lengthgen.report.verdict import close_checks, has_interval

    data = _record(check)
    assert not has_interval(data["checks"][0]) and close_checks(data) == []


def test_a_bootstrap_statistic_can_be_close():
    import numpy as np

    from lengthgen.report.verdict import close_checks, interval_kind

    data = _record(("lead", 0.001, ">", 0.0, {"bootstrap": ([-0.01, 0.0, 0.012, 0.002], np.mean)}))
    assert interval_kind(data["checks"][0]) == "bootstrap" and [c["name"] for c in close_checks(data)] == ["lead"]


def test_a_failing_claim_is_close_only_when_every_failed_check_is():
    from lengthgen.report.verdict import close_checks, deciding_check, label

    barely = ("barely", [0.149, 0.152, 0.151], "<=", 0.15, {})  # fails, interval holds 0.15
    clearly = ("clearly", [0.5, 0.52, 0.51], "<=", 0.15, {})
    one = _record(barely, CLEAR_MEAN, verdict="not reproduced")
    assert [c["name"] for c in close_checks(one)] == ["barely"] and label(one) == "not reproduced (close)"
    both = _record(barely, clearly, CLOSE_MEAN, verdict="not reproduced")
    assert close_checks(both) == [] and label(both) == "not reproduced"  # a clear failure decides by itself
    assert deciding_check(both)["name"] == "clearly"  # the failure furthest below its threshold
    every = _record(barely, ("every seed", [0.2, 0.1, 0.1], "<=", 0.15, {"reduce": "all"}), verdict="failed")
    assert deciding_check(every)["name"] == "every seed"  # a failure without an interval is never in doubt


def test_the_deciding_check_of_a_passing_claim_is_the_nearest_in_standard_errors():
    from lengthgen.report.verdict import deciding_check, standard_margin

    data = _record(CLEAR_MEAN, CLOSE_MEAN, ("far", [0.9, 0.95, 0.92], ">=", 0.5, {}))
    assert deciding_check(data)["name"] == "cell"
    margin, low, high = standard_margin(data["checks"][1], data)
    assert low < 0 < margin < high  # positive: it holds; its interval crosses the threshold
    flat = _record(("flat", [0.9, 0.9, 0.9], ">=", 0.5, {}))
    assert standard_margin(flat["checks"][0], flat)[0] == float("inf")
