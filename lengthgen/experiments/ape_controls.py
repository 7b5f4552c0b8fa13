"""The APE controls (C9, C10; Fig. 4): does anything rescue the absolute-position head beyond Lmax?

- Weight decay (C9): the APE head of the C1 grid trained with Adam's *coupled* L2 weight decay lambda
  (``torch.optim.Adam(weight_decay=lambda)``: lambda * w is added to the gradient before Adam's moment
  estimates, not AdamW's decoupled shrinkage), lambda in {0, 1e-4, 1e-2}. lambda = 0 is the C1 grid's
  model itself (same spec, same cache key). Besides accuracy, the mean norm of the untrained table rows
  (positions >= Lmax) shows what the decay did to them.
- Inference-time fixes (C10): the trained C1 APE heads (no retraining), evaluated at every length
  L > Lmax with the position table rebuilt from its trained rows by each fix of
  ``probes/ape_fixes.py`` (interpolate, clamp, rescale). The modified weights go through the ordinary
  evaluation (``evaluate_models``, one length at a time, the same evaluation sequences as every other
  model); they are cached as variants of the unmodified model's evaluation.

Seeds: the C1 grid's models (lambda = 0, and the fixes) take the grid's seeds; the models trained with
decay may take fewer (``run_weight_decay(ctx, cache, ..., grid_seeds=...)``, the context's seeds being those of
lambda > 0: the claim uses 8 and 5).

Negative controls (the same result types, from the C1 grid's RoPE heads, which stay accurate beyond
Lmax): ``run_weight_decay(ctx, cache, ..., encoding="rope")`` at lambda = 0, and ``rope_in_place_of_fixes``, whose
every "fix" row is the unmodified RoPE head (it has no position table to fix).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lengthgen.store.cache import Cache
from lengthgen.config import EvalConfig, RunSpec
from lengthgen.context import Context
from lengthgen.experiments.common import Run, mean, paper_spec, train_grid
from lengthgen.experiments.results import Column, config, length_columns, text_table, to_json
from lengthgen.probes.ape_fixes import FIXES, TABLE, fixed_state
from lengthgen.store.one_layer import evaluated, trained
from lengthgen.engine.train import Member, TrainedModel

WEIGHT_DECAYS = (0.0, 1e-4, 1e-2)  # the paper's lambda values (Fig. 4)
NO_FIX = "none"  # the unmodified head, beside the fixes


def ape_spec(ctx: Context, offset: int, weight_decay: float = 0.0, encoding: str = "ape") -> RunSpec:
    """The C1 grid's APE head at ``ctx`` (weight decay 0 gives exactly the grid's spec; ``encoding="rope"`` at
    weight decay 0 gives the grid's RoPE head, the controls' counterfactual)."""
    return paper_spec(ctx, model={"encoding": encoding}, task={"offset": offset}, train={"weight_decay": weight_decay})


def row_norms(run: Run) -> dict[str, float]:
    """Mean L2 norm of the trained (< Lmax) and untrained (>= Lmax) rows of the position table ({} for a
    head without one, e.g. RoPE)."""
    if TABLE not in run.model.state:
        return {}
    table = run.model.state[TABLE]  # (positions, d)
    max_len = run.model.spec.task.max_len
    norms = table.norm(dim=-1)  # (positions,)
    return {"trained": float(norms[:max_len].mean()), "untrained": float(norms[max_len:].mean())}


@dataclass(frozen=True)
class WeightDecayCell:
    """One (lambda, K, seed) model of the weight-decay control, as its JSON reports it."""

    weight_decay: float  # the coupled Adam weight decay lambda
    offset: int  # target offset K
    seed: int  # training seed
    table_norms: dict[str, float]  # mean row norm of the "trained" / "untrained" table rows ({} without a table)
    eval: tuple[dict[str, Any], ...]  # per evaluation length: ``LengthEval.summary()``


def weight_decay_columns(result: "WeightDecayResult") -> tuple[Column, ...]:
    """Per (lambda, K): the seed-mean accuracy per length and the mean table-row norms ("-" without a table)."""
    return (
        Column("lambda", lambda key: key[0], ">7g"),
        Column("K", lambda key: key[1], ">2"),
        *length_columns(result.lengths, lambda key, i, L: mean(result.accuracy(*key, L))),
        Column("|p| trained/untrained", result.norms_cell, gap="  "),
    )


@dataclass
class WeightDecayResult:
    decays: tuple[float, ...]  # the coupled Adam weight decays lambda, in run order
    offsets: tuple[int, ...]  # target offsets K, in run order
    seeds: tuple[int, ...]  # every seed used (the union over lambdas)
    steps: int  # training steps of each model
    evaluation: EvalConfig  # evaluation lengths and sequences per length
    max_len: int  # Lmax: table rows >= max_len are never trained
    runs: dict[tuple[float, int], list[Run]]  # (lambda, K) -> runs by seed
    seeds_by_decay: dict[float, tuple[int, ...]]  # lambda -> its seeds (lambda = 0: the C1 grid's)
    spec: RunSpec  # the lambda = 0 spec of the first K (the JSON's config)
    encoding: str = "ape"  # "ape" (the claim), or "rope" (the negative control's counterfactual)

    @property
    def lengths(self) -> tuple[int, ...]:
        return self.evaluation.lengths

    @property
    def has_table(self) -> bool:
        """Whether the heads have a position table (APE), so that row norms exist."""
        return all(row_norms(run) for runs in self.runs.values() for run in runs)

    def accuracy(self, decay: float, offset: int, length: int) -> list[float]:
        return [run.at(length).accuracy for run in self.runs[decay, offset]]

    def norms(self, decay: float, offset: int, part: str) -> list[float]:
        """Per seed: mean norm of the ``part`` ("trained" / "untrained") rows of the position table."""
        return [row_norms(run)[part] for run in self.runs[decay, offset]]

    def norms_cell(self, key: tuple[float, int]) -> str:
        """The table's "trained/untrained" mean row norms of (lambda, K), "-" for heads without a table."""
        if not self.has_table:
            return "-"
        return f"{mean(self.norms(*key, 'trained')):.2f}/{mean(self.norms(*key, 'untrained')):.2f}"

    def cells(self) -> list[WeightDecayCell]:
        return [
            WeightDecayCell(decay, offset, run.seed, row_norms(run), tuple(row.summary() for row in run.evals))
            for (decay, offset), runs in self.runs.items()
            for run in runs
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "config": config(
                weight_decays=self.decays,
                weight_decay_kind="coupled L2 (torch.optim.Adam weight_decay)",
                offsets=self.offsets,
                seeds=self.seeds,
                seeds_by_weight_decay={f"{d:g}": s for d, s in self.seeds_by_decay.items()},
                spec=self.spec,
                eval=self.evaluation,
            ),
            "cells": to_json(self.cells()),
        }

    def table(self) -> str:
        counts = ", ".join(f"{len(s)} at lambda={d:g}" for d, s in self.seeds_by_decay.items())
        title = (
            f"{self.encoding.upper()} accuracy under coupled Adam weight decay, mean over seeds ({counts}) "
            f"(trained lengths up to {self.max_len})"
        )
        keys = [(decay, offset) for decay in self.decays for offset in self.offsets]
        return text_table(title, weight_decay_columns(self), keys)


def run_weight_decay(
    ctx: Context,
    cache: Cache | None,
    offsets: Sequence[int] = (1, 2, 3),
    decays: Sequence[float] = WEIGHT_DECAYS,
    grid_seeds: Sequence[int] | None = None,
    encoding: str = "ape",
) -> WeightDecayResult:
    """C9: APE trained with each weight decay, evaluated at every length of ``ctx``.

    ``ctx.seeds``: the seeds of every lambda > 0; ``grid_seeds``: those of lambda = 0, the C1 grid's models
    (default: ``ctx.seeds``). ``encoding="rope"``: the grid's RoPE head in place of APE (the negative control;
    only lambda = 0 is the grid's model, other lambdas would train new RoPE models)."""
    for decay in decays:
        if decay < 0:
            raise ValueError(f"weight decay {decay:g} must be non-negative")
    seeds_by_decay = {float(d): tuple(grid_seeds if d == 0 and grid_seeds is not None else ctx.seeds) for d in decays}
    specs = {
        (float(decay), offset): ape_spec(ctx, offset, float(decay), encoding) for decay in decays for offset in offsets
    }
    runs: dict[tuple[float, int], list[Run]] = {}
    for seed_group in dict.fromkeys(seeds_by_decay.values()):  # one train+evaluate call per seed list
        group = [key for key in specs if seeds_by_decay[key[0]] == seed_group]
        runs.update(train_grid(ctx.replace(seeds=seed_group), cache, {key: specs[key] for key in group}))
    max_len = next(iter(specs.values())).task.max_len
    every_seed = tuple(sorted({s for group in seeds_by_decay.values() for s in group}))
    return WeightDecayResult(
        tuple(seeds_by_decay),
        tuple(offsets),
        every_seed,
        ctx.steps,
        ctx.evaluation,
        max_len,
        {key: runs[key] for key in specs},
        seeds_by_decay,
        ape_spec(ctx, offsets[0], encoding=encoding),
        encoding,
    )


@dataclass(frozen=True)
class FixRow:
    """One (fix, K, seed, L) evaluation of an APE head beyond Lmax, its table rebuilt by ``fix``."""

    fix: str  # the inference-time fix (NO_FIX: the unmodified head)
    offset: int  # target offset K
    seed: int  # training seed
    length: int  # evaluation length L > Lmax
    accuracy: float  # accuracy at L
    selected_offset: int  # argmax of the mean attention relative to the query
    peak_position: int  # the absolute position where the mean attention peaks
    peak_height: float  # the mean attention weight at the peak


def fixes_columns(result: "FixesResult") -> tuple[Column, ...]:
    """Per (fix, K): the seed-mean accuracy per length beyond Lmax."""
    return (
        Column("fix", lambda key: key[0], "<12"),
        Column("K", lambda key: key[1], ">2"),
        *length_columns(result.lengths, lambda key, i, L: mean(result.accuracy(*key, L))),
    )


@dataclass
class FixesResult:
    fixes: tuple[str, ...]  # NO_FIX first, then the fixes
    offsets: tuple[int, ...]  # target offsets K, in run order
    seeds: tuple[int, ...]  # training seeds, in run order
    lengths: tuple[int, ...]  # the evaluation lengths beyond Lmax
    sequences: int  # evaluation sequences per length
    max_len: int  # Lmax: the longest training length
    rows: list[FixRow]  # one per (fix, K, seed, L)
    encoding: str = "ape"  # "ape" (the claim), or "rope" (the negative control: unmodified RoPE heads)

    def accuracy(self, fix: str, offset: int, length: int) -> list[float]:
        """Per seed (in seed order) at one length."""
        return [r.accuracy for r in self._cell(fix, offset, length)]

    def selected_offsets(self, fix: str, offset: int, length: int) -> list[int]:
        return [r.selected_offset for r in self._cell(fix, offset, length)]

    def _cell(self, fix: str, offset: int, length: int) -> list[FixRow]:
        cell = [r for r in self.rows if (r.fix, r.offset, r.length) == (fix, offset, length)]
        return sorted(cell, key=lambda r: r.seed)

    def to_json(self) -> dict[str, Any]:
        return {
            "config": config(
                fixes=self.fixes,
                offsets=self.offsets,
                seeds=self.seeds,
                lengths=self.lengths,
                sequences=self.sequences,
                trained_rows=self.max_len,
            ),
            "rows": to_json(self.rows),
        }

    def table(self) -> str:
        title = (
            f"{self.encoding.upper()} accuracy beyond the trained table (rows 0..{self.max_len - 1}), "
            f"mean over {len(self.seeds)} seeds"
        )
        keys = [(fix, offset) for fix in self.fixes for offset in self.offsets]
        return text_table(title, fixes_columns(self), keys)


def _fix_row(fix: str, model, row) -> FixRow:
    """One (fix, K, seed, L) row of a :class:`FixesResult` from one evaluation row."""
    return FixRow(
        fix=fix,
        offset=model.spec.task.offset,
        seed=model.seed,
        length=row.length,
        accuracy=row.accuracy,
        selected_offset=row.selected_offset(),
        peak_position=row.peak_position(),
        peak_height=row.peak_height(),
    )


def _check_fixes(fixes: Sequence[str]) -> None:
    unknown = [f for f in fixes if f not in FIXES]
    if unknown:
        raise ValueError(f"unknown APE fix {unknown[0]!r} (known: {', '.join(FIXES)})")


def _beyond(evaluation: EvalConfig, max_len: int) -> tuple[int, ...]:
    beyond = tuple(L for L in evaluation.lengths if L > max_len)
    if not beyond:
        raise ValueError(f"no evaluation length beyond the training range (Lmax = {max_len}): {evaluation.lengths}")
    return beyond


@dataclass(frozen=True)
class GridHeads:
    """The C1 grid's trained heads that C10 (APE) and its negative control (RoPE) evaluate beyond Lmax."""

    models: tuple[TrainedModel, ...]  # one per (K, seed), K-major, in the order of ``offsets`` and ``seeds``
    evaluation: EvalConfig  # the evaluation asked for (the context's)
    cache: Cache  # the cache the models came from, and their evaluations go through
    max_len: int  # Lmax: the longest training length
    beyond: tuple[int, ...]  # the evaluation lengths > Lmax

    def unmodified_rows(self, names: Sequence[str]) -> list[FixRow]:
        """Each head's own evaluation (cached) at every length beyond Lmax, one row under each of ``names``."""
        return [
            _fix_row(name, model, row)
            for model, evals in zip(self.models, evaluated(self.models, self.evaluation, self.cache))
            for row in evals
            if row.length in self.beyond
            for name in names
        ]


def grid_heads(
    ctx: Context, cache: Cache | None, encoding: str, offsets: Sequence[int], fixes: Sequence[str]
) -> GridHeads:
    """The preamble of ``run_ape_fixes`` and ``rope_in_place_of_fixes``: the fix names and every evaluation
    length are checked before any training, then the grid's ``encoding`` heads come from the cache."""
    cache = cache if cache is not None else Cache()
    _check_fixes(fixes)
    members = [Member(ape_spec(ctx, offset, encoding=encoding), seed) for offset in offsets for seed in ctx.seeds]
    for member in members:
        member.spec.check_eval(ctx.evaluation)
    max_len = members[0].spec.task.max_len
    beyond = _beyond(ctx.evaluation, max_len)
    return GridHeads(tuple(trained(members, cache, ctx.progress)), ctx.evaluation, cache, max_len, beyond)


def rope_in_place_of_fixes(
    ctx: Context, cache: Cache | None, offsets: Sequence[int] = (1, 2, 3), fixes: Sequence[str] = FIXES
) -> FixesResult:
    """C10's negative control: a :class:`FixesResult` whose every row (under each fix's name, and
    ``NO_FIX``) is the C1 grid's unmodified RoPE head at that length. A RoPE head has no position table,
    so no fix applies to it; it needs none, and stays accurate beyond Lmax (cached models and evaluations)."""
    heads = grid_heads(ctx, cache, "rope", offsets, fixes)
    rows = heads.unmodified_rows((NO_FIX, *fixes))
    return FixesResult(
        (NO_FIX, *fixes),
        tuple(offsets),
        ctx.seeds,
        heads.beyond,
        heads.evaluation.sequences,
        heads.max_len,
        rows,
        "rope",
    )


def run_ape_fixes(
    ctx: Context, cache: Cache | None, offsets: Sequence[int] = (1, 2, 3), fixes: Sequence[str] = FIXES
) -> FixesResult:
    """C10: the C1 grid's APE heads at every evaluation length > Lmax of ``ctx``, unmodified and under each fix."""
    heads = grid_heads(ctx, cache, "ape", offsets, fixes)
    models, max_len = heads.models, heads.max_len
    rows = heads.unmodified_rows((NO_FIX,))
    for fix in fixes:
        for length in heads.beyond:

            def apply(model, fix=fix, length=length):
                return dataclasses.replace(model, state=fixed_state(model.state, fix, length, max_len))

            at_length = dataclasses.replace(heads.evaluation, lengths=(length,))
            variant = {"ape_fix": fix, "length": length, "max_len": max_len}
            fixed_evals = evaluated(models, at_length, heads.cache, variant, apply, ("probes/ape_fixes.py",))
            for model, (row,) in zip(models, fixed_evals):
                rows.append(_fix_row(fix, model, row))
    return FixesResult(
        (NO_FIX, *fixes), tuple(offsets), ctx.seeds, heads.beyond, heads.evaluation.sequences, max_len, rows
    )
