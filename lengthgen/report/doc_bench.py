"""The documents' values of the recorded benchmarks (pytest-benchmark's JSON of ``pytest tests/benchmarks -m bench
-p no:xdist``): each benchmark's median and what it recorded beside, the CPU and its vector kernels. Reading the
file: a missing or foreign one is a one-line ValueError. The words are the templates' (``report/templates/docs/``).
No torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, NamedTuple

from lengthgen.analysis.data import read_json


class Benchmark(NamedTuple):
    name: str  # its test id
    median: float  # seconds
    members: int | None  # the members of an ensemble step it times
    extra: Mapping[str, Any]  # what it recorded beside (speedup, cpu_speedup)


@dataclass(frozen=True)
class Benchmarks:
    """A pytest-benchmark run: its benchmarks in the file's order, the CPU and its vector kernels, the date."""

    rows: tuple[Benchmark, ...]
    cpu: str
    kernels: str  # "AVX-512", "AVX2" or "no AVX2"
    date: str

    @classmethod
    def read(cls, path: Path) -> "Benchmarks":
        data = read_json(path, "benchmark file", "pytest tests/benchmarks -m bench -p no:xdist --benchmark-json")
        if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list) or "machine_info" not in data:
            raise ValueError(f"{str(path)!r} is not a pytest-benchmark JSON file (no benchmarks, no machine_info)")
        rows = []
        for bench in data["benchmarks"]:
            extra = bench.get("extra_info") or {}
            members = int(extra["members"]) if extra.get("members") else None
            rows.append(Benchmark(bench["name"], float(bench["stats"]["median"]), members, extra))
        machine = data.get("machine_info") or {}
        cpu = (machine.get("cpu") or {}).get("brand_raw") or machine.get("processor") or "unknown CPU"
        flags = (machine.get("cpu") or {}).get("flags") or []
        kernels = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
        return cls(tuple(rows), cpu, kernels, str(data.get("datetime", ""))[:10])
