"""Dilution and the margin bound (C6 Corollary 2, C7 Fig. 4) on the RoPE heads of the C1 grid.

Per (K, seed): the mean attention weight on the target a*(L) at each evaluation length, the least-squares
fit of 1/a* on L - 1, and the margins of the exact logit table (``probes/margin.py``) with the bound
1/(1 + (L-1) e^{-mu}) beside the measured a*(L). Per K: the same fit on the seed-mean a*(L).

Margins, per row: ``margin`` is the one margin over every offset -(span-1) .. 0 (span 48; its bound is
``span_bound``); ``margins`` holds the per-length margins mu_L and mu_typ_L over the offsets -(L-1) .. 0
that exist at L, and ``bound``, ``typical_bound``, ``gap`` and the ratios ``bound_ratio`` (bound_L / a*)
and ``typical_bound_ratio`` are per length from those. ``other_weight`` is the mean attention weight of
one of the L - 1 non-target positions, (sum of the mean profile off the target) / (L - 1).

``encoding="ape"`` gives the same a*(L) and fits for the grid's APE heads (C6's negative control); an APE
logit depends on absolute positions, so its rows carry no margins.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Sequence

from lengthgen.store.cache import Cache
from lengthgen.config import EvalConfig, RunSpec
from lengthgen.context import Context
from lengthgen.engine.evaluate import LengthEval
from lengthgen.experiments.carrier import PROFILE_SPAN
from lengthgen.experiments.common import Run, column_means, paper_spec, train_and_evaluate
from lengthgen.experiments.results import ABSENT_IF_NONE, Column, config, length_columns, table_lines, to_json
from lengthgen.probes.dilution import DilutionFit, dilution_fit
from lengthgen.probes.margin import Margins, head_margins, length_margins


def inverse_steps(target_weights: Sequence[float]) -> list[float]:
    """Differences of 1/a* between consecutive lengths (>= 0 where 1/a* grows with L)."""
    inverse = [1.0 / a for a in target_weights]
    return [b - a for a, b in zip(inverse, inverse[1:])]


def other_weight(row: LengthEval, offset: int, head: int = 0) -> float:
    """The mean attention weight of one non-target position: (sum of the profile off the target) / (L - 1)."""
    profile = row.profile[head]  # (L,) mean attention per absolute position
    target = row.length - 1 - offset
    return (sum(profile) - profile[target]) / (row.length - 1)


@dataclass(frozen=True)
class DilutionRow:
    """One (K, seed) model: a*(L) and its fit, and (RoPE heads only) the margins and bounds beside a*(L)."""

    offset: int  # target offset K
    seed: int  # training seed
    lengths: tuple[int, ...]  # the evaluation lengths L
    target_weight: tuple[float, ...]  # a*(L): mean attention weight on the target, per length
    fit: DilutionFit  # least-squares fit of 1/a* on L - 1
    other_weight: tuple[float, ...]  # mean weight of one non-target position, per length
    margin: Margins | None = field(default=None, metadata=ABSENT_IF_NONE)  # the one margin over offsets -(span-1) .. 0
    margins: tuple[Margins, ...] | None = field(default=None, metadata=ABSENT_IF_NONE)  # mu_L, mu_typ_L per length
    bound: tuple[float, ...] | None = field(default=None, metadata=ABSENT_IF_NONE)  # 1/(1 + (L-1) e^{-mu_L})
    typical_bound: tuple[float, ...] | None = field(  # 1/(1 + (L-1) e^{-mu_typ_L}): an estimate, not guaranteed
        default=None, metadata=ABSENT_IF_NONE
    )
    span_bound: tuple[float, ...] | None = field(  # from the one mu over offsets -(span-1) .. 0
        default=None, metadata=ABSENT_IF_NONE
    )
    gap: tuple[float, ...] | None = field(  # a*(L) - bound(L): >= 0 where the bound holds
        default=None, metadata=ABSENT_IF_NONE
    )
    bound_ratio: tuple[float, ...] | None = field(  # bound_L / a*(L): <= 1 where it holds
        default=None, metadata=ABSENT_IF_NONE
    )
    typical_bound_ratio: tuple[float, ...] | None = field(  # typical bound_L / a*(L)
        default=None, metadata=ABSENT_IF_NONE
    )


def dilution_row(run: Run, span: int = PROFILE_SPAN) -> DilutionRow:
    lengths = tuple(row.length for row in run.evals)
    weights = tuple(row.target_weight[0] for row in run.evals)
    offset = run.model.spec.task.offset
    if max(lengths) > span:
        raise ValueError(f"evaluation length {max(lengths)} exceeds the margin's span {span}")
    row = DilutionRow(
        offset=offset,
        seed=run.seed,
        lengths=lengths,
        target_weight=weights,
        fit=dilution_fit(lengths, weights),
        other_weight=tuple(other_weight(r, offset) for r in run.evals),
    )
    if run.model.spec.model.encoding != "rope":  # the margins are of a RoPE logit table
        return row
    state, cfg = run.model.state, run.model.spec.model
    margins = head_margins(state, cfg, offset, span)
    per_length = length_margins(state, cfg, offset, lengths)
    bounds = tuple(m.bound(L) for m, L in zip(per_length, lengths))
    typical = tuple(m.typical_bound(L) for m, L in zip(per_length, lengths))
    return dataclasses.replace(
        row,
        margin=margins,
        margins=tuple(per_length),
        bound=bounds,
        typical_bound=typical,
        span_bound=tuple(margins.bounds(lengths)),
        gap=tuple(a - b for a, b in zip(weights, bounds)),
        bound_ratio=tuple(b / a for a, b in zip(weights, bounds)),
        typical_bound_ratio=tuple(b / a for a, b in zip(weights, typical)),
    )


@dataclass(frozen=True)
class MeanRow:
    """The seed-mean line of one K in the table."""

    offset: int  # target offset K
    target_weight: list[float]  # a*(L) averaged over seeds, per length
    fit: DilutionFit  # the fit of 1/a* on L - 1 for the seed-mean a*(L)
    seed: str = "mean"  # printed in the seed column


def columns(lengths: Sequence[int]) -> tuple[Column, ...]:
    """K, seed, a*(L) per length, the fit's c and R^2, the margins mu and mu_typ ("-" where none)."""
    return (
        Column("K", lambda r: r.offset, ">2"),
        Column("seed", lambda r: r.seed, ">4"),
        *length_columns(lengths, lambda r, i, L: r.target_weight[i]),
        Column("c", lambda r: r.fit.slope, "<7.4f", gap="  "),
        Column("R^2", lambda r: r.fit.r2, "<6.3f"),
        Column("mu", lambda r: "-     " if r.margin is None else f"{r.margin.worst:<6.2f}", header_spec="<6"),
        Column("mu_typ", lambda r: "-" if r.margin is None else f"{r.margin.typical:<6.2f}", header_spec="<6"),
    )


@dataclass
class DilutionResult:
    offsets: tuple[int, ...]  # target offsets K, in run order
    seeds: tuple[int, ...]  # training seeds, in run order
    evaluation: EvalConfig  # evaluation lengths and sequences per length
    spec: RunSpec  # the spec of the first offset (the others differ only in K)
    rows: list[DilutionRow]  # one per (K, seed)

    @property
    def lengths(self) -> tuple[int, ...]:
        return self.evaluation.lengths

    def of(self, offset: int) -> list[DilutionRow]:
        return [r for r in self.rows if r.offset == offset]

    def mean_target_weight(self, offset: int) -> list[float]:
        """a*(L) averaged over seeds, per evaluation length."""
        return column_means([r.target_weight for r in self.of(offset)])

    def mean_fit(self, offset: int) -> DilutionFit:
        """The fit of 1/a* on L - 1 for the seed-mean a*(L)."""
        return dilution_fit(self.lengths, self.mean_target_weight(offset))

    def at_other_positions(self) -> "DilutionResult":
        """C7's counterfactual: every a*(L) replaced by the same head's mean weight of one non-target
        position (``other_weight``); the margins and bounds, of the real target offset, are kept. The fits
        and gaps of the rows still describe the target (nothing reads them from this result)."""
        return dataclasses.replace(self, rows=[dataclasses.replace(r, target_weight=r.other_weight) for r in self.rows])

    def to_json(self) -> dict[str, Any]:
        return {
            "config": config(offsets=self.offsets, seeds=self.seeds, spec=self.spec, eval=self.evaluation),
            "per_offset": [
                {"offset": K, "mean_target_weight": self.mean_target_weight(K), "fit": to_json(self.mean_fit(K))}
                for K in self.offsets
            ],
            "rows": to_json(self.rows),
        }

    def table(self) -> str:
        table = columns(self.lengths)
        lines = ["dilution: a*(L) = mean attention on the target; fit 1/a* = intercept + c (L-1)"]
        lines += table_lines(table, [])
        for K in self.offsets:
            lines += table_lines(table, self.of(K), header=False)
            mean_row = MeanRow(K, self.mean_target_weight(K), self.mean_fit(K))
            lines += table_lines(table[:-2], [mean_row], header=False)
        margined = [r for r in self.rows if r.bound is not None]
        if margined:
            lines.append("margin bound 1/(1+(L-1)e^-mu_L) (worst-case mu_L over the offsets at L) beside a*(L):")
            for r in margined:
                cells = " ".join(f"{b:.3f}<={a:.3f}" for a, b in zip(r.target_weight, r.bound))
                lines.append(f"{r.offset:>2} {r.seed:>4}  {cells}")
            lines.append("typical-margin bound 1/(1+(L-1)e^-mu_typ_L) / a*(L) (not guaranteed; <= 1 where it holds):")
            for r in margined:
                ratios = " ".join(f"{q:<7.3f}" for q in r.typical_bound_ratio)
                lines.append(f"{r.offset:>2} {r.seed:>4}  {ratios}")
        return "\n".join(lines)


def run_dilution(
    ctx: Context, cache: Cache | None, offsets: Sequence[int] = (2, 3), encoding: str = "rope"
) -> DilutionResult:
    """The grid's heads of ``encoding`` at ``ctx`` (RoPE: with margins; APE: a*(L) and fits only)."""
    evaluation = ctx.evaluation
    if max(evaluation.lengths) > PROFILE_SPAN:  # checked before any training
        raise ValueError(f"evaluation length {max(evaluation.lengths)} exceeds the margin's span {PROFILE_SPAN}")
    if list(evaluation.lengths) != sorted(evaluation.lengths):
        raise ValueError(f"evaluation lengths {evaluation.lengths} must be increasing")
    if len(evaluation.lengths) < 3:
        raise ValueError(f"the dilution fit needs >= 3 evaluation lengths, got {len(evaluation.lengths)}")
    specs = [paper_spec(ctx, task={"offset": offset}, model={"encoding": encoding}) for offset in offsets]
    runs = train_and_evaluate(ctx, cache, specs)
    rows = [dilution_row(run) for spec in specs for run in runs[spec]]
    return DilutionResult(tuple(offsets), ctx.seeds, evaluation, specs[0], rows)
