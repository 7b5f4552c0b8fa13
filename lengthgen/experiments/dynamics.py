"""Training dynamics (C16, Fig. 4): the carrier and the rank concentration of W = W_Q^T W_K co-emerge.

No retraining per checkpoint: the training engine records, every ``record_every`` (50) steps of the one
run, the per-member loss, the query and key carrier fractions of the projected vocabulary and the top
singular-value energy sigma_1^2 / sum sigma_i^2 of W (``train.geometry_record``), and caches them with
the model. This experiment reads those trajectories from the RoPE models of the C1 grid
(``paper_spec(ctx, task={"offset": K})``: same spec, same cache key, no training) and, per quantity
and model, finds its initial (step-0) value, the first recorded step at which the value reaches 90% of
its final value (step 0 counts as a record: a series that starts at its final value "emerges" at 0) and
how far it strays from the final value once ``emerge_by`` is passed.

``flat_counterfactual`` is C16's negative control: the same runs with every series replaced by its final
value at every record (a quantity that was there from the start, so nothing emerges).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lengthgen.store.cache import Cache
from lengthgen.config import RunSpec
from lengthgen.context import Context
from lengthgen.experiments.common import paper_spec
from lengthgen.experiments.results import Column, config, text_table, to_json
from lengthgen.probes.trajectory import emergence_step, plateau_deviation
from lengthgen.store.one_layer import trained
from lengthgen.engine.train import Member

QUANTITIES = ("key_carrier", "query_carrier", "rank_energy")  # trajectory entries studied (head 0)
EMERGENCE_FRACTION = 0.9  # "reaches 90% of its final value" (catalogue, C16)
PAPER_EMERGE_BY = 1000  # catalogue: emerged before step 1000 of the paper's 4000-step run


def emerge_by(steps: int) -> int:
    """The step before which the quantities must have emerged: 1000 (the catalogue's, for the paper's 4000
    steps), or half the run for a run of fewer than 2000 steps (the quick scale's 1000 -> 500), so that
    the plateau check still has half the run to look at."""
    return min(PAPER_EMERGE_BY, steps // 2)


@dataclass(frozen=True)
class QuantityStats:
    """How one quantity of one run emerges."""

    initial: float  # its value at step 0
    final: float  # its value at the last record
    emergence_step: int  # the first recorded step reaching EMERGENCE_FRACTION of the final value (t90)
    plateau_deviation: float  # max relative deviation from the final value after ``emerge_by``


@dataclass(frozen=True)
class DynamicsRow:
    """One (K, seed) run's recorded trajectories (head 0) and, per quantity, how it emerges."""

    offset: int  # target offset K
    seed: int  # training seed
    step: tuple[int, ...]  # the recorded steps
    loss: tuple[float, ...]  # training loss per record
    key_carrier: tuple[float, ...]  # key carrier fraction per record
    query_carrier: tuple[float, ...]  # query carrier fraction per record
    rank_energy: tuple[float, ...]  # sigma_1^2 / sum sigma_i^2 of W_Q^T W_K per record
    stats: dict[str, QuantityStats]  # quantity (one of QUANTITIES) -> its statistics


def stats_cell(stats: QuantityStats) -> str:
    return (
        f"init {stats.initial:.3f} final {stats.final:.3f} t90 {stats.emergence_step:>4} "
        f"dev {stats.plateau_deviation:.3f}"
    )


COLUMNS = (
    Column("K", lambda r: r.offset, ">2"),
    Column("seed", lambda r: r.seed, ">4"),
    *(Column(q, lambda r, q=q: stats_cell(r.stats[q]), header_spec="<38", gap="  ") for q in QUANTITIES),
)


@dataclass
class DynamicsResult:
    offsets: tuple[int, ...]  # target offsets K, in run order
    seeds: tuple[int, ...]  # training seeds, in run order
    steps: int  # training steps of each run
    emerge_by: int  # the step the emergence check compares with
    rows: list[DynamicsRow]  # one per (K, seed)
    spec: RunSpec  # the runs' spec but for K (the JSON's config)

    def of(self, offset: int) -> list[DynamicsRow]:
        return [r for r in self.rows if r.offset == offset]

    def stat(self, offset: int, quantity: str, name: str) -> list[float]:
        """Per seed: ``name`` in ("initial", "final", "emergence_step", "plateau_deviation") of ``quantity``."""
        return [float(getattr(r.stats[quantity], name)) for r in self.of(offset)]

    def initial_fraction(self, offset: int, quantity: str) -> list[float]:
        """Per seed: the initial (step-0) value of ``quantity`` as a fraction of its final value."""
        return [i / f for i, f in zip(self.stat(offset, quantity, "initial"), self.stat(offset, quantity, "final"))]

    def emergence_gap(self, offset: int, quantity: str, other: str) -> list[float]:
        """Per seed: |t90(quantity) - t90(other)|, in steps (how far apart the two emerge)."""
        return [
            abs(a - b)
            for a, b in zip(self.stat(offset, quantity, "emergence_step"), self.stat(offset, other, "emergence_step"))
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "config": config(
                offsets=self.offsets,
                seeds=self.seeds,
                steps=self.steps,
                emerge_by=self.emerge_by,
                emergence_fraction=EMERGENCE_FRACTION,
                spec=self.spec,
            ),
            "rows": to_json(self.rows),
        }

    def table(self) -> str:
        title = (
            f"training dynamics over {self.steps} steps: initial (step 0) and final value, step reaching "
            f"{EMERGENCE_FRACTION:.0%} of the final value (t90) and max relative deviation from it after step "
            f"{self.emerge_by} (dev)"
        )
        return text_table(title, COLUMNS, self.rows)


def trajectory_row(offset: int, seed: int, trajectory: dict[str, list], by: int) -> DynamicsRow:
    """One model's trajectories (head 0) and, per quantity, its final value, emergence step and plateau."""
    steps = tuple(int(s) for s in trajectory["step"])
    series = {q: tuple(float(v[0]) for v in trajectory[q]) for q in QUANTITIES}
    stats = {
        q: QuantityStats(
            initial=values[0],
            final=values[-1],
            emergence_step=emergence_step(steps, values, EMERGENCE_FRACTION),
            plateau_deviation=plateau_deviation(steps, values, by),
        )
        for q, values in series.items()
    }
    return DynamicsRow(
        offset=offset, seed=seed, step=steps, loss=tuple(float(v) for v in trajectory["loss"]), **series, stats=stats
    )


def run_dynamics(ctx: Context, cache: Cache | None, offsets: Sequence[int] = (2, 3)) -> DynamicsResult:
    """The recorded trajectories of the C1 grid's RoPE heads of every K at ``ctx``'s seeds and steps (its
    evaluation is not read: the trajectories are recorded in training)."""
    cache = cache if cache is not None else Cache()
    by = emerge_by(ctx.steps)
    if by < 1:
        raise ValueError(f"steps={ctx.steps} is too short to study emergence")
    members = [Member(paper_spec(ctx, task={"offset": offset}), seed) for offset in offsets for seed in ctx.seeds]
    models = trained(members, cache, ctx.progress)
    rows = [trajectory_row(m.spec.task.offset, m.seed, m.trajectory, by) for m in models]
    return DynamicsResult(tuple(offsets), ctx.seeds, ctx.steps, by, rows, paper_spec(ctx))


def flat_counterfactual(result: DynamicsResult) -> DynamicsResult:
    """C16's negative control: ``result``'s runs with every quantity's series replaced by its final value
    at every record (statistics recomputed): a carrier and rank concentration present from step 0."""
    rows = []
    for row in result.rows:
        trajectory = {
            "step": row.step,
            "loss": row.loss,
            **{q: [[getattr(row, q)[-1]] for _ in getattr(row, q)] for q in QUANTITIES},
        }  # head 0 only
        rows.append(trajectory_row(row.offset, row.seed, trajectory, result.emerge_by))
    return dataclasses.replace(result, rows=rows)
