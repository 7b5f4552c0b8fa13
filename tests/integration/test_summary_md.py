"""``--lengthgen-summary-md=FILE``: the verdict table as markdown at the end of a run, written by the controller alone
and appended to ``$GITHUB_STEP_SUMMARY`` when that is set; with ``--junitxml`` each claim test carries its
verdict, paper and measured values as JUnit properties (``lengthgen.testing.verdicts.junit_properties``).

Real runs of C15 (an exact computation, no training) in a subprocess, serially and with two workers, and
the option's checks: a bad value is pytest's usage error (exit 4, one line).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from lengthgen.report.markdown import summary_markdown
from lengthgen.analysis.run_view import RunView
from lengthgen.testing.options import summary_md_arg
from lengthgen.testing.reporting import STEP_SUMMARY_ENV, check_summary_path, write_summary_md

from tests.report_samples import all_records
from tests.helpers import ROOT

TIMEOUT_S = 300  # two workers importing torch on shared cores
EARLIER_STEP = "## an earlier step's summary\n"  # what $GITHUB_STEP_SUMMARY holds before the run appends


def run_pytest(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", *args, "-p", "no:cacheprovider", "-p", "no:randomly"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env={**os.environ, **env},
    )


@pytest.mark.slow
@pytest.mark.parametrize("workers", [["-n", "0"], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_real_run_writes_the_markdown_appends_the_step_summary_and_carries_junit_properties(tmp_path, workers):
    md, xml, step = tmp_path / "out" / "summary.md", tmp_path / "junit.xml", tmp_path / "step_summary.md"
    step.write_text(EARLIER_STEP)
    result = run_pytest(
        [
            "-m",
            "quick",
            "-k",
            "C15",
            *workers,
            f"--junitxml={xml}",
            f"--lengthgen-summary-md={md}",
            f"--lengthgen-report-dir={tmp_path / 'report'}",
            f"--lengthgen-cache-dir={tmp_path / 'cache'}",
        ],
        {STEP_SUMMARY_ENV: str(step)},
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    table = md.read_text()
    assert "| id | variant | verdict | paper | measured | close |" in table
    assert "| C15 |" in table and "reproduced" in table
    # the same markdown, appended once (by the controller, not by each worker) after the earlier step's
    assert step.read_text() == EARLIER_STEP + table
    assert f"markdown summary: {md}" in result.stdout
    # the markdown is that of the run's claims.json
    assert table == summary_markdown(RunView.from_json(tmp_path / "report" / "claims.json")).rstrip("\n") + "\n"

    cases = {case.get("name"): case for case in ET.parse(xml).getroot().iter("testcase")}
    claim = {
        p.get("name"): p.get("value")
        for p in cases["test_rotary_kernel_peaks_uniquely_at_zero[quick]"].iter("property")
    }
    assert claim["lengthgen_claim"] == "C15" and claim["lengthgen_kind"] == "claim"
    assert claim["lengthgen_verdict"] == "reproduced" and claim["lengthgen_checks"] == "9/9"
    assert claim["lengthgen_paper"].startswith("max_{s>=4} g(s)/g(0)")
    assert "0.79" in claim["lengthgen_measured"] and claim["lengthgen_close"] == "no"
    control = {
        p.get("name"): p.get("value")
        for p in cases["test_rotary_kernel_peaks_uniquely_at_zero_control[quick]"].iter("property")
    }
    assert control == {"lengthgen_claim": "C15", "lengthgen_kind": "control", "lengthgen_verdict": "discriminates"}
    # the record itself (the xdist transport) stays out of the XML: every property is a short string
    assert all(len(p.get("value")) < 400 and not p.get("value").startswith("{") for p in ET.parse(xml).iter("property"))
    # ... and still reaches the report
    records = json.loads((tmp_path / "report" / "claims.json").read_text())["records"]
    assert [r["claim"] for r in records] == ["C15"]


@pytest.mark.slow
def test_an_unwritable_summary_path_is_a_one_line_usage_error(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for value, message in [(blocker / "summary.md", "--lengthgen-summary-md"), (tmp_path, "must name a file")]:
        result = run_pytest(
            [
                "-m",
                "quick",
                "-k",
                "C15",
                "-n",
                "0",
                f"--lengthgen-summary-md={value}",
                f"--lengthgen-cache-dir={tmp_path / 'cache'}",
                f"--lengthgen-report-dir={tmp_path / 'report'}",
            ],
            {},
        )
        assert result.returncode == 4, result.stdout[-2000:] + result.stderr[-2000:]
        errors = [line for line in result.stderr.splitlines() if "error" in line.lower() and "usage:" not in line]
        assert len(errors) == 1 and message in errors[0] and "Traceback" not in result.stderr


def test_the_option_takes_a_file_and_refuses_a_directory_or_nothing(tmp_path):
    assert summary_md_arg(str(tmp_path / "s.md")) == tmp_path / "s.md"
    for bad in ("", " ", str(tmp_path)):
        with pytest.raises(argparse.ArgumentTypeError, match="--lengthgen-summary-md"):
            summary_md_arg(bad)
    assert not (tmp_path / "s.md").exists()  # parsing creates nothing


def test_the_start_check_creates_the_folder_and_refuses_an_unwritable_place(tmp_path):
    check_summary_path(tmp_path / "new" / "s.md")
    assert (tmp_path / "new").is_dir()
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="--lengthgen-summary-md"):
        check_summary_path(tmp_path / "file" / "s.md")


def test_write_replaces_the_file_and_appends_to_the_step_summary(tmp_path):
    records = all_records()
    md, step = tmp_path / "s.md", tmp_path / "step.md"
    md.write_text("old table\n")
    step.write_text(EARLIER_STEP)
    text = write_summary_md(records, {"wall_time_s": 2.0}, md, str(step))
    assert md.read_text() == text and "old table" not in text and text.endswith("\n")
    assert step.read_text() == EARLIER_STEP + text
    write_summary_md(records, {"wall_time_s": 2.0}, md)  # no step summary: the file alone
    assert step.read_text() == EARLIER_STEP + text
    assert text.count("\n| ") >= len({r["claim"] for r in records if r.get("kind") == "claim"})
