"""Whole command against whole command: a plain per-seed PyTorch loop (``plain_loop.py``: nn.Linear
projections over every position, one model after another) against ``lengthgen train``, both training
8 seeds x 1000 steps of the RoPE head (K = 2) on the paper's protocol and evaluating them at the paper's
lengths; start-up, training and evaluation included, the suite's command cold (its own empty cache).

The speed-up is recorded as ``extra_info["speedup"]`` of the ``lengthgen`` benchmark (the target: at
least 10x), the ratio of the two medians. Rounds: ``LENGTHGEN_BENCH_ROUNDS`` (default 1).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).parent
SEEDS, STEPS, OFFSET = 8, 1000, 2
ROUNDS = int(os.environ.get("LENGTHGEN_BENCH_ROUNDS", "1"))
COMMANDS = {
    "plain-loop": lambda tmp: [
        sys.executable,
        str(HERE / "plain_loop.py"),
        "--seeds",
        str(SEEDS),
        "--steps",
        str(STEPS),
        "--offset",
        str(OFFSET),
    ],
    "lengthgen-train": lambda tmp: [
        sys.executable,
        "-m",
        "lengthgen",
        "train",
        "--encoding",
        "rope",
        "--offset",
        str(OFFSET),
        "--seeds",
        f"0-{SEEDS - 1}",
        "--steps",
        str(STEPS),
        "--cache-dir",
        str(tmp / f"cache-{time.monotonic_ns()}"),
    ],
}
_times: dict[str, list[float]] = {}  # wall seconds per round
_cpu: dict[str, list[float]] = {}  # CPU seconds (user + system) per round: steadier on a shared machine


def _run(command: list[str]) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_whole_command(benchmark, tmp_path, name):
    def once():
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        _run(COMMANDS[name](tmp_path))
        _times.setdefault(name, []).append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        _cpu.setdefault(name, []).append(after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime)

    benchmark.pedantic(once, rounds=ROUNDS, iterations=1)
    benchmark.extra_info["cpu_seconds"] = round(_median(_cpu[name]), 2)
    if name == "lengthgen-train" and "plain-loop" in _times:
        ratio = _median(_times["plain-loop"]) / _median(_times[name])
        cpu_ratio = _median(_cpu["plain-loop"]) / _median(_cpu[name])
        benchmark.extra_info["speedup"] = round(ratio, 2)
        benchmark.extra_info["cpu_speedup"] = round(cpu_ratio, 2)
        print(f"\nplain loop / lengthgen train (medians): {ratio:.1f}x wall, {cpu_ratio:.1f}x CPU time")


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]
