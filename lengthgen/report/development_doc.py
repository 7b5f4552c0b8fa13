"""docs/protocol.md's development measurements (``lengthgen docs``), from ``tests/data/development.json``
(``scripts/record-development``: lengthgen commands' JSON, with the machine they ran on): the numbers behind the
two choices made after seeing a result, the two-layer transformer's width and quick scale's training length.
No torch.
"""

from __future__ import annotations

from pathlib import Path
from statistics import fmean
from typing import Any, Mapping

from lengthgen.report import text
from lengthgen.report.data import read_json
from lengthgen.report.markdown import table

WIDTHS = (64, 96, 128)  # the two-layer widths the development run trains (seeds 0..4, RoPE and APE)
MORE_SEEDS = "two-layer-d96-more"  # d = 96, RoPE, seeds 5..9
QUICK_STEPS = (1000, 2000, 4000)  # C1's K = 1 RoPE heads at L = 48 after each
QUICK_LENGTH = 48


def read(path: Path) -> dict[str, Any]:
    """The development run's data; ValueError (one line) for a missing or malformed file."""
    data = read_json(path, "development run", "scripts/record-development writes it")
    if not isinstance(data, dict) or not isinstance(data.get("runs"), dict):
        raise ValueError(f"{str(path)!r} is not a development run (no runs)")
    return data


def _run(data: Mapping[str, Any], name: str) -> Any:
    try:
        return data["runs"][name]
    except KeyError:
        raise ValueError(f"the development run lacks {name!r} (re-record it: scripts/record-development)") from None


def machine(data: Mapping[str, Any]) -> str:
    env = data.get("environment") or {}
    return (
        f"recorded {env.get('recorded', '?')} on {env.get('cpu_model', 'an unknown CPU')} "
        f"(torch {env.get('torch', '?')}, kernels {env.get('cpu_capability', '?')})"
    )


def _span(values: list[float]) -> str:
    low, high = min(values), max(values)
    shown = text.num(low, 3), text.num(high, 3)
    return shown[0] if shown[0] == shown[1] else f"{shown[0]}–{shown[1]}"


def _selecting(models: list[Mapping[str, Any]], offset: int) -> str:
    """How many RoPE models' retrieving heads select -K at every evaluation length, of how many."""
    every = [all(row["selected_offset"] == -offset for row in m["eval"]) for m in models]
    return f"{sum(every)} of {len(every)}"


def two_layer_widths(data: Mapping[str, Any]) -> str:
    """Per width: the beyond-range accuracy per seed of each encoding (at the longest length) and how many RoPE
    seeds' retrieving heads select -K at every length; then d = 96 over seeds 0..9."""
    rows = []
    offset = None
    for width in WIDTHS:
        run = _run(data, f"two-layer-d{width}")
        offset = run["config"]["spec"]["task"]["offset"]
        by = {e: [m for m in run["models"] if m["encoding"] == e] for e in ("rope", "ape")}
        steps = run["config"]["spec"]["train"]["steps"]
        rows.append(
            [
                f"d = {width}",
                str(steps),
                _span([m["beyond_range_accuracy"] for m in by["rope"]]),
                _span([m["beyond_range_accuracy"] for m in by["ape"]]),
                _selecting(by["rope"], offset),
            ]
        )
    more = [m for m in _run(data, MORE_SEEDS)["models"] if m["encoding"] == "rope"]
    d96 = [m for m in _run(data, "two-layer-d96")["models"] if m["encoding"] == "rope"] + more
    head = ["width", "steps", "RoPE beyond range, per seed", "APE beyond range, per seed", "RoPE selecting −K"]
    return (
        "\n".join(table(head, rows))
        + f"\n\nSeeds 0..4 each; beyond range: accuracy over the positions ≥ 16 of the length-48 sequences; "
        f"selecting −K: the retrieving head selects −{offset} at every evaluation length. At d = 96 over seeds "
        f"0..9, {_selecting(d96, offset)} RoPE seeds select −{offset} at every length. Development run, "
        f"{machine(data)}.\n"
    )


def quick_steps(data: Mapping[str, Any]) -> str:
    """C1's K = 1 RoPE heads (8 seeds) at L = 48 after each step count: the seed mean of the accuracy."""
    parts = []
    for steps in QUICK_STEPS:
        seeds = _run(data, f"c1-k1-{steps}")["seeds"]
        accuracy = fmean(row["accuracy"] for s in seeds for row in s["eval"] if row["length"] == QUICK_LENGTH)
        parts.append(f"{text.num(accuracy, 4)} after {steps} steps")
    return (
        f"The phenomenon grid's K = 1 RoPE heads at L = {QUICK_LENGTH}, mean over seeds 0..7: {', '.join(parts)} "
        f"(development run, {machine(data)}).\n"
    )
