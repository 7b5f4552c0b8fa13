"""``lengthgen diff``: recorded pairs built from a real paper-scale ``claims.json`` (an earlier run of the
suite, ``tests/data/claims-paper-1e63f06.json.gz``) and small edits of it, one kind of change each."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

import pytest

from lengthgen.cli import main
from lengthgen.analysis.diff import (
    CROSS_CPU_TOLERANCE,
    DRIFT_RELATIVE_TOLERANCE,
    DRIFT_RULE,
    diff_runs,
    drift_tolerance,
    is_drift,
    verdict_change,
)
from lengthgen.records import Verdict
from lengthgen.report import diff_render
from lengthgen.report.diff_render import NO_DIFFERENCES
from lengthgen.analysis.run_view import RunView
from tests.helpers import DATA

BASELINE = DATA / "claims-paper-1e63f06.json.gz"  # a cold `pytest claims -n auto` on 1e63f06
C1, C2, C4, C8, C15 = 0, 1, 3, 7, 16  # indices of records in the baseline (C8: a declared non-reproduction)


@pytest.fixture(scope="module")
def baseline() -> dict:
    with gzip.open(BASELINE, "rt") as stream:
        return json.load(stream)


def write(tmp_path: Path, name: str, data: dict) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def run_diff(tmp_path, capsys, old: dict, new: dict, *options: str) -> tuple[int, str]:
    """``lengthgen diff`` of the two runs, written into ``tmp_path/runs`` (a folder the diff never writes into)."""
    runs = tmp_path / "runs"
    runs.mkdir(exist_ok=True)
    code = main(["diff", str(write(runs, "old.json", old)), str(write(runs, "new.json", new)), *options])
    return code, capsys.readouterr().out


_VIEWS: dict[str, RunView] = {}  # parsed runs by their JSON (parsing takes about a second; the baseline once)


def view(data: dict) -> RunView:
    key = json.dumps(data, sort_keys=True)
    if key not in _VIEWS:
        _VIEWS[key] = RunView.from_json(copy.deepcopy(data))
    return _VIEWS[key]


def diff_of(old: dict, new: dict):
    return diff_runs(view(old), view(new), "old.json", "new.json")


def rendered(old: dict, new: dict, *options: str) -> tuple[int, str]:
    """``(exit status, output)`` of ``lengthgen diff`` as its renderers give them, without the files and the
    command (the tests of the command run it)."""
    fail_on = options[options.index("--fail-on") + 1] if "--fail-on" in options else "worse-verdict"
    diff = diff_of(old, new)
    shown = diff_render.markdown(diff, fail_on) if "--md" in options else diff_render.text(diff, fail_on)
    return (1 if diff.failures(fail_on) else 0), shown


def check_with_interval(record: dict) -> dict:
    """The record's first check with a finite interval wider than zero."""
    return next(c for c in record["checks"] if c.get("ci95") and c["ci95"][1] - c["ci95"][0] > 0.01)


def half(check: dict) -> float:
    return (check["ci95"][1] - check["ci95"][0]) / 2


# the rule itself


def test_drift_rule_uses_the_larger_half_width_else_a_relative_tolerance():
    assert drift_tolerance([0, 2], [0, 4], 1.0, 2.0) == (2.0, "interval")
    assert drift_tolerance(None, [1, 1.5], 1.0, 2.0) == (0.25, "interval")
    assert drift_tolerance(None, None, 2.0, -4.0) == (4 * DRIFT_RELATIVE_TOLERANCE, "relative")
    assert drift_tolerance([None, None], None, 1.0, 2.0)[0] == float("inf")  # one seed: bounds nothing
    assert is_drift(1.0, 1.3, 0.25) and not is_drift(1.0, 1.25, 0.25)
    assert is_drift(None, 1.0, 0.0) and not is_drift(None, None, 0.0)
    assert "half-width" in DRIFT_RULE and f"{DRIFT_RELATIVE_TOLERANCE:g}" in DRIFT_RULE


def test_an_unknown_fail_on_is_one_line_naming_the_choices(tmp_path, capsys):
    from lengthgen.cli import main

    assert main(["diff", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--fail-on", "sometimes"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'sometimes' is not one of worse-verdict, drift, never" in err


def test_verdict_ranking():
    ranked = sorted((v for v in Verdict if v.rank is not None), key=lambda v: v.rank)
    assert ranked == [
        "reproduced",
        "not reproduced",
        "inconclusive",
        "unexpectedly reproduced",
        "not reproduced (undeclared)",
        "failed",
        "error",
    ]
    assert verdict_change("reproduced", "not reproduced") == "worse"
    assert verdict_change("failed", "inconclusive") == "better"
    assert verdict_change("unexpectedly reproduced", "not reproduced (undeclared)") == "worse"
    assert verdict_change("failed", "error") == "worse"
    assert verdict_change("reproduced", "skipped") == verdict_change("skipped", "failed") == "changed"
    assert verdict_change("discriminates", "failed", control=True) == "worse"
    assert verdict_change("reproduced", "reproduced") == "same"


# recorded pairs


def test_unchanged_pair_is_empty_and_exits_0(tmp_path, capsys, baseline):
    code, out = run_diff(tmp_path, capsys, baseline, baseline)
    assert code == 0 and NO_DIFFERENCES in out.splitlines()
    assert "drift rule: " + DRIFT_RULE in out
    assert diff_of(baseline, baseline).empty


def test_worse_verdict_exits_1_by_default(tmp_path, capsys, baseline):
    new = copy.deepcopy(baseline)
    new["records"][C1]["verdict"] = "failed"
    code, out = run_diff(tmp_path, capsys, baseline, new)
    assert code == 1
    assert (
        "worse   C1 claims/test_c01_phenomenon.py::test_rope_generalizes_ape_collapses[paper]: "
        "reproduced (close) -> failed" in out
    )
    assert out.splitlines()[-1] == "exit 1 (--fail-on worse-verdict): 1 verdict worse"
    assert run_diff(tmp_path, capsys, baseline, new, "--fail-on", "never")[0] == 0


def test_better_verdict_exits_0(tmp_path, capsys, baseline):
    new = copy.deepcopy(baseline)
    new["records"][C8]["verdict"] = "reproduced"
    code, out = rendered(baseline, new)
    assert code == 0 and "better  C8 " in out and "not reproduced -> reproduced" in out


def test_close_flag_appearing_is_reported_but_not_worse(tmp_path, capsys, baseline):
    new = copy.deepcopy(baseline)
    check = new["records"][C4]["checks"][0]  # a mean over seeds in [0.65, 0.95], its interval clear of both
    check["ci95"] = [0.6, 0.9]  # now contains 0.65: a close call; the value did not move
    code, out = rendered(baseline, new, "--fail-on", "drift")
    assert code == 0 and "same    C4 " in out and "reproduced -> reproduced (close)" in out
    assert NO_DIFFERENCES not in out
    old = copy.deepcopy(baseline)
    new["records"][C4]["verdict"] = old["records"][C4]["verdict"] = "failed"  # a close failure keeps its label
    (record,) = diff_of(old, new).changed
    assert (record.old_close, record.new_close) == (False, True)
    code, out = rendered(old, new)
    assert "failed -> failed; close call appeared" in out


def test_drifted_check_exits_0_by_default_and_1_with_fail_on_drift(tmp_path, capsys, baseline):
    new = copy.deepcopy(baseline)
    check = check_with_interval(new["records"][C1])
    old_value = check["value"]
    check["value"] = old_value - 3 * half(check)  # still passes its threshold
    code, out = run_diff(tmp_path, capsys, baseline, new)
    assert code == 0
    line = next(line for line in out.splitlines() if "drifted" in line and check["name"] in line)
    assert f"noise {half(check):.6g}, interval" in line and f"threshold {check['op']} {check['threshold']:.6g}" in line
    assert "1 drifted" in out
    code, out = run_diff(tmp_path, capsys, baseline, new, "--fail-on", "drift")
    assert code == 1 and out.splitlines()[-1] == "exit 1 (--fail-on drift): 1 check drifted"
    (record,) = diff_of(baseline, new).changed
    (drift,) = record.drifted
    assert (drift.old_value, drift.new_value, drift.tolerance_from) == (old_value, check["value"], "interval")


def test_value_moved_within_its_interval_is_not_drift(tmp_path, capsys, baseline):
    new = copy.deepcopy(baseline)
    check = check_with_interval(new["records"][C1])
    check["value"] += 0.5 * half(check)
    code, out = rendered(baseline, new, "--fail-on", "drift")
    assert code == 0 and NO_DIFFERENCES in out and "1 moved within their noise" in out


def test_exact_check_drifts_beyond_float_noise_only(tmp_path, capsys, baseline):
    new = copy.deepcopy(baseline)
    check = new["records"][C2]["checks"][0]  # exact: no interval
    check["value"] *= 1 + DRIFT_RELATIVE_TOLERANCE / 10
    assert diff_of(baseline, new).empty
    check["value"] *= 1.01
    (record,) = diff_of(baseline, new).changed
    assert record.drifted[0].tolerance_from == "relative" and record.change == "same"


AVX512 = {"cpu_model": "Intel(R) Xeon(R) Processor", "cpu_capability": "AVX512"}
AVX2 = {"cpu_model": "Intel(R) Xeon(R) Processor", "cpu_capability": "AVX2"}


def on_cpu(data: dict, cpu: dict) -> dict:
    return {**copy.deepcopy(data), "environment": {**data["environment"], **cpu}}


def test_runs_on_different_cpus_say_so_and_count_rounding_as_noise(baseline):
    """C2's largest relative change is itself float rounding: on an AVX-512 CPU it read 1.6266e-7 where the
    AVX2 CPU read 1.65e-7. Within one CPU that is drift (1e-9 relative); across two it is rounding."""
    old = on_cpu(baseline, AVX2)
    new = on_cpu(baseline, AVX512)
    check = new["records"][C2]["checks"][0]  # exact: no interval
    check["value"] = check["value"] * 0.986  # the measured cross-CPU move, 1.4 % of the value
    diff = diff_of(old, new)
    assert diff.cross_cpu and diff.empty and diff.within_noise == 1
    code, out = rendered(old, new, "--fail-on", "drift")
    assert (
        code == 0
        and "note: the runs ran on different CPUs (old: Intel(R) Xeon(R) Processor, torch kernels "
        "AVX2; new: Intel(R) Xeon(R) Processor, torch kernels AVX512)"
        in out
    )
    assert f"{CROSS_CPU_TOLERANCE:g} x max(1, |old|, |new|)" in out.splitlines()[2]
    same_cpu = on_cpu(new, AVX2)
    (record,) = diff_of(old, same_cpu).changed  # the same move on one CPU drifts
    assert record.drifted[0].tolerance_from == "relative"
    check["value"] += 10 * CROSS_CPU_TOLERANCE  # a real move drifts across CPUs too
    (record,) = diff_of(old, new).changed
    assert record.drifted[0].tolerance_from == "rounding across CPUs"


def test_a_run_without_its_cpu_is_not_taken_for_another_cpu(baseline):
    """The baseline was written before runs recorded their CPU: its CPU is unknown, and the rule stays strict."""
    diff = diff_of(baseline, on_cpu(baseline, AVX512))
    assert not diff.cross_cpu and diff.old_cpu == "unknown"
    _, out = rendered(baseline, on_cpu(baseline, AVX512))
    assert "CPU: old unknown; new Intel(R) Xeon(R) Processor, torch kernels AVX512" in out
    _, out = rendered(on_cpu(baseline, AVX512), on_cpu(baseline, AVX512))
    assert "CPU: Intel(R) Xeon(R) Processor, torch kernels AVX512" in out


def test_pass_fail_change_and_threshold_change(tmp_path, capsys, baseline):
    new = copy.deepcopy(baseline)
    checks = new["records"][C15]["checks"]
    checks[2]["passed"] = False
    checks[3]["threshold"] = [0.0, 1.0] if checks[3]["op"] == "in" else 0.5
    (record,) = diff_of(baseline, new).changed
    assert [c.name for c in record.pass_changed] == [checks[2]["name"]]
    assert [c.comparison_changed for c in record.checks] == [False, True]
    code, out = rendered(baseline, new, "--fail-on", "drift")
    assert code == 1 and "passed -> FAILED" in out and "(was " in out and "1 check changed pass/fail" in out


def test_a_relabelled_threshold_is_named_and_moves_no_verdict(baseline):
    old, new = copy.deepcopy(baseline), copy.deepcopy(baseline)
    for run in (old, new):
        for check in run["records"][C8]["checks"]:
            check["threshold_source"] = "catalogue-prediction"  # a label the rule keeps as written
    relabelled = [c["name"] for c in new["records"][C8]["checks"][:2]]
    for check in new["records"][C8]["checks"][:2]:
        check["threshold_source"] = "suite-reading"
    diff = diff_of(old, new)
    (record,) = diff.changed
    assert record.change == "same" and [c.name for c in record.relabelled] == relabelled
    assert diff.failures("drift") == []  # a label is no drift and no worse verdict
    code, out = rendered(old, new)
    assert code == 0 and "2 relabelled" in out and NO_DIFFERENCES not in out
    names = "; ".join(relabelled)
    assert f"relabelled 2 checks: threshold from catalogue-prediction -> suite-reading ({names})" in out
    md = rendered(old, new, "--md")[1]
    assert "relabelled 2 checks" in md and "#### Checks" not in md


def test_a_run_that_states_no_source_relabels_nothing(baseline):
    new = copy.deepcopy(baseline)
    for check in new["records"][C8]["checks"]:
        check["threshold_source"] = "suite-reading"  # the baseline states none: no label to compare with
    assert diff_of(baseline, new).empty


def test_added_and_removed_claim(tmp_path, capsys, baseline):
    old, new = copy.deepcopy(baseline), copy.deepcopy(baseline)
    added = old["records"].pop(C2)  # only the new run has C2
    removed = new["records"].pop(C15)  # only the old run has C15
    code, out = rendered(old, new)
    assert code == 1 and "1 record removed" in out.splitlines()[-1]
    assert f"added   C2 {added['test']}: reproduced" in out
    assert f"removed C15 {removed['test']}: reproduced" in out
    code, out = rendered(new, baseline)  # only an addition: exit 0
    assert code == 0 and "records: 1 added, 0 removed" in out
    assert "different scales" not in out
    quick = copy.deepcopy(baseline)
    for record in quick["records"] + quick["controls"]:
        record["scale"]["name"] = "quick"
        record["test"] = record["test"].replace("[paper", "[quick")
    code, out = rendered(baseline, quick)
    assert code == 1 and "note: the runs are at different scales (paper -> quick)" in out


def test_removed_control_and_check_exit_1(tmp_path, capsys, baseline):
    new = copy.deepcopy(baseline)
    control = new["controls"].pop(0)
    code, out = rendered(baseline, new)
    assert code == 1 and f"removed control C1 {control['test']}: discriminates" in out
    new = copy.deepcopy(baseline)
    gone = new["records"][C1]["checks"].pop()
    code, out = rendered(baseline, new)
    assert code == 1 and f"check removed {gone['name']!r}" in out and "1 check removed" in out.splitlines()[-1]


def test_control_verdict_change(tmp_path, capsys, baseline):
    new = copy.deepcopy(baseline)
    new["controls"][3]["verdict"] = "failed"
    new["controls"][3]["checks"][0]["value"] = 1e9  # a control is compared by verdict only
    (record,) = diff_of(baseline, new).changed
    assert record.key.section == "control" and record.change == "worse" and record.checks == ()


def test_declared_non_reproduction_whose_failing_checks_changed(tmp_path, capsys, baseline):
    new = copy.deepcopy(baseline)
    record = new["records"][C8]
    now_failing = next(c for c in record["checks"] if c["passed"])
    now_failing["passed"] = False
    (found,) = diff_of(baseline, new).changed
    assert found.declared.failing_added == (now_failing["name"],) and not found.declared.patterns_changed
    record["expected_failures"]["patterns"] = record["expected_failures"]["patterns"][:1]
    (found,) = diff_of(baseline, new).changed
    assert found.declared.patterns_changed
    code, out = rendered(baseline, new)
    assert "declared non-reproduction: patterns [" in out and f"now failing: {now_failing['name']}" in out


def test_robustness_and_multiverse_cells_are_keyed_by_setting_or_reading(tmp_path, capsys, baseline):
    old = copy.deepcopy(baseline)
    cell = {**copy.deepcopy(baseline["records"][C2]), "setting": "d=32"}
    old["robustness"] = [cell, {**copy.deepcopy(cell), "setting": "d=128"}]
    new = copy.deepcopy(old)
    new["robustness"][1]["verdict"] = "not reproduced"
    (record,) = diff_of(old, new).changed
    assert record.key.cell == "d=128" and record.change == "worse"
    code, out = rendered(old, new)
    assert code == 1 and "worse   [d=128] C2 " in out
    reading = {**copy.deepcopy(cell), "setting": None, "reading": "init=gpt2"}  # a multiverse cell
    old["multiverse"], new["multiverse"] = [reading], [{**copy.deepcopy(reading), "verdict": "skipped"}]
    keys = {(r.key.section, r.key.cell, r.change) for r in diff_of(old, new).changed}
    assert keys == {("robustness", "d=128", "worse"), ("multiverse", "init=gpt2", "changed")}
    del new["robustness"][0]
    code, out = rendered(old, new)
    assert "removed [d=32] C2 " in out and "1 record removed" in out.splitlines()[-1]


def test_markdown_shape(tmp_path, capsys, baseline):
    new = copy.deepcopy(baseline)
    new["records"][C1]["verdict"] = "failed"
    check = check_with_interval(new["records"][C1])
    check["value"] -= 3 * half(check)
    new["controls"].pop(0)
    code, out = run_diff(tmp_path, capsys, baseline, new, "--md")
    lines = out.splitlines()
    assert code == 1 and lines[0].startswith("### lengthgen diff: `") and f"_Drift rule: {DRIFT_RULE}._" in lines
    assert "| change | claim | test | verdict |" in lines and "|---|---|---|---|" in lines
    assert any(line.startswith("| **worse** | C1 |") for line in lines)
    assert "| claim | check | old | new | moved | noise | threshold | pass/fail |" in lines
    assert any(line.startswith(f"| C1 | {check['name']} |") and "**drifted**" in line for line in lines)
    assert any(line.startswith("- **removed** C1 (control)") for line in lines)
    code, out = run_diff(tmp_path, capsys, baseline, baseline, "--md")
    assert f"**{NO_DIFFERENCES}**" in out.splitlines() and "|---" not in out


def test_json_shape_to_stdout_and_to_a_file(tmp_path, capsys, baseline):
    new = copy.deepcopy(baseline)
    check = check_with_interval(new["records"][C1])
    check["value"] -= 3 * half(check)
    code, out = run_diff(tmp_path, capsys, baseline, new, "--json", "--fail-on", "drift")
    data = json.loads(out)
    assert code == 1 and data["exit"] == 1 and data["failures"] == ["1 check drifted"]
    assert set(data) == {
        "old",
        "new",
        "old_scale",
        "new_scale",
        "rule",
        "relative_tolerance",
        "empty",
        "summary",
        "records",
        "added",
        "removed",
        "fail_on",
        "failures",
        "exit",
        "old_cpu",
        "new_cpu",
        "cross_cpu",
    }
    (record,) = data["records"]
    assert record["key"]["claim"] == "C1" and record["change"] == "same"
    (drift,) = record["checks"]
    assert drift["drifted"] and drift["new_value"] == check["value"] and drift["tolerance_from"] == "interval"
    path = tmp_path / "out" / "diff.json"
    code, out = run_diff(tmp_path, capsys, baseline, new, "--out", str(path))
    assert code == 0 and out.splitlines()[-1] == f"wrote {path}" and out.startswith("lengthgen diff ")
    assert json.loads(path.read_text())["summary"]["drifted"] == 1
    path.unlink()
    code, out = run_diff(tmp_path, capsys, baseline, new, "--json", "--out", str(path))  # stdout stays JSON
    assert json.loads(out) == json.loads(path.read_text())


def test_report_directories_and_gzip(tmp_path, capsys, baseline):
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        write(tmp_path / name, "claims.json", baseline)
    assert main(["diff", str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    assert NO_DIFFERENCES in capsys.readouterr().out
    assert main(["diff", str(BASELINE), str(tmp_path / "b" / "claims.json")]) == 0
    assert NO_DIFFERENCES in capsys.readouterr().out


@pytest.mark.parametrize(
    "case", ["missing", "not json", "no records", "bad gzip", "empty dir", "md and json", "bad fail-on"]
)
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, baseline, case):
    good = write(tmp_path, "good.json", baseline)
    bad = {"missing": tmp_path / "nope.json", "empty dir": tmp_path / "empty"}.get(case, tmp_path / "bad.json")
    if case == "not json":
        bad.write_text("{not json")
    elif case == "no records":
        bad.write_text(json.dumps({"format": 1}))
    elif case == "bad gzip":
        bad = tmp_path / "bad.json.gz"
        bad.write_text("plain text")
    elif case == "empty dir":
        bad.mkdir()
    argv = ["diff", str(good), str(bad)]
    if case == "md and json":
        argv = ["diff", str(good), str(good), "--md", "--json"]
    elif case == "bad fail-on":
        argv = ["diff", str(good), str(good), "--fail-on", "sometimes"]
    try:
        code = main(argv)
    except SystemExit as exit:  # argparse's own errors
        code = exit.code
    captured = capsys.readouterr()
    assert code == 2 and captured.err.count("\n") == 1 and captured.err.startswith("lengthgen diff: error: ")
    assert captured.out == ""
    if case == "missing":
        assert "does not exist (give a claims.json, a .json.gz or a report directory)" in captured.err
