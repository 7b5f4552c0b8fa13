"""The documents' values of a costs file (``lengthgen timed``: each timed command's label, wall time, CPU time,
pytest's closing line, and the machine): its dates and total, how busy the cores were, the parts of it a document
shows, and a slower CPU's time against this one's. The words are the templates' (``report/templates/docs/``). No
torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, NamedTuple


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
