"""The predictions beyond the paper (P1-P6, catalogue "Predictions beyond the paper"): new evaluations of
the C1 grid's trained heads (no retraining), and one new family, the NoPE head (P5).

- ``run_far`` (P1, P3): the grid's heads of one encoding at lengths up to 128. APE heads get the longer
  table of ``experiments/ape_longer.py`` (trained rows unchanged; rows 48..127 are the seed's own initial
  rows, the init generator continued), cached as an evaluation variant.
- ``run_out_of_sample`` (P2): the dilution law 1/a* = a + c (L - 1) fitted on the paper's lengths (the
  grid's cached evaluations, as C6) against the measured a* at the far lengths.
- ``run_interpolation`` (P4): the RoPE heads with position interpolation at inference
  (``engine/evaluate_variants.py``: positions x Lmax/L); ``kind="plain"`` gives the same cells uninterpolated.
- ``run_nope`` (P5): NoPE heads trained as C1 (``run_phenomenon`` with encoding "nope").
- ``run_scaling`` (P6): the RoPE heads with and without log-length logit scaling (logits x log L / log Lmax
  at L > Lmax); ``kind="inverse-log-scale"`` divides instead (the control).

Every evaluation goes through the cache (plain evaluations under the plain key, variants under their own),
on the same shared evaluation sequences as every other model, with the context's sequences per length (the far
lengths are each experiment's own; the context's lengths are P2's fit and P5's evaluation).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Callable

from lengthgen.store.cache import Cache
from lengthgen.config import EvalConfig
from lengthgen.context import Context
from lengthgen.engine.evaluate import LengthEval
from lengthgen.engine.evaluate_variants import KINDS, InferenceVariant
from lengthgen.experiments.common import column_means, mean, paper_spec
from lengthgen.experiments.phenomenon import PhenomenonResult, run_phenomenon
from lengthgen.experiments.ape_longer import LONGER_FILES, extended_model
from lengthgen.experiments.results import Column, length_columns, text_table, to_json
from lengthgen.probes.dilution import DilutionFit, dilution_fit
from lengthgen.store.one_layer import evaluated, evaluated_variant, trained
from lengthgen.engine.train import Member, TrainedModel

FAR_LENGTHS = (64, 96, 128)  # P1-P3: far beyond the paper's evaluation range
INTERPOLATION_LENGTHS = (32, 48)  # P4
SCALING_LENGTHS = (24, 32, 48, 64, 96, 128)  # P6
ROPE_LENGTHS = tuple(sorted(set(FAR_LENGTHS + INTERPOLATION_LENGTHS + SCALING_LENGTHS)))  # one cached evaluation
EXTENDED_TABLE = 128  # APE rows for evaluation up to L = 128


def evaluated_lengths(encoding: str, lengths: Sequence[int]) -> tuple[int, ...]:
    """The lengths the grid's heads of ``encoding`` are evaluated at to answer ``lengths``: the RoPE heads at
    ``ROPE_LENGTHS`` (one shared cached evaluation, which must hold every length asked for), the APE heads with the
    longer table (up to ``EXTENDED_TABLE``) and the others at ``lengths`` themselves. A length that would not be
    evaluated is a ValueError naming it and the lengths allowed, before any training."""
    lengths = tuple(lengths)
    if not lengths:
        raise ValueError("no evaluation length asked for")
    if encoding == "rope":
        stray = [L for L in lengths if L not in ROPE_LENGTHS]
        if stray:
            raise ValueError(
                f"length {stray[0]!r} is not one the RoPE heads are evaluated at "
                f"(allowed: {', '.join(map(str, ROPE_LENGTHS))})"
            )
        return ROPE_LENGTHS
    if encoding == "ape":
        stray = [L for L in lengths if not isinstance(L, int) or L > EXTENDED_TABLE]
        if stray:
            raise ValueError(
                f"length {stray[0]!r} is beyond the APE heads' longer table (allowed: <= {EXTENDED_TABLE})"
            )
    return lengths


def grid_models(ctx: Context, cache: Cache, encoding: str, offsets: Sequence[int]) -> list[TrainedModel]:
    """The C1 grid's heads of ``encoding`` at ``ctx`` (the same specs, so the same cache entries), by K then seed."""
    members = [
        Member(paper_spec(ctx, model={"encoding": encoding}, task={"offset": K}), s) for K in offsets for s in ctx.seeds
    ]
    return trained(members, cache, ctx.progress)


@dataclass(frozen=True)
class EvalCell:
    """One (model, length) evaluation."""

    encoding: str  # positional encoding
    offset: int  # target offset K
    seed: int  # training seed
    length: int  # evaluation length L
    accuracy: float  # accuracy at L
    selected_offset: int  # argmax of the mean attention relative to the query
    peak_position: int  # the absolute position where the mean attention peaks
    peak_height: float  # the mean attention weight at the peak
    target_weight: float  # a*: the mean attention weight on the target


def cell(model: TrainedModel, row: LengthEval) -> EvalCell:
    """One (model, length) cell."""
    return EvalCell(
        encoding=model.spec.model.encoding,
        offset=model.spec.task.offset,
        seed=model.seed,
        length=row.length,
        accuracy=row.accuracy,
        selected_offset=row.selected_offset(),
        peak_position=row.peak_position(),
        peak_height=row.peak_height(),
        target_weight=row.target_weight[0],
    )


@dataclass
class Cells:
    """Cells with per-seed accessors (values in seed order)."""

    rows: list[EvalCell] = field(default_factory=list)  # one per (model, length), in run order

    def values(self, key: str, offset: int, length: int) -> list[Any]:
        """Per seed: the ``key`` field of the cells at (K, L)."""
        chosen = sorted((r for r in self.rows if r.offset == offset and r.length == length), key=lambda r: r.seed)
        if not chosen:
            raise KeyError(f"no cell at K={offset}, L={length}")
        return [getattr(r, key) for r in chosen]


def plain_cells(models: Sequence[TrainedModel], lengths: Sequence[int], sequences: int, cache: Cache) -> Cells:
    """Cells of the unmodified heads (APE heads with the longer table, as an evaluation variant)."""
    evaluation = EvalConfig(lengths=tuple(lengths), sequences=sequences)
    ape = [m for m in models if m.spec.model.encoding == "ape"]
    other = [m for m in models if m.spec.model.encoding != "ape"]
    rows = []
    if other:
        rows += [cell(m, r) for m, evals in zip(other, evaluated(other, evaluation, cache)) for r in evals]
    if ape:
        variant = {"ape_table": "extended with the seed's initial rows", "positions": EXTENDED_TABLE}
        evals = evaluated(ape, evaluation, cache, variant, lambda m: extended_model(m, EXTENDED_TABLE), LONGER_FILES)
        rows += [cell(m, r) for m, e in zip(ape, evals) for r in e]
    return Cells(rows)


def variant_cells(
    models: Sequence[TrainedModel], lengths: Sequence[int], sequences: int, cache: Cache, variant: InferenceVariant
) -> Cells:
    if variant.kind == "plain":
        return plain_cells(models, lengths, sequences, cache)
    evaluation = EvalConfig(lengths=tuple(lengths), sequences=sequences)
    evals = evaluated_variant(models, evaluation, cache, variant)
    return Cells([cell(m, r) for m, e in zip(models, evals) for r in e])


def _table(title: str, offsets: Sequence[int], lengths: Sequence[int], column: Callable[[int, int], str]) -> str:
    """Per K, the text ``column(K, L)`` at every length."""
    columns = (
        Column("K", lambda K: K, ">2"),
        *length_columns(lengths, lambda K, i, L: column(K, L), "<8"),
    )
    return text_table(title, columns, offsets)


@dataclass
class FarResult:
    """P1 / P3: one encoding's grid heads at the far lengths."""

    encoding: str  # positional encoding of the heads
    offsets: tuple[int, ...]  # target offsets K, in run order
    seeds: tuple[int, ...]  # training seeds, in run order
    lengths: tuple[int, ...]  # evaluation lengths
    sequences: int  # evaluation sequences per length
    max_len: int  # Lmax
    cells: Cells  # one cell per (model, length)

    def accuracy(self, offset: int, length: int) -> list[float]:
        return self.cells.values("accuracy", offset, length)

    def selected_offsets(self, offset: int, length: int) -> list[int]:
        return self.cells.values("selected_offset", offset, length)

    def peak_positions(self, offset: int, length: int) -> list[int]:
        return self.cells.values("peak_position", offset, length)

    def replaced(self, other: "FarResult") -> "FarResult":
        """This result with ``other``'s cells (a control's counterfactual: other heads, same cells)."""
        return dataclasses.replace(self, cells=other.cells)

    def to_json(self) -> dict[str, Any]:
        return to_json(
            {
                "encoding": self.encoding,
                "offsets": self.offsets,
                "seeds": self.seeds,
                "lengths": self.lengths,
                "sequences": self.sequences,
                "cells": self.cells.rows,
            }
        )

    def table(self) -> str:
        def column(K, L):
            selected = self.selected_offsets(K, L)
            return f"{mean(self.accuracy(K, L)):.3f}/{sum(s == -K for s in selected)}"

        return _table(
            f"{self.encoding}: accuracy (mean over {len(self.seeds)} seeds) / seeds selecting -K",
            self.offsets,
            self.lengths,
            column,
        )


def run_far(
    ctx: Context,
    cache: Cache | None,
    encoding: str,
    offsets: Sequence[int] = (1, 2, 3),
    lengths: Sequence[int] = FAR_LENGTHS,
) -> FarResult:
    """P1 (RoPE) / P3 (APE): the grid's heads evaluated at ``lengths`` with ``ctx``'s sequences per length."""
    evaluation_lengths = evaluated_lengths(encoding, lengths)  # RoPE: one shared evaluation
    cache = cache if cache is not None else Cache()
    sequences = ctx.evaluation.sequences
    models = grid_models(ctx, cache, encoding, offsets)
    cells = plain_cells(models, evaluation_lengths, sequences, cache)
    return FarResult(encoding, tuple(offsets), ctx.seeds, tuple(lengths), sequences, models[0].spec.task.max_len, cells)


def line_fit(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """(intercept, slope) of the least-squares line through (x, y) (as ``scipy.stats.linregress``)."""
    mx, my = mean(x), mean(y)
    sxx = sum((a - mx) ** 2 for a in x)
    slope = sum((a - mx) * (b - my) for a, b in zip(x, y)) / sxx
    return my - slope * mx, slope


@dataclass
class OutOfSampleResult:
    """P2: a* on the fit lengths (the paper's) and at the far lengths, per K and seed."""

    encoding: str  # positional encoding of the heads
    offsets: tuple[int, ...]  # target offsets K, in run order
    seeds: tuple[int, ...]  # training seeds, in run order
    fit_lengths: tuple[int, ...]  # the lengths the dilution law is fitted on
    far_lengths: tuple[int, ...]  # the far lengths it predicts
    fit_cells: Cells  # cells at the fit lengths
    far_cells: Cells  # cells at the far lengths

    def items(self, offset: int) -> list[tuple[list[float], list[float]]]:
        """Per seed: (a* at the fit lengths, a* at the far lengths)."""
        fit = list(zip(*[self.fit_cells.values("target_weight", offset, L) for L in self.fit_lengths]))
        far = list(zip(*[self.far_cells.values("target_weight", offset, L) for L in self.far_lengths]))
        return [(list(a), list(b)) for a, b in zip(fit, far)]

    def errors(self, items: Sequence[tuple[list[float], list[float]]]) -> list[float]:
        """measured seed-mean a* - predicted 1/(a + c (L-1)), per far length, from the seed-mean fit of ``items``.

        The fit is ``dilution_fit``'s least squares in closed form (the seed bootstrap calls this thousands of
        times, too many for scipy's linregress per call)."""
        inverse = [1.0 / a for a in column_means([i[0] for i in items])]
        intercept, slope = line_fit([L - 1 for L in self.fit_lengths], inverse)
        measured = column_means([i[1] for i in items])
        return [m - 1.0 / (intercept + slope * (L - 1)) for m, L in zip(measured, self.far_lengths)]

    def fit(self, offset: int) -> DilutionFit:
        return dilution_fit(self.fit_lengths, column_means([i[0] for i in self.items(offset)]))

    def predicted(self, offset: int, lengths: Sequence[int] | None = None) -> list[float]:
        fit = self.fit(offset)
        return [1.0 / (fit.intercept + fit.slope * (L - 1)) for L in (lengths or self.far_lengths)]

    def measured(self, offset: int) -> list[float]:
        return column_means([i[1] for i in self.items(offset)])

    def seed_errors(self, offset: int, length: int) -> list[float]:
        """Per seed: its own a* at ``length`` minus its own fit's prediction."""
        j = self.far_lengths.index(length)
        out = []
        for fit_weights, far_weights in self.items(offset):
            fit = dilution_fit(self.fit_lengths, fit_weights)
            out.append(far_weights[j] - 1.0 / (fit.intercept + fit.slope * (length - 1)))
        return out

    def to_json(self) -> dict[str, Any]:
        return to_json(
            {
                "encoding": self.encoding,
                "offsets": self.offsets,
                "seeds": self.seeds,
                "fit_lengths": self.fit_lengths,
                "far_lengths": self.far_lengths,
                "per_offset": [
                    {"offset": K, "fit": self.fit(K), "predicted": self.predicted(K), "measured": self.measured(K)}
                    for K in self.offsets
                ],
                "fit_cells": self.fit_cells.rows,
                "far_cells": self.far_cells.rows,
            }
        )

    def table(self) -> str:
        def measured_predicted(K: int, j: int) -> str:
            return f"{self.measured(K)[j]:.3f}/{self.predicted(K)[j]:.3f}     "

        columns = (
            Column("K", lambda K: K, ">2"),
            *(
                Column(
                    f"L={L}", lambda K, j=j: measured_predicted(K, j), header_spec="<14", gap="  " if j == 0 else " "
                )
                for j, L in enumerate(self.far_lengths)
            ),
            Column("fit a, c", lambda K: f"{self.fit(K).intercept:.3f}, {self.fit(K).slope:.4f}", gap="  "),
        )
        title = (
            f"{self.encoding}: seed-mean a* at the far lengths, measured / predicted by the fit on "
            f"L = {','.join(map(str, self.fit_lengths))}"
        )
        return text_table(title, columns, self.offsets)


def run_out_of_sample(
    ctx: Context,
    cache: Cache | None,
    offsets: Sequence[int] = (2, 3),
    far_lengths: Sequence[int] = FAR_LENGTHS,
    encoding: str = "rope",
) -> OutOfSampleResult:
    """P2: the fit on ``ctx.evaluation``'s lengths (the grid's own evaluation, cached) against the far a*
    (with the same sequences per length)."""
    far = evaluated_lengths(encoding, far_lengths)
    cache = cache if cache is not None else Cache()
    fit_evaluation = ctx.evaluation
    models = grid_models(ctx, cache, encoding, offsets)
    fit_cells = plain_cells(models, fit_evaluation.lengths, fit_evaluation.sequences, cache)
    far_cells = plain_cells(models, far, fit_evaluation.sequences, cache)
    return OutOfSampleResult(
        encoding, tuple(offsets), ctx.seeds, tuple(fit_evaluation.lengths), tuple(far_lengths), fit_cells, far_cells
    )


@dataclass
class VariantResult:
    """P4 / P6: the RoPE heads at ``lengths``, unmodified and under an inference variant."""

    kind: str  # the variant's kind (InferenceVariant.kind)
    offsets: tuple[int, ...]  # target offsets K, in run order
    seeds: tuple[int, ...]  # training seeds, in run order
    lengths: tuple[int, ...]  # evaluation lengths
    sequences: int  # evaluation sequences per length
    max_len: int  # Lmax: the longest training length
    plain: Cells  # cells of the unmodified heads
    varied: Cells  # cells under the variant

    def values(self, key: str, offset: int, length: int, varied: bool = True) -> list[Any]:
        return (self.varied if varied else self.plain).values(key, offset, length)

    def to_json(self) -> dict[str, Any]:
        return to_json(
            {
                "variant": self.kind,
                "offsets": self.offsets,
                "seeds": self.seeds,
                "lengths": self.lengths,
                "sequences": self.sequences,
                "max_len": self.max_len,
                "plain": self.plain.rows,
                "varied": self.varied.rows,
            }
        )

    def table(self) -> str:
        def column(K, L):
            varied = f"{mean(self.values('target_weight', K, L)):.3f}"
            plain = f"{mean(self.values('target_weight', K, L, varied=False)):.3f}"
            return f"{plain}>{varied}"

        def selection(K, L):
            return ",".join(str(s) for s in sorted(set(self.values("selected_offset", K, L))))

        def accuracy(K, L):
            return f"{mean(self.values('accuracy', K, L, varied=False)):.2f}>{mean(self.values('accuracy', K, L)):.2f}"

        title = f"RoPE heads, {self.kind} at inference (mean over {len(self.seeds)} seeds)"
        return "\n".join(
            (
                _table(f"{title}: a* plain>{self.kind}", self.offsets, self.lengths, column),
                _table(f"selected offsets under {self.kind} (every seed)", self.offsets, self.lengths, selection),
                _table("accuracy plain>varied", self.offsets, self.lengths, accuracy),
            )
        )


def run_variant(
    ctx: Context,
    cache: Cache | None,
    kind: str,
    offsets: Sequence[int] = (1, 2, 3),
    lengths: Sequence[int] = SCALING_LENGTHS,
) -> VariantResult:
    """The grid's RoPE heads at ``lengths``: the plain evaluation and the ``kind`` variant beside it, with
    ``ctx``'s sequences per length. An unknown ``kind`` or a length the RoPE heads are not evaluated at is a
    ValueError before any training."""
    if kind not in KINDS:
        raise ValueError(f"unknown inference variant {kind!r} (known: {', '.join(KINDS)})")
    evaluated_lengths("rope", lengths)
    cache = cache if cache is not None else Cache()
    sequences = ctx.evaluation.sequences
    models = grid_models(ctx, cache, "rope", offsets)
    max_len = models[0].spec.task.max_len
    plain = plain_cells(models, ROPE_LENGTHS, sequences, cache)
    varied = variant_cells(models, ROPE_LENGTHS, sequences, cache, InferenceVariant(kind, max_len))
    return VariantResult(kind, tuple(offsets), ctx.seeds, tuple(lengths), sequences, max_len, plain, varied)


def run_interpolation(
    ctx: Context,
    cache: Cache | None,
    offsets: Sequence[int] = (1, 2, 3),
    lengths: Sequence[int] = INTERPOLATION_LENGTHS,
    kind: str = "interpolate",
) -> VariantResult:
    """P4: position interpolation (``kind="plain"``: the same cells without it, the control)."""
    return run_variant(ctx, cache, kind, offsets, lengths)


def run_scaling(
    ctx: Context,
    cache: Cache | None,
    offsets: Sequence[int] = (1, 2, 3),
    lengths: Sequence[int] = SCALING_LENGTHS,
    kind: str = "log-scale",
) -> VariantResult:
    """P6: log-length logit scaling (``kind="inverse-log-scale"``: the inverse factor, the control)."""
    return run_variant(ctx, cache, kind, offsets, lengths)


def run_nope(
    ctx: Context, cache: Cache | None, offsets: Sequence[int] = (1, 2, 3), encoding: str = "nope"
) -> PhenomenonResult:
    """P5: NoPE heads trained as C1, at ``ctx`` (``encoding="rope"``: the grid's RoPE heads, the control)."""
    return run_phenomenon(ctx, cache, offsets, (encoding,))
