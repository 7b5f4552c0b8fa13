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
from lengthgen.context import Context
from lengthgen.experiments.common import mean, paper_spec, train_grid
from lengthgen.experiments.results import Column, config, text_table, to_json
from lengthgen.models.one_layer.fast import vocab_projections
from lengthgen.probes.dilution import DilutionFit, dilution_fit
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


def sweep_spec(ctx: Context, offset: int, factor: str, value: Any) -> RunSpec:
    """The paper's RoPE setup at ``ctx`` with one factor changed (the paper's value gives the C1 grid's spec)."""
    if factor == "width":
        return paper_spec(ctx, task={"offset": offset}, model={"d": int(value)})
    if factor == "vocab":
        return paper_spec(ctx, task={"offset": offset, "vocab": int(value)})
    if factor == "lengths":
        low, high = value
        return paper_spec(ctx, task={"offset": offset, "min_len": int(low), "max_len": int(high)})
    if factor == "temperature":
        return paper_spec(ctx, task={"offset": offset}, model={"temperature": float(value)})
    raise ValueError(f"unknown sweep factor {factor!r} (known: {', '.join(FACTORS)})")


def point_label(factor: str, value: Any) -> str:
    """A short label: d=32, m=10, L in [8,24], tau=0.5."""
    if factor == "lengths":
        return f"L in [{value[0]},{value[1]}]"
    symbol = {"width": "d", "vocab": "m", "temperature": "tau"}[factor]
    return f"{symbol}={value:g}" if isinstance(value, float) else f"{symbol}={value}"


def point_coordinates(factor: str, value: Any) -> dict[str, Any]:
    """The sweep point ``point_label`` prints, as coordinates: {"width": 32}, {"vocab": 10}, {"temperature": 0.5},
    the training lengths as {"min_len": 8, "max_len": 24}."""
    if factor == "lengths":
        return {"min_len": int(value[0]), "max_len": int(value[1])}
    if factor not in FACTORS:
        raise ValueError(f"unknown sweep factor {factor!r} (known: {', '.join(FACTORS)})")
    return {factor: value}


@dataclass(frozen=True)
class CarrierFractions:
    """The query and key carrier fractions of one head."""

    query: float  # ||mean_a W_Q x_a||^2 / mean_a ||W_Q x_a||^2
    key: float  # ||mean_a W_K x_a||^2 / mean_a ||W_K x_a||^2


def carrier_fractions(state: dict[str, torch.Tensor], cfg: ModelConfig, head: int = 0) -> CarrierFractions:
    """Query and key carrier fractions of one head of one model's parameters."""
    stacked = {name: state[name][None] for name in ("embed.weight", "W_Q.weight", "W_K.weight")}  # (1, ...)
    q_tab, k_tab = vocab_projections(stacked, cfg)  # (1, H, m, dh) each
    return CarrierFractions(query=float(carrier_fraction(q_tab)[0, head]), key=float(carrier_fraction(k_tab)[0, head]))


@dataclass(frozen=True)
class CarrierSweepRow:
    """One (factor, value, K, seed) RoPE model of the carrier sweep."""

    factor: str  # the factor changed from the paper's point (one of FACTORS)
    value: Any  # its value (an int, a float, or a (Lmin, Lmax) pair)
    offset: int  # target offset K
    seed: int  # training seed
    trained: CarrierFractions  # the trained head's fractions (the baseline's in ``untrained_counterfactual``)
    baseline: CarrierFractions  # the same seed's untrained initialisation


def carrier_sweep_columns(result: "CarrierSweepResult") -> tuple[Column, ...]:
    """Per sweep point: "key / query [baseline key]", the seed means, per K."""
    return (
        Column("point", lambda point: point_label(*point), "<14"),
        *(Column(f"K={K}", lambda point, K=K: result.cell_text(*point, K), "<26") for K in result.offsets),
    )


@dataclass
class CarrierSweepResult:
    sweep: dict[str, tuple]  # factor -> its values (the paper's included)
    offsets: tuple[int, ...]  # target offsets K, in run order
    seeds: tuple[int, ...]  # training seeds, in run order
    steps: int  # training steps of each model
    rows: list[CarrierSweepRow]  # one per (factor, value, K, seed)

    def points(self) -> list[tuple[str, Any]]:
        return [(factor, value) for factor, values in self.sweep.items() for value in values]

    def fraction(self, factor: str, value: Any, offset: int, which: str = "key", baseline: bool = False) -> list[float]:
        """Per seed: the ``which`` ("key" / "query") carrier fraction at one sweep point and K."""
        cell = [r for r in self.rows if (r.factor, r.value, r.offset) == (factor, value, offset)]
        return [getattr(r.baseline if baseline else r.trained, which) for r in sorted(cell, key=lambda r: r.seed)]

    def cell_text(self, factor: str, value: Any, offset: int) -> str:
        key, query = mean(self.fraction(factor, value, offset)), mean(self.fraction(factor, value, offset, "query"))
        base = mean(self.fraction(factor, value, offset, baseline=True))
        return f"{key:.3f} / {query:.3f} [{base:.3f}]"

    def to_json(self) -> dict[str, Any]:
        return {
            "config": config(
                design="one factor at a time around the paper's setup",
                paper_point=PAPER_POINT,
                sweep=self.sweep,
                offsets=self.offsets,
                seeds=self.seeds,
                steps=self.steps,
            ),
            "rows": to_json(self.rows),
        }

    def table(self) -> str:
        title = f"carrier fractions (key / query), mean over {len(self.seeds)} seeds; untrained baseline in brackets"
        return text_table(title, carrier_sweep_columns(self), self.points())


def run_carrier_sweep(
    ctx: Context, cache: Cache | None, offsets: Sequence[int] = (2, 3), sweep: dict[str, Sequence] | None = None
) -> CarrierSweepResult:
    """C17: carrier fractions at every point of a one-factor-at-a-time sweep (default: ``SWEEP``), at ``ctx``'s
    seeds and steps (no evaluation: the fractions are read from the weights)."""
    cache = cache if cache is not None else Cache()
    sweep = {factor: tuple(values) for factor, values in (sweep or SWEEP).items()}
    cells = [
        (factor, value, Member(sweep_spec(ctx, offset, factor, value), seed))
        for factor, values in sweep.items()
        for value in values
        for offset in offsets
        for seed in ctx.seeds
    ]
    unique = list(dict.fromkeys(member for _, _, member in cells))  # the paper's point appears once per factor
    models = dict(zip(unique, trained(unique, cache, ctx.progress)))
    rows = [
        CarrierSweepRow(
            factor=factor,
            value=value,
            offset=member.spec.task.offset,
            seed=member.seed,
            trained=carrier_fractions(models[member].state, models[member].spec.model),
            baseline=carrier_fractions(models[member].initial_module().state_dict(), models[member].spec.model),
        )
        for factor, value, member in cells
    ]
    return CarrierSweepResult(sweep, tuple(offsets), ctx.seeds, ctx.steps, rows)


def untrained_counterfactual(result: CarrierSweepResult) -> CarrierSweepResult:
    """C17's negative control: every row's trained fractions replaced by the same seed's untrained ones."""
    rows = [dataclasses.replace(row, trained=row.baseline) for row in result.rows]
    return dataclasses.replace(result, rows=rows)


@dataclass(frozen=True)
class WidthDilutionRow:
    """One (d, K, seed) RoPE model: a*(L) and the fit of 1/a* on L - 1."""

    width: int  # model width d
    offset: int  # target offset K
    seed: int  # training seed
    target_weight: tuple[float, ...]  # a*(L) per evaluation length
    fit: DilutionFit  # 1/a* = intercept + slope (L - 1): the slope is the dilution rate c


def width_dilution_columns(result: "WidthDilutionResult") -> tuple[Column, ...]:
    """Per (d, K): the seed means of c and R^2, and every seed's c."""
    return (
        Column("d", lambda key: key[0], ">4"),
        Column("K", lambda key: key[1], ">2"),
        Column("c mean", lambda key: mean(result.slopes(*key)), ">8.4f", gap="  "),
        Column("R^2 mean", lambda key: mean(result.r2(*key)), ">8.3f", gap="  "),
        Column("per-seed c", lambda key: " ".join(f"{c:.4f}" for c in result.slopes(*key)), gap="  "),
    )


@dataclass
class WidthDilutionResult:
    widths: tuple[int, ...]  # model widths d, in run order
    offsets: tuple[int, ...]  # target offsets K, in run order
    seeds: tuple[int, ...]  # training seeds, in run order
    steps: int  # training steps of each model
    evaluation: EvalConfig  # evaluation lengths and sequences per length
    rows: list[WidthDilutionRow]  # one per (d, K, seed)

    @property
    def lengths(self) -> tuple[int, ...]:
        return self.evaluation.lengths

    def _cell(self, width: int, offset: int) -> list[WidthDilutionRow]:
        return sorted((r for r in self.rows if (r.width, r.offset) == (width, offset)), key=lambda r: r.seed)

    def slopes(self, width: int, offset: int) -> list[float]:
        """Per seed: the dilution rate c (slope of 1/a* on L - 1)."""
        return [r.fit.slope for r in self._cell(width, offset)]

    def r2(self, width: int, offset: int) -> list[float]:
        return [r.fit.r2 for r in self._cell(width, offset)]

    def target_weights(self, width: int, offset: int) -> list[tuple[float, ...]]:
        """Per seed: a*(L) over the evaluation lengths."""
        return [r.target_weight for r in self._cell(width, offset)]

    def to_json(self) -> dict[str, Any]:
        return {
            "config": config(
                widths=self.widths, offsets=self.offsets, seeds=self.seeds, steps=self.steps, eval=self.evaluation
            ),
            "rows": to_json(self.rows),
        }

    def table(self) -> str:
        title = f"dilution rate c (slope of 1/a* on L-1) per width, {len(self.seeds)} seeds"
        keys = [(width, K) for width in self.widths for K in self.offsets]
        return text_table(title, width_dilution_columns(self), keys)


def run_width_dilution(
    ctx: Context, cache: Cache | None, offsets: Sequence[int] = (2, 3), widths: Sequence[int] = WIDTHS
) -> WidthDilutionResult:
    """C18: per width, K and seed of ``ctx``, the target weight a*(L) at its evaluation and the dilution fit."""
    evaluation = ctx.evaluation
    specs = {(int(d), K): sweep_spec(ctx, K, "width", d) for d in widths for K in offsets}
    runs = train_grid(ctx, cache, specs)
    rows = []
    for (width, offset), by_seed in runs.items():
        for run in by_seed:
            weights = tuple(row.target_weight[0] for row in run.evals)
            rows.append(
                WidthDilutionRow(
                    width=width,
                    offset=offset,
                    seed=run.seed,
                    target_weight=weights,
                    fit=dilution_fit(list(evaluation.lengths), weights),
                )
            )
    return WidthDilutionResult(tuple(int(d) for d in widths), tuple(offsets), ctx.seeds, ctx.steps, evaluation, rows)


def reversed_widths(result: WidthDilutionResult) -> WidthDilutionResult:
    """C18's negative control: the same fits with the widths listed widest first (128, 64, 32), so that
    "c falls along the list of widths" asks for c(128) > c(64) > c(32)."""
    return dataclasses.replace(result, widths=tuple(reversed(result.widths)))
