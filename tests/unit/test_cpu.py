"""Which CPU a run ran on (``lengthgen.cpu``): its model name and torch's kernels (``lengthgen.device``),
recorded in every run's environment and shown on the page (runs on two CPUs differ in the last bits)."""

from __future__ import annotations

from pathlib import Path


from lengthgen.cpu import UNKNOWN, cpu_label, cpu_model
from lengthgen.report.page import environment_rows
from lengthgen.testing import environment

CPUINFO = """processor\t: 0
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R)   Processor
flags\t\t: fpu avx2 avx512f

processor\t: 1
model name\t: Intel(R) Xeon(R) Processor
"""


def test_model_name_is_read_from_cpuinfo(tmp_path: Path):
    path = tmp_path / "cpuinfo"
    path.write_text(CPUINFO)
    assert cpu_model(path) == "Intel(R) Xeon(R) Processor"


def test_a_missing_cpuinfo_falls_back_without_raising(tmp_path: Path):
    assert isinstance(cpu_model(tmp_path / "absent"), str) and cpu_model(tmp_path / "absent")


def test_label_of_a_record_with_and_without_the_facts():
    assert cpu_label({"cpu_model": "X", "cpu_capability": "AVX2"}) == "X, torch kernels AVX2"
    assert cpu_label({}) == UNKNOWN
    assert cpu_label({"cpu_capability": "AVX512"}) == f"{UNKNOWN}, torch kernels AVX512"


def test_every_run_records_its_cpu_and_the_page_shows_it(monkeypatch):
    monkeypatch.setattr(environment, "cpu_model", lambda: "Planted CPU 9000")
    monkeypatch.setattr("lengthgen.device.cpu_capability", lambda: "AVX9")
    block = environment.collect(
        threads=1,
        workers=0,
        wall_time_s=1.0,
        started=0.0,
        cache_dir=None,
        cache_stats={},
        command="pytest",
        peak_rss={"gw0": 512.4, "gw1": 600.0},
    )
    assert block["cpu_model"] == "Planted CPU 9000" and block["cpu_capability"] == "AVX9"
    rows = dict(environment_rows(block))
    assert rows["CPU model"] == "Planted CPU 9000"
    assert rows["torch CPU kernels (capability)"] == "AVX9"
    assert rows["peak resident memory per process"] == "gw0 512 MiB, gw1 600 MiB"  # readable, not a dict
