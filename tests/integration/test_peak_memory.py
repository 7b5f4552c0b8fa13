"""Peak resident memory per process in the report's environment block: each xdist worker sends its
``ru_maxrss`` through ``workeroutput``, the controller adds its own, and the terminal summary prints
them against the 2 GiB budget."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lengthgen.testing.environment import MEMORY_BUDGET_MIB, memory_line, peak_child_rss_mib, peak_rss_mib
from tests.helpers import ROOT

TIMEOUT_S = 300  # two workers importing torch on shared cores
TORCH_FLOOR_MIB = 100  # any process that imported torch holds more than this
ALLOCATED_MIB = 64  # the hand-made claim test below holds this much on top

CLAIMS = f"""
import pytest
import torch

@pytest.mark.claim("C4")
def test_holds_memory(claim):
    block = torch.ones({ALLOCATED_MIB} * 2**20 // 4)  # {ALLOCATED_MIB} MiB of float32, touched
    claim.set_scale(name="paper", seeds=1, paper_seeds=1)
    claim.check("key carrier fraction", float(block[0]) * 0.8, "in", (0.65, 0.95), paper="0.80")
    claim.verify()

@pytest.mark.claim("C5")
def test_small(claim, runtime):
    from lengthgen.engine import parallel

    # work for the session runtime's training processes where it has them (a serial run, --lengthgen-workers=2)
    assert sorted(parallel.map_unordered(abs, [-1, -2], runtime, threads=1)) == [(0, 1), (1, 2)]
    claim.set_scale(name="paper", seeds=1, paper_seeds=1)
    claim.check("peak offset", -2.0, "==", -2.0)
    claim.verify()
"""


def test_peak_is_this_process_in_mib():
    peak = peak_rss_mib()
    assert TORCH_FLOOR_MIB < peak < 64 * 2**10, peak  # torch is imported here; under 64 GiB


def test_memory_line_names_each_process_and_the_budget():
    line = memory_line({"gw1": 900.4, "gw0": 812.0, "controller": 150.0})
    assert line.startswith("peak resident memory: controller 150 MiB, gw0 812 MiB, gw1 900 MiB")
    assert f"within the {MEMORY_BUDGET_MIB} MiB" in line
    assert "OVER" in memory_line({"gw0": MEMORY_BUDGET_MIB + 1.0})


def run(tmp_path: Path, *extra: str) -> tuple[dict, str]:
    (tmp_path / "claims").mkdir(exist_ok=True)
    (tmp_path / "claims" / "test_memory.py").write_text(textwrap.dedent(CLAIMS))
    (tmp_path / "pytest.ini").write_text("[pytest]\nlengthgen_suite = true\n")  # the suite's plugin, active
    out = tmp_path / "report"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "claims",
            f"--lengthgen-report-dir={out}",
            f"--lengthgen-cache-dir={tmp_path / 'cache'}",
            "-p",
            "no:cacheprovider",
            *extra,
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    return json.loads((out / "claims.json").read_text())["environment"], result.stdout


@pytest.mark.slow
def test_each_xdist_workers_peak_arrives_in_the_report(tmp_path):
    environment, stdout = run(tmp_path, "-n", "2")
    peaks = environment["peak_rss_mib"]
    assert sorted(peaks) == ["controller", "gw0", "gw1"], peaks
    assert all(TORCH_FLOOR_MIB < peaks[w] < MEMORY_BUDGET_MIB for w in ("gw0", "gw1")), peaks
    assert max(peaks["gw0"], peaks["gw1"]) > TORCH_FLOOR_MIB + ALLOCATED_MIB, peaks  # the 64 MiB block counted
    assert "peak resident memory: controller" in stdout and "gw0" in stdout, stdout[-2000:]


@pytest.mark.slow
def test_without_xdist_the_one_process_is_reported(tmp_path):
    environment, _ = run(tmp_path, "-p", "no:xdist", "--lengthgen-workers=1")
    assert list(environment["peak_rss_mib"]) == ["main"]
    assert environment["peak_rss_mib"]["main"] > TORCH_FLOOR_MIB + ALLOCATED_MIB


@pytest.mark.slow
def test_a_serial_runs_training_processes_are_reported_beside_it(tmp_path):
    environment, stdout = run(tmp_path, "-p", "no:xdist", "--lengthgen-workers=2")
    peaks = environment["peak_rss_mib"]
    assert sorted(peaks) == ["main", "training processes"], peaks
    assert TORCH_FLOOR_MIB < peaks["training processes"] < MEMORY_BUDGET_MIB, peaks  # each imported torch
    assert "training processes" in stdout, stdout[-2000:]


def test_a_child_process_peak_is_measured(tmp_path):
    subprocess.run([sys.executable, "-c", "b = bytearray(160 * 2**20); b[::4096] = b'x' * len(b[::4096])"], check=True)
    assert peak_child_rss_mib() > 150
