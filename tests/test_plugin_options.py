"""The plugin's option values are checked as pytest parses the command line: a bad --threads, --seeds or
--device is pytest's usage error (exit 4) with one ``error:`` line naming the value, before any test or
plugin code runs; a good one arrives parsed (``lengthgen.testing.options``)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lengthgen.config import MAX_SEEDS
from lengthgen.testing.options import device_arg, seeds_arg, threads_arg

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT_S = 120  # one pytest start-up that stops while parsing its arguments, on shared cores


def test_good_values_arrive_parsed():
    assert threads_arg("3") == 3
    assert seeds_arg("0-3") == (0, 1, 2, 3) and seeds_arg("0,2,5") == (0, 2, 5)
    assert seeds_arg(f"0-{MAX_SEEDS - 1}") == tuple(range(MAX_SEEDS))
    assert seeds_arg("") is None and seeds_arg("  ") is None  # a blank --seeds= means the paper's count
    assert [device_arg(name) for name in ("cpu", "cuda", "cuda:1", "cpu:0")] == ["cpu", "cuda", "cuda:1", "cpu:0"]


@pytest.mark.parametrize("parse, text, fragment", [
    (threads_arg, "0", "--threads='0': must be a positive integer"),
    (threads_arg, "-2", "--threads='-2'"),
    (threads_arg, "abc", "--threads='abc'"),
    (seeds_arg, "5-1", "seed spec '5-1' is a reversed range"),
    (seeds_arg, "0-99999999", "seed spec '0-99999999' names 100000000 seeds; at most 10000"),
    (seeds_arg, "x", "seed spec 'x' is neither a range"),
    (device_arg, "tpu", "unknown device 'tpu'"),
    (device_arg, "meta", "unknown device 'meta'"),
    (device_arg, "CPU", "unknown device 'CPU'"),
    (device_arg, "cuda:", "unknown device 'cuda:'"),
])
def test_bad_values_are_refused_naming_them(parse, text, fragment):
    with pytest.raises(argparse.ArgumentTypeError) as error:
        parse(text)
    assert fragment in str(error.value)


@pytest.mark.slow
@pytest.mark.parametrize("option, value", [("--threads", "0"), ("--seeds", "5-1"), ("--device", "tpu")])
def test_pytest_bad_value_is_a_one_line_usage_error(tmp_path, option, value):
    (tmp_path / "pytest.ini").write_text("[pytest]\nlengthgen_suite = true\n")  # the suite's plugin, active
    (tmp_path / "test_nothing.py").write_text("def test_nothing():\n    pass\n")
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider",
                             f"{option}={value}"], cwd=tmp_path, capture_output=True, text=True, timeout=TIMEOUT_S,
                            check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 4, result.stdout[-2000:] + result.stderr[-2000:]
    errors = [line for line in result.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and f"error: argument {option}: " in errors[0], result.stderr
    assert repr(value) in errors[0], result.stderr
    assert "test_nothing" not in result.stdout  # nothing was collected or run
