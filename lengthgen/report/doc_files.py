"""The recorded files beside the runs, as the documents' values: a costs file (``lengthgen timed``), the benchmarks
(pytest-benchmark's JSON) and the development measurements (``scripts/record-development``). Reading them (a
missing or foreign file is a one-line ValueError) and computing what the documents show of them; the words are the
templates' (``report/templates/docs/``). No torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import Any, Mapping, NamedTuple

from lengthgen.report.data import read_json

WIDTHS = (64, 96, 128)  # the two-layer widths the development run trains (seeds 0..4, RoPE and APE)
MORE_SEEDS = "two-layer-d96-more"  # d = 96, RoPE, seeds 5..9
QUICK_STEPS = (1000, 2000, 4000)  # C1's K = 1 RoPE heads at L = 48 after each
QUICK_LENGTH = 48


@dataclass(frozen=True)
class Costs:
    """A costs file: its steps as recorded (label, seconds, cold, closing, exit, date, cpu_seconds) and machine."""

    steps: tuple[Mapping[str, Any], ...]
    machine: Mapping[str, Any]

    @classmethod
    def of(cls, data: Mapping[str, Any] | None) -> "Costs":
        return cls(tuple((data or {}).get("steps", [])), (data or {}).get("machine", {}))

    @property
    def dates(self) -> list[str]:
        """The steps' dates, sorted, once each."""
        return sorted({s.get("date") for s in self.steps if s.get("date")})

    @property
    def total(self) -> float:
        return sum(float(s["seconds"]) for s in self.steps)

    def busy(self, step: Mapping[str, Any]) -> float | None:
        """How busy the cores were in ``step``, in percent: its CPU time over cores x wall time (None unrecorded)."""
        cpu, cores = step.get("cpu_seconds"), int(self.machine.get("cores") or 0)
        return 100 * float(cpu) / (cores * float(step["seconds"])) if cpu and cores else None

    @property
    def failed(self) -> bool:
        """Whether a step's pytest run had failures (its closing line says " failed"; "xfailed" is none)."""
        return any(" failed" in f" {s.get('closing', '')}" for s in self.steps)

    def part(self, marker: str) -> "Costs":
        """The steps whose label holds ``marker`` (the extended cells' runs: ``multiverse_extended``)."""
        return Costs(tuple(s for s in self.steps if marker in s.get("label", "")), self.machine)


class Slower(NamedTuple):
    """A slower CPU's cold command against the same command here (or against the time its step names)."""

    step: Mapping[str, Any]  # the slower CPU's step: label, seconds, date, and where it names one, its backward
    here: Mapping[str, Any]  # the step it is compared with (its ``against``, else this file's cold step)
    ratio: float
    machine: Mapping[str, Any]  # the slower CPU


def slower(costs: Costs, other: Costs | None) -> Slower | None:
    """The first cold step of ``other`` that has a counterpart: its own ``against``, else a cold step of
    ``costs`` with its label (None when they share none)."""
    mine = {s["label"]: s for s in costs.steps if s.get("cold")}
    for step in other.steps if other is not None else ():
        here = step.get("against") or mine.get(step["label"])
        if step.get("cold") and here is not None and float(here["seconds"]) > 0:
            return Slower(step, here, float(step["seconds"]) / float(here["seconds"]), other.machine)
    return None


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


class Width(NamedTuple):
    """A two-layer width of the development run: per encoding the beyond-range accuracies' (lowest, highest)
    over seeds, and how many RoPE seeds' retrieving heads select -K at every evaluation length, of how many."""

    width: int
    steps: int
    rope: tuple[float, float]
    ape: tuple[float, float]
    selecting: tuple[int, int]


@dataclass(frozen=True)
class Development:
    """The development measurements behind the choices made after seeing a result."""

    environment: Mapping[str, Any]  # recorded, cpu_model, torch, cpu_capability
    widths: tuple[Width, ...]
    offset: int  # the task's K
    d96: tuple[int, int]  # RoPE seeds selecting -K at d = 96 over seeds 0..9, of how many
    quick: tuple[tuple[int, float], ...]  # (steps, C1's K = 1 RoPE accuracy at L = quick_length, the seeds' mean)
    quick_length: int

    @classmethod
    def read(cls, path: Path) -> "Development":
        data = read_json(path, "development run", "scripts/record-development writes it")
        if not isinstance(data, dict) or not isinstance(data.get("runs"), dict):
            raise ValueError(f"{str(path)!r} is not a development run (no runs)")

        def run(name: str) -> Any:
            if name not in data["runs"]:
                raise ValueError(f"the development run lacks {name!r} (re-record it: scripts/record-development)")
            return data["runs"][name]

        def selecting(models: list[Mapping[str, Any]], offset: int) -> tuple[int, int]:
            every = [all(row["selected_offset"] == -offset for row in m["eval"]) for m in models]
            return sum(every), len(every)

        def models(name: str, encoding: str) -> list[Mapping[str, Any]]:
            return [m for m in run(name)["models"] if m["encoding"] == encoding]

        def span(models: list[Mapping[str, Any]]) -> tuple[float, float]:
            found = [m["beyond_range_accuracy"] for m in models]
            return min(found), max(found)

        widths, offset = [], 0
        for width in WIDTHS:
            name = f"two-layer-d{width}"
            spec = run(name)["config"]["spec"]
            offset = spec["task"]["offset"]
            rope, ape = models(name, "rope"), models(name, "ape")
            widths.append(Width(width, spec["train"]["steps"], span(rope), span(ape), selecting(rope, offset)))
        d96 = selecting(models("two-layer-d96", "rope") + models(MORE_SEEDS, "rope"), offset)
        quick = tuple(
            (
                steps,
                fmean(
                    r["accuracy"]
                    for s in run(f"c1-k1-{steps}")["seeds"]
                    for r in s["eval"]
                    if r["length"] == QUICK_LENGTH
                ),
            )
            for steps in QUICK_STEPS
        )
        return cls(data.get("environment") or {}, tuple(widths), offset, d96, quick, QUICK_LENGTH)
