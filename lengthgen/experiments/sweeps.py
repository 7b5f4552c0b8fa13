"""The supplement's sweeps around the paper's setup (C17, C18; Fig. 4).

- Carrier sweep (C17): the query and key carrier fractions ||mean_a W x_a||^2 / mean_a ||W x_a||^2 of the
  trained RoPE head's projected vocabulary (``probes/geometry.carrier_fraction`` of
  ``models/tables.vocab_projections``), and of the same seed's untrained initialisation (the baseline),
  over a *one-factor-at-a-time* sweep: each factor (width d, vocabulary size m, training length range
  [Lmin, Lmax], softmax temperature tau) takes each of its values while the others stay at the paper's
  (d = 64, m = 20, [8, 16], tau = 1). The paper's own point is the C1 grid's RoPE model (same spec, same
  cache key), shared by all four factors.
- Width dilution (C18): the RoPE heads of the width points evaluated at every evaluation length; per seed,
  the least-squares fit of 1/a* on L - 1 (``probes/dilution.dilution_fit``), whose slope is the dilution
  rate c.

Every model comes through the cache; members differing only in seed and K train in one ensemble pass.

Negative controls (the same result types, no new models): ``untrained_counterfactual`` (C17) puts each
model's untrained initialisation in place of the trained head; ``reversed_widths`` (C18) lists the
widths in the opposite order, so an ordering of c by width reads the other way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from lengthgen.store.cache import Cache
from lengthgen.config import EvalConfig, ModelConfig, RunSpec
from lengthgen.experiments.common import eval_dict, mean, paper_spec, train_and_evaluate
from lengthgen.models.one_layer.fast import vocab_projections
from lengthgen.probes.dilution import dilution_fit
from lengthgen.probes.geometry import carrier_fraction
from lengthgen.store.one_layer import trained
from lengthgen.engine.train import Member

FACTORS = ("width", "vocab", "lengths", "temperature")
PAPER_POINT = {"width": 64, "vocab": 20, "lengths": (8, 16), "temperature": 1.0}  # the paper's setup
# The full sweep (paper scale): every factor's values, the paper's included.
SWEEP: dict[str, tuple] = {
    "width": (32, 64, 128),
    "vocab": (10, 20, 40),
    "lengths": ((4, 12), (8, 16), (8, 24)),
    "temperature": (0.5, 1.0, 2.0),
}
WIDTHS = SWEEP["width"]  # C18's widths


def sweep_spec(steps: int, offset: int, factor: str, value: Any) -> RunSpec:
    """The paper's RoPE setup with one factor changed (the paper's value gives the C1 grid's spec)."""
    if factor == "width":
        return paper_spec(steps, task={"offset": offset}, model={"d": int(value)})
    if factor == "vocab":
        return paper_spec(steps, task={"offset": offset, "vocab": int(value)})
    if factor == "lengths":
        low, high = value
        return paper_spec(steps, task={"offset": offset, "min_len": int(low), "max_len": int(high)})
    if factor == "temperature":
        return paper_spec(steps, task={"offset": offset}, model={"temperature": float(value)})
    raise ValueError(f"unknown sweep factor {factor!r} (known: {', '.join(FACTORS)})")


def point_label(factor: str, value: Any) -> str:
    """A short label: d=32, m=10, L in [8,24], tau=0.5."""
    if factor == "lengths":
        return f"L in [{value[0]},{value[1]}]"
    symbol = {"width": "d", "vocab": "m", "temperature": "tau"}[factor]
    return f"{symbol}={value:g}" if isinstance(value, float) else f"{symbol}={value}"


def carrier_fractions(state: dict[str, torch.Tensor], cfg: ModelConfig, head: int = 0) -> dict[str, float]:
    """Query and key carrier fractions of one head of one model's parameters."""
    stacked = {name: state[name][None] for name in ("embed.weight", "W_Q.weight", "W_K.weight")}  # (1, ...)
    q_tab, k_tab = vocab_projections(stacked, cfg)  # (1, H, m, dh) each
    return {"query": float(carrier_fraction(q_tab)[0, head]), "key": float(carrier_fraction(k_tab)[0, head])}


@dataclass
class CarrierSweepResult:
    sweep: dict[str, tuple]  # factor -> its values (the paper's included)
    offsets: tuple[int, ...]
    seeds: tuple[int, ...]
    steps: int
    rows: list[dict[str, Any]]  # one per (factor, value, K, seed): trained and baseline fractions

    def points(self) -> list[tuple[str, Any]]:
        return [(factor, value) for factor, values in self.sweep.items() for value in values]

    def fraction(self, factor: str, value: Any, offset: int, which: str = "key", baseline: bool = False) -> list[float]:
        """Per seed: the ``which`` ("key" / "query") carrier fraction at one sweep point and K."""
        part = "baseline" if baseline else "trained"
        cell = [r for r in self.rows if (r["factor"], r["value"], r["offset"]) == (factor, value, offset)]
        return [r[part][which] for r in sorted(cell, key=lambda r: r["seed"])]

    def to_dict(self) -> dict[str, Any]:
        return {
            "config": {
                "design": "one factor at a time around the paper's setup",
                "paper_point": {k: list(v) if isinstance(v, tuple) else v for k, v in PAPER_POINT.items()},
                "sweep": {k: [list(v) if isinstance(v, tuple) else v for v in vs] for k, vs in self.sweep.items()},
                "offsets": list(self.offsets),
                "seeds": list(self.seeds),
                "steps": self.steps,
            },
            "rows": [{**r, "value": list(r["value"]) if isinstance(r["value"], tuple) else r["value"]} for r in self.rows],
        }

    def table(self) -> str:
        lines = [f"carrier fractions (key / query), mean over {len(self.seeds)} seeds; untrained baseline in brackets",
                 f"{'point':<14} " + " ".join(f"{'K=' + str(K):<26}" for K in self.offsets)]
        for factor, value in self.points():
            cells = []
            for K in self.offsets:
                key, query = mean(self.fraction(factor, value, K)), mean(self.fraction(factor, value, K, "query"))
                base = mean(self.fraction(factor, value, K, baseline=True))
                cells.append(f"{key:.3f} / {query:.3f} [{base:.3f}]".ljust(26))
            lines.append(f"{point_label(factor, value):<14} " + " ".join(cells))
        return "\n".join(lines)


def run_carrier_sweep(
    seeds: Sequence[int],
    steps: int = 4000,
    offsets: Sequence[int] = (2, 3),
    sweep: dict[str, Sequence] | None = None,
    cache: Cache | None = None,
    progress: bool | None = None,
) -> CarrierSweepResult:
    """C17: carrier fractions at every point of a one-factor-at-a-time sweep (default: ``SWEEP``)."""
    cache = cache if cache is not None else Cache()
    sweep = {factor: tuple(values) for factor, values in (sweep or SWEEP).items()}
    cells = [
        (factor, value, Member(sweep_spec(steps, offset, factor, value), seed))
        for factor, values in sweep.items()
        for value in values
        for offset in offsets
        for seed in seeds
    ]
    unique = list(dict.fromkeys(member for _, _, member in cells))  # the paper's point appears once per factor
    models = dict(zip(unique, trained(unique, cache, progress)))
    rows = []
    for factor, value, member in cells:
        model = models[member]
        rows.append({
            "factor": factor,
            "value": value,
            "offset": member.spec.task.offset,
            "seed": member.seed,
            "trained": carrier_fractions(model.state, model.spec.model),
            "baseline": carrier_fractions(model.initial_module().state_dict(), model.spec.model),
        })
    return CarrierSweepResult(sweep, tuple(offsets), tuple(seeds), steps, rows)


def untrained_counterfactual(result: CarrierSweepResult) -> CarrierSweepResult:
    """C17's negative control: every row's trained fractions replaced by the same seed's untrained ones."""
    rows = [{**row, "trained": dict(row["baseline"])} for row in result.rows]
    return dataclasses.replace(result, rows=rows)


@dataclass
class WidthDilutionResult:
    widths: tuple[int, ...]
    offsets: tuple[int, ...]
    seeds: tuple[int, ...]
    steps: int
    evaluation: EvalConfig
    rows: list[dict[str, Any]]  # one per (d, K, seed): a*(L) and the fit of 1/a* on L - 1

    @property
    def lengths(self) -> tuple[int, ...]:
        return self.evaluation.lengths

    def _cell(self, width: int, offset: int) -> list[dict[str, Any]]:
        return sorted((r for r in self.rows if (r["width"], r["offset"]) == (width, offset)), key=lambda r: r["seed"])

    def slopes(self, width: int, offset: int) -> list[float]:
        """Per seed: the dilution rate c (slope of 1/a* on L - 1)."""
        return [r["fit"]["slope"] for r in self._cell(width, offset)]

    def r2(self, width: int, offset: int) -> list[float]:
        return [r["fit"]["r2"] for r in self._cell(width, offset)]

    def target_weights(self, width: int, offset: int) -> list[list[float]]:
        """Per seed: a*(L) over the evaluation lengths."""
        return [r["target_weight"] for r in self._cell(width, offset)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "config": {
                "widths": list(self.widths),
                "offsets": list(self.offsets),
                "seeds": list(self.seeds),
                "steps": self.steps,
                "eval": eval_dict(self.evaluation),
            },
            "rows": self.rows,
        }

    def table(self) -> str:
        lines = [f"dilution rate c (slope of 1/a* on L-1) per width, {len(self.seeds)} seeds",
                 f"{'d':>4} {'K':>2}  {'c mean':>8}  {'R^2 mean':>8}  per-seed c"]
        for width in self.widths:
            for K in self.offsets:
                slopes = self.slopes(width, K)
                lines.append(f"{width:>4} {K:>2}  {mean(slopes):>8.4f}  {mean(self.r2(width, K)):>8.3f}  "
                             + " ".join(f"{c:.4f}" for c in slopes))
        return "\n".join(lines)


def run_width_dilution(
    seeds: Sequence[int],
    steps: int = 4000,
    offsets: Sequence[int] = (2, 3),
    widths: Sequence[int] = WIDTHS,
    evaluation: EvalConfig | None = None,
    cache: Cache | None = None,
    progress: bool | None = None,
) -> WidthDilutionResult:
    """C18: per width, K and seed, the target weight a*(L) and the dilution fit."""
    evaluation = evaluation or EvalConfig()
    specs = {(int(d), K): sweep_spec(steps, K, "width", d) for d in widths for K in offsets}
    runs = train_and_evaluate(list(specs.values()), seeds, evaluation, cache, progress)
    rows = []
    for (width, offset), spec in specs.items():
        for run in runs[spec]:
            weights = [row.target_weight[0] for row in run.evals]
            rows.append({
                "width": width,
                "offset": offset,
                "seed": run.seed,
                "target_weight": weights,
                "fit": dilution_fit(list(evaluation.lengths), weights).to_dict(),
            })
    return WidthDilutionResult(tuple(int(d) for d in widths), tuple(offsets), tuple(seeds), steps, evaluation, rows)


def reversed_widths(result: WidthDilutionResult) -> WidthDilutionResult:
    """C18's negative control: the same fits with the widths listed widest first (128, 64, 32), so that
    "c falls along the list of widths" asks for c(128) > c(64) > c(32)."""
    return dataclasses.replace(result, widths=tuple(reversed(result.widths)))
