"""The start-up measurement (``scripts/record-startup``) compared: per start-up tweak and command, the median
seconds of the runs with every tweak on and with that one switched off, and what switching it off costs (the
difference of the means, off minus on, with its 95 % t interval over the repeats, in wall and in CPU seconds). A
tweak *pays* where an interval lies above 0; an interval that holds 0 is within noise. The tweaks measured and then
removed keep their runs in the file (``dropped``). Reading the file: a missing, foreign or incomplete one is a
one-line ValueError. The documents show it (``report/templates/docs/``). No torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from statistics import fmean, median
from typing import Any, Mapping, NamedTuple

from lengthgen.analysis.data import read_json
from lengthgen.stats import student_interval

LEVEL = 0.95  # the intervals' coverage


class Difference(NamedTuple):
    """Off minus on: the difference of the means and its interval (seconds)."""

    mean: float
    low: float
    high: float

    @property
    def pays(self) -> bool:
        """The tweak saves time beyond the repeats' noise: the interval lies above 0."""
        return self.low > 0


class Saving(NamedTuple):
    """One tweak under one command: the runs with every tweak on against those with it switched off."""

    tweak: str
    command: str
    repeats: int  # runs of each side
    wall_on: float  # median wall seconds, every tweak on
    wall_off: float  # median wall seconds, this one off
    wall: Difference
    cpu: Difference  # the processes' CPU seconds

    @property
    def pays(self) -> bool:
        return self.wall.pays or self.cpu.pays


def difference(off: list[float], on: list[float]) -> Difference:
    """The difference of the means with its t interval (``lengthgen.stats.student_interval``); ValueError below 2
    runs a side."""
    low, high = student_interval(off, on, LEVEL)
    return Difference(fmean(off) - fmean(on), low, high)


@dataclass(frozen=True)
class TweakRuns:
    """One set of runs: where it ran, the tweaks it switched off (name -> what the tweak is), their savings."""

    environment: Mapping[str, Any]  # recorded, cpu_model, cores, torch, cpu_capability
    switches: Mapping[str, str]
    savings: tuple[Saving, ...]  # per tweak, per command, in the file's order
    how: str | None  # how the runs were switched, where it is not scripts/record-startup

    @classmethod
    def of(cls, block: Any, where: str) -> "TweakRuns":
        if not isinstance(block, dict) or not all(k in block for k in ("environment", "switches", "runs")):
            raise ValueError(f"{where} lacks environment, switches or runs")
        runs = block["runs"]
        baseline: dict[str, list[Any]] = {run["command"]: [] for run in runs}  # per command, in the file's order
        for run in runs:
            if run["off"] is None:  # every tweak on
                baseline[run["command"]].append(run)
        savings = []
        for tweak in block["switches"]:
            for command, on in baseline.items():
                off = [run for run in runs if run["command"] == command and run["off"] == tweak]
                if not off:
                    continue
                savings.append(
                    Saving(
                        tweak,
                        command,
                        min(len(on), len(off)),
                        median(run["wall_s"] for run in on),
                        median(run["wall_s"] for run in off),
                        difference([r["wall_s"] for r in off], [r["wall_s"] for r in on]),
                        difference([r["cpu_s"] for r in off], [r["cpu_s"] for r in on]),
                    )
                )
        missing = [tweak for tweak in block["switches"] if not any(s.tweak == tweak for s in savings)]
        if missing:
            raise ValueError(f"{where}: no run switched off {missing[0]!r}")
        return cls(block["environment"], dict(block["switches"]), tuple(savings), block.get("how"))


@dataclass(frozen=True)
class Startup:
    """The start-up measurement: the tweaks the suite keeps, and those measured and removed."""

    kept: TweakRuns
    dropped: TweakRuns | None

    @classmethod
    def read(cls, path: Path) -> "Startup":
        data = read_json(path, "start-up measurement", "run scripts/record-startup")
        if not isinstance(data, dict):
            raise ValueError(f"{str(path)!r} is not a start-up measurement (scripts/record-startup)")
        try:
            kept = TweakRuns.of(data, f"{str(path)!r}")
            dropped = TweakRuns.of(data["dropped"], f"{str(path)!r}'s dropped") if "dropped" in data else None
        except (KeyError, TypeError) as error:
            raise ValueError(f"{str(path)!r} is not a start-up measurement: {error!r} missing or malformed") from None
        return cls(kept, dropped)
