"""The plugin's option values are checked as pytest parses the command line: a bad --lengthgen-threads,
--lengthgen-seeds or --lengthgen-device is pytest's usage error (exit 4) with one ``error:`` line naming the
value, before any test or plugin code runs; a good one arrives parsed (``lengthgen.testing.options``). Every
option is named ``--lengthgen-*``, so it cannot collide with another project's options."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import pytest

from lengthgen.config import MAX_SEEDS
from lengthgen.testing.options import AUTO, PREFIX, device_arg, seeds_arg, threads_arg, until_decided_arg, workers_arg
from tests.helpers import ROOT

TIMEOUT_S = 120  # one pytest start-up that stops while parsing its arguments, on shared cores


def test_good_values_arrive_parsed():
    assert threads_arg("3") == 3
    assert workers_arg("2") == 2 and workers_arg("auto") == workers_arg(" AUTO ") == AUTO
    assert seeds_arg("0-3") == (0, 1, 2, 3) and seeds_arg("0,2,5") == (0, 2, 5)
    assert seeds_arg(f"0-{MAX_SEEDS - 1}") == tuple(range(MAX_SEEDS))
    assert seeds_arg("") is None and seeds_arg("  ") is None  # a blank --lengthgen-seeds= means the paper's count
    assert [device_arg(name) for name in ("cpu", "cuda", "cuda:1", "cpu:0")] == ["cpu", "cuda", "cuda:1", "cpu:0"]


@pytest.mark.parametrize(
    "parse, text, fragment",
    [
        (threads_arg, "0", "--lengthgen-threads='0': must be a positive integer"),
        (threads_arg, "-2", "--lengthgen-threads='-2'"),
        (threads_arg, "abc", "--lengthgen-threads='abc'"),
        (workers_arg, "0", "--lengthgen-workers='0': must be 'auto' or a positive integer"),
        (workers_arg, "many", "--lengthgen-workers='many'"),
        (until_decided_arg, "1", "--lengthgen-until-decided='1': MAX must be an integer in 2..10000"),
        (
            until_decided_arg,
            "x",
            "--lengthgen-until-decided='x': MAX must be an integer (seeds), e.g. --lengthgen-until-decided=24",
        ),
        (seeds_arg, "5-1", "seed spec '5-1' is a reversed range"),
        (seeds_arg, "0-99999999", "seed spec '0-99999999' names 100000000 seeds; at most 10000"),
        (seeds_arg, "x", "seed spec 'x' is neither a range"),
        (device_arg, "tpu", "unknown device 'tpu'"),
        (device_arg, "meta", "unknown device 'meta'"),
        (device_arg, "CPU", "unknown device 'CPU'"),
        (device_arg, "cuda:", "unknown device 'cuda:'"),
    ],
)
def test_bad_values_are_refused_naming_them(parse, text, fragment):
    with pytest.raises(argparse.ArgumentTypeError) as error:
        parse(text)
    assert fragment in str(error.value)


def test_every_option_is_in_the_plugins_namespace(pytestconfig):
    """The entry point adds the options to every pytest session in the environment: a generic name
    (``--device``, ``--seeds``) would collide with another project's own option (argparse's "conflicting
    option string"). Each is ``--lengthgen-*``, its ``dest`` ``lengthgen_*``; the CLI keeps its short names."""
    from lengthgen.cli import build_parser

    group = pytestconfig._parser.getgroup("lengthgen")
    names = {name for option in group.options for name in option.names()}
    assert len(group.options) == 10 and all(name.startswith(PREFIX) for name in names), sorted(names)
    assert all(option.dest == option.names()[0][2:].replace("-", "_") for option in group.options)
    train = build_parser().parse_args(
        [
            "train",
            "--encoding",
            "rope",
            "--offset",
            "2",
            "--seeds",
            "0-1",
            "--threads",
            "2",
            "--device",
            "cpu",
            "--cache-dir",
            "d",
            "--retrain",
        ]
    )
    assert train.seeds == (0, 1) and train.threads == 2 and train.retrain  # the CLI's own options, unprefixed


@pytest.mark.slow
@pytest.mark.parametrize(
    "option, value",
    [
        ("--lengthgen-threads", "0"),
        ("--lengthgen-workers", "0"),
        ("--lengthgen-seeds", "5-1"),
        ("--lengthgen-device", "tpu"),
        ("--lengthgen-until-decided", "1"),
    ],
)
def test_pytest_bad_value_is_a_one_line_usage_error(tmp_path, option, value):
    (tmp_path / "pytest.ini").write_text("[pytest]\nlengthgen_suite = true\n")  # the suite's plugin, active
    (tmp_path / "test_nothing.py").write_text("def test_nothing():\n    pass\n")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", f"{option}={value}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 4, result.stdout[-2000:] + result.stderr[-2000:]
    errors = [line for line in result.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and f"error: argument {option}: " in errors[0], result.stderr
    assert repr(value) in errors[0], result.stderr
    assert "test_nothing" not in result.stdout  # nothing was collected or run


class _Config:
    """The part of pytest.Config that ``training_workers`` reads."""

    def __init__(self, workers, worker: bool):
        self._workers = workers
        if worker:
            self.workerinput = {}

    def getoption(self, name):
        assert name == "lengthgen_workers"
        return self._workers


def test_auto_trains_in_one_process_per_core_serially_and_in_the_worker_itself_under_xdist(monkeypatch):
    from lengthgen.testing.session import training_workers

    monkeypatch.setattr("os.cpu_count", lambda: 6)
    assert training_workers(_Config(AUTO, worker=False)) == 6
    assert training_workers(_Config(AUTO, worker=True)) == 1
    assert training_workers(_Config(3, worker=True)) == 3  # an explicit count holds in every process
    monkeypatch.setattr("os.cpu_count", lambda: None)
    assert training_workers(_Config(AUTO, worker=False)) == 1
