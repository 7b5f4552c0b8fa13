"""The documents' values of the development measurements (``scripts/record-development``: lengthgen commands' JSON,
with the machine they ran on) behind the two choices made after seeing a result: the two-layer transformer's width
and the quick scale's training length. Reading the file: a missing, foreign or incomplete one is a one-line
ValueError. The words are the templates' (``report/templates/docs/``). No torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import Any, Mapping, NamedTuple

from lengthgen.analysis.data import read_json

WIDTHS = (64, 96, 128)  # the two-layer widths the development run trains (seeds 0..4, RoPE and APE)
MORE_SEEDS = "two-layer-d96-more"  # d = 96, RoPE, seeds 5..9
QUICK_STEPS = (1000, 2000, 4000)  # C1's K = 1 RoPE heads at L = 48 after each
QUICK_LENGTH = 48


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
