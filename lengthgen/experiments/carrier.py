"""Carrier geometry of the trained RoPE heads (C4, C5, C20; Lemma 2 and the K = 1 paragraph).

For every RoPE model of the C1 grid (same spec, same cache key: no training) and the same seed's
untrained initialisation (the baseline): the carrier fractions of the projected vocabulary, the
alignment cos(m_Q, R_{-K} m_K) and the carrier-only profile phi_c(delta) over delta in [-(48-1), 0]
with its argmax; plus the model's accuracy at each evaluation length (C20).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Sequence

from lengthgen.store.cache import Cache
from lengthgen.config import PAPER_EVAL_LENGTHS, EvalConfig, RunSpec
from lengthgen.context import Context
from lengthgen.experiments.common import Run, paper_spec, train_and_evaluate
from lengthgen.experiments.results import Column, config, text_table, to_json
from lengthgen.probes.carrier import CarrierGeometry, carrier_geometry
from lengthgen.probes.margin import head_logit_profile
from lengthgen.engine.train import TrainedModel

# The catalogue's range of the carrier-only profile and of the margin's logit table, delta in
# [-(48-1), 0]: the longest paper evaluation length, at every scale (weights only, no evaluation).
PROFILE_SPAN = max(PAPER_EVAL_LENGTHS)


def model_geometry(model: TrainedModel, span: int = PROFILE_SPAN) -> dict[str, CarrierGeometry]:
    """The trained head's carrier geometry and that of the same seed's initialisation (the baseline)."""
    offset = model.spec.task.offset
    initial = model.initial_module().state_dict()
    return {
        "trained": carrier_geometry(model.state, model.spec.model, offset, span),
        "baseline": carrier_geometry(initial, model.spec.model, offset, span),
    }


@dataclass(frozen=True)
class CarrierRow:
    """One (K, seed) RoPE model: its carrier geometry beside its initialisation's, logit profile and accuracy."""

    offset: int  # target offset K
    seed: int  # training seed (also the initialisation's)
    trained: CarrierGeometry  # the trained head's geometry (the baseline's in ``CarrierResult.untrained`` rows)
    baseline: CarrierGeometry  # the same seed's untrained initialisation
    logit_profile: tuple[float, ...] | None  # p(delta), delta = -(span-1) .. 0 (None in untrained rows)
    accuracy: dict[int, float] | None  # evaluation length -> accuracy (None in untrained rows)
    selected_offset: dict[int, int] | None  # evaluation length -> selected offset (None in untrained rows)


def run_row(run: Run, span: int = PROFILE_SPAN) -> CarrierRow:
    """One (K, seed) row: geometry (trained and baseline), the mean logit profile p(delta) over all token
    pairs (the self-logit T[a, a, 0] at delta = 0) and accuracy per evaluation length."""
    geometry = model_geometry(run.model, span)
    logits = head_logit_profile(run.model.state, run.model.spec.model, span)  # (span,)
    return CarrierRow(
        offset=run.model.spec.task.offset,
        seed=run.seed,
        trained=geometry["trained"],
        baseline=geometry["baseline"],
        logit_profile=tuple(logits.tolist()),
        accuracy={row.length: row.accuracy for row in run.evals},
        selected_offset={row.length: row.selected_offset() for row in run.evals},
    )


COLUMNS = (
    Column("K", lambda r: r.offset, ">2"),
    Column("seed", lambda r: r.seed, ">4"),
    Column("key frac", lambda r: r.trained.key_fraction, ">8.3f", gap="  "),
    Column("(base)", lambda r: r.baseline.key_fraction, ">7.3f"),
    Column("query frac", lambda r: r.trained.query_fraction, ">10.3f", gap="  "),
    Column("(base)", lambda r: r.baseline.query_fraction, ">7.3f"),
    Column("cos(mQ,R-K mK)", lambda r: r.trained.cosine, ">14.3f", gap="  "),
    Column("(base)", lambda r: r.baseline.cosine, ">7.3f"),
    Column("phi_c peak", lambda r: r.trained.peak, ">10", gap="  "),
    Column("min acc", lambda r: min(r.accuracy.values()), ">7.3f", gap="  "),
)


@dataclass
class CarrierResult:
    offsets: tuple[int, ...]  # target offsets K, in run order
    seeds: tuple[int, ...]  # training seeds, in run order
    evaluation: EvalConfig  # evaluation lengths and sequences per length
    spec: RunSpec  # the spec of the first offset (the others differ only in K)
    rows: list[CarrierRow]  # one per (K, seed)
    span: int = PROFILE_SPAN  # the profile covers delta = -(span-1) .. 0

    def of(self, offset: int) -> list[CarrierRow]:
        return [r for r in self.rows if r.offset == offset]

    def values(self, offset: int, which: str, name: str) -> list[float]:
        """Per seed: ``which`` in {"trained", "baseline"}, ``name`` a CarrierGeometry field."""
        return [float(getattr(getattr(r, which), name)) for r in self.of(offset)]

    def accuracy(self, offset: int, length: int) -> list[float]:
        return [r.accuracy[length] for r in self.of(offset)]

    def select(self, offsets: Sequence[int]) -> "CarrierResult":
        """The same result restricted to ``offsets`` (each must be among this result's)."""
        missing = [K for K in offsets if K not in self.offsets]
        if missing or not offsets:
            raise ValueError(f"offsets {list(offsets)} are not among this result's {list(self.offsets)}")
        rows = [r for r in self.rows if r.offset in offsets]
        spec = self.spec.replace(task={"offset": offsets[0]})
        return dataclasses.replace(self, offsets=tuple(offsets), spec=spec, rows=rows)

    def untrained(self) -> "CarrierResult":
        """The same seeds' untrained initialisations in place of the trained heads: each row's "trained"
        geometry is its baseline's. The accuracy, selected offsets and logit profile (measured on the
        trained weights only) are None in these rows."""
        rows = [
            dataclasses.replace(r, trained=r.baseline, accuracy=None, selected_offset=None, logit_profile=None)
            for r in self.rows
        ]
        return dataclasses.replace(self, rows=rows)

    def to_json(self) -> dict[str, Any]:
        return {
            "config": config(
                offsets=self.offsets, seeds=self.seeds, spec=self.spec, profile_span=self.span, eval=self.evaluation
            ),
            "rows": to_json(self.rows),
        }

    def table(self) -> str:
        title = (
            f"carrier geometry of the RoPE heads (baseline = the seed's untrained init); "
            f"phi_c peak over delta in [-{self.span - 1}, 0]"
        )
        return text_table(title, COLUMNS, self.rows)


def run_carrier(
    ctx: Context, cache: Cache | None, offsets: Sequence[int] = (1, 2, 3), base: RunSpec | None = None
) -> CarrierResult:
    """The carrier geometry (and accuracy at ``ctx.evaluation``) of the RoPE heads of every K. ``base``: the RoPE
    spec whose K each model replaces (default ``paper_spec(ctx)``, the C1 grid's RoPE heads; a robustness setting
    passes its own, see ``lengthgen.experiments.robustness``)."""
    base = base if base is not None else paper_spec(ctx)
    specs = [base.replace(task={"offset": offset}) for offset in offsets]
    runs = train_and_evaluate(ctx, cache, specs)
    rows = [run_row(run) for spec in specs for run in runs[spec]]
    return CarrierResult(tuple(offsets), ctx.seeds, ctx.evaluation, specs[0], rows)
