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
from lengthgen.experiments.common import Run, eval_dict, paper_spec, train_and_evaluate
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


def run_row(run: Run, span: int = PROFILE_SPAN) -> dict[str, Any]:
    """One (K, seed) row: geometry (trained and baseline), the mean logit profile p(delta) over all token
    pairs (the self-logit T[a, a, 0] at delta = 0) and accuracy per evaluation length."""
    geometry = model_geometry(run.model, span)
    logits = head_logit_profile(run.model.state, run.model.spec.model, span)  # (span,)
    return {
        "offset": run.model.spec.task.offset,
        "seed": run.seed,
        "trained": geometry["trained"].to_dict(),
        "baseline": geometry["baseline"].to_dict(),
        "logit_profile": logits.tolist(),  # p(delta) for delta = -(span-1) .. 0
        "accuracy": {row.length: row.accuracy for row in run.evals},
        "selected_offset": {row.length: row.selected_offset() for row in run.evals},
    }


@dataclass
class CarrierResult:
    offsets: tuple[int, ...]
    seeds: tuple[int, ...]
    evaluation: EvalConfig
    spec: RunSpec  # the spec of the first offset (the others differ only in K)
    rows: list[dict[str, Any]]  # one per (K, seed), see ``run_row``
    span: int = PROFILE_SPAN

    def of(self, offset: int) -> list[dict[str, Any]]:
        return [r for r in self.rows if r["offset"] == offset]

    def values(self, offset: int, which: str, name: str) -> list[float]:
        """Per seed: ``which`` in {"trained", "baseline"}, ``name`` a CarrierGeometry field."""
        return [float(r[which][name]) for r in self.of(offset)]

    def accuracy(self, offset: int, length: int) -> list[float]:
        return [r["accuracy"][length] for r in self.of(offset)]

    def select(self, offsets: Sequence[int]) -> "CarrierResult":
        """The same result restricted to ``offsets`` (each must be among this result's)."""
        missing = [K for K in offsets if K not in self.offsets]
        if missing or not offsets:
            raise ValueError(f"offsets {list(offsets)} are not among this result's {list(self.offsets)}")
        rows = [r for r in self.rows if r["offset"] in offsets]
        spec = self.spec.replace(task={"offset": offsets[0]})
        return dataclasses.replace(self, offsets=tuple(offsets), spec=spec, rows=rows)

    def untrained(self) -> "CarrierResult":
        """The same seeds' untrained initialisations in place of the trained heads: each row's "trained"
        geometry is its baseline's. The accuracy, selected offsets and logit profile (measured on the
        trained weights only) are left out of these rows."""
        measured_on_trained = ("accuracy", "selected_offset", "logit_profile")
        rows = [
            {**{k: v for k, v in r.items() if k not in measured_on_trained}, "trained": r["baseline"]}
            for r in self.rows
        ]
        return dataclasses.replace(self, rows=rows)

    def to_dict(self) -> dict[str, Any]:
        return {
            "config": {
                "offsets": list(self.offsets),
                "seeds": list(self.seeds),
                "spec": self.spec.to_dict(),
                "profile_span": self.span,
                "eval": eval_dict(self.evaluation),
            },
            "rows": self.rows,
        }

    def table(self) -> str:
        lines = [
            f"carrier geometry of the RoPE heads (baseline = the seed's untrained init); "
            f"phi_c peak over delta in [-{self.span - 1}, 0]",
            f"{'K':>2} {'seed':>4}  {'key frac':>8} {'(base)':>7}  {'query frac':>10} {'(base)':>7}  "
            f"{'cos(mQ,R-K mK)':>14} {'(base)':>7}  {'phi_c peak':>10}  {'min acc':>7}",
        ]
        for r in self.rows:
            t, b = r["trained"], r["baseline"]
            lines.append(
                f"{r['offset']:>2} {r['seed']:>4}  {t['key_fraction']:>8.3f} {b['key_fraction']:>7.3f}  "
                f"{t['query_fraction']:>10.3f} {b['query_fraction']:>7.3f}  {t['cosine']:>14.3f} {b['cosine']:>7.3f}  "
                f"{t['peak']:>10}  {min(r['accuracy'].values()):>7.3f}"
            )
        return "\n".join(lines)


def run_carrier(
    seeds: Sequence[int],
    steps: int = 4000,
    offsets: Sequence[int] = (1, 2, 3),
    evaluation: EvalConfig | None = None,
    cache: Cache | None = None,
    progress: bool | None = None,
    base: RunSpec | None = None,
) -> CarrierResult:
    """``base``: the RoPE spec whose K each model replaces (default ``paper_spec(steps)``, the C1 grid's
    RoPE heads; a robustness setting passes its own, see ``lengthgen.experiments.robustness``)."""
    evaluation = evaluation or EvalConfig()
    base = base if base is not None else paper_spec(steps)
    specs = [base.replace(task={"offset": offset}) for offset in offsets]
    runs = train_and_evaluate(specs, seeds, evaluation, cache, progress)
    rows = [run_row(run) for spec in specs for run in runs[spec]]
    return CarrierResult(tuple(offsets), tuple(seeds), evaluation, specs[0], rows)
