"""The linear-attention control (C11, Section 7): RoPE without softmax, beside the softmax head.

The linear head is the paper's head with ``ModelConfig(attention="linear")``: the attention weights are
the logits themselves, l_t = q.k_t / sqrt(d), with no normalisation over positions (o = sum_t l_t v_t;
padding gets weight 0), trained with the same protocol (Adam 1e-3, batch 256, lengths [8, 16]). The
softmax comparator of each (K, seed) is the C1 grid's RoPE model (same spec but the attention, same seed,
so the same initialisation: one baseline serves both).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from lengthgen.store.cache import Cache
from lengthgen.config import EvalConfig, RunSpec
from lengthgen.context import Context
from lengthgen.experiments.carrier import PROFILE_SPAN, model_geometry
from lengthgen.experiments.common import column_means, mean, paper_spec, train_grid
from lengthgen.experiments.results import Column, config, length_columns, table_lines, to_json
from lengthgen.probes.carrier import CarrierGeometry

HEADS = ("linear", "softmax")


@dataclass(frozen=True)
class LinearRow:
    """One (attention, K, seed) model: accuracy per length and its carrier geometry beside its initialisation's."""

    attention: str  # "linear" or "softmax"
    offset: int  # target offset K
    seed: int  # training seed (the same initialisation for both attentions)
    accuracy: tuple[float, ...]  # per evaluation length
    trained: CarrierGeometry  # the trained head's geometry
    baseline: CarrierGeometry  # the same seed's untrained initialisation
    final_loss: float | None  # the last recorded training loss (None where none was recorded)


@dataclass(frozen=True)
class HeadMeans:
    """One line of the table: the seed means of one (attention, K)."""

    attention: str  # "linear" or "softmax"
    offset: int  # target offset K
    accuracy: list[float]  # mean accuracy per evaluation length
    key_fraction: float  # mean trained key carrier fraction
    cosine: float  # mean trained cos(m_Q, R_-K m_K)


def columns(lengths: Sequence[int]) -> tuple[Column, ...]:
    return (
        Column("head", lambda r: r.attention, "<8"),
        Column("K", lambda r: r.offset, ">2"),
        *length_columns(lengths, lambda r, i, L: r.accuracy[i]),
        Column("key frac", lambda r: r.key_fraction, ">8.3f", gap="  "),
        Column("cos(mQ,R-K mK)", lambda r: r.cosine, ">14.3f"),
    )


@dataclass
class LinearResult:
    offsets: tuple[int, ...]  # target offsets K, in run order
    seeds: tuple[int, ...]  # training seeds, in run order
    evaluation: EvalConfig  # evaluation lengths and sequences per length
    spec: RunSpec  # the linear spec of the first offset
    rows: list[LinearRow]  # one per (attention, K, seed)

    @property
    def lengths(self) -> tuple[int, ...]:
        return self.evaluation.lengths

    def of(self, attention: str, offset: int) -> list[LinearRow]:
        return [r for r in self.rows if r.attention == attention and r.offset == offset]

    def accuracy(self, attention: str, offset: int, length: int) -> list[float]:
        return [r.accuracy[self.lengths.index(length)] for r in self.of(attention, offset)]

    def geometry(self, attention: str, offset: int, which: str, name: str) -> list[float]:
        """Per seed: ``which`` in {"trained", "baseline"}, ``name`` a CarrierGeometry field."""
        return [float(getattr(getattr(r, which), name)) for r in self.of(attention, offset)]

    def means(self, attention: str, offset: int) -> HeadMeans:
        rows = self.of(attention, offset)
        return HeadMeans(
            attention,
            offset,
            column_means([r.accuracy for r in rows]),
            mean([r.trained.key_fraction for r in rows]),
            mean([r.trained.cosine for r in rows]),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "config": config(offsets=self.offsets, seeds=self.seeds, spec=self.spec, eval=self.evaluation),
            "rows": to_json(self.rows),
        }

    def table(self) -> str:
        table = columns(self.lengths)
        lines = ["linear (no softmax) against softmax RoPE heads: accuracy per length and carrier geometry"]
        lines += table_lines(table, [])
        for offset in self.offsets:
            lines += table_lines(table, [self.means(attention, offset) for attention in HEADS], header=False)
            base = mean([r.baseline.key_fraction for r in self.of("linear", offset)])
            lines.append(f"  K={offset}: key carrier fraction of the untrained initialisation {base:.3f}")
        lines.append(f"(means over {len(self.seeds)} seeds)")
        return "\n".join(lines)


def run_linear(ctx: Context, cache: Cache | None, offsets: Sequence[int] = (2, 3)) -> LinearResult:
    """The linear-attention heads beside the softmax heads of every K, trained and evaluated at ``ctx``."""
    specs = {
        (attention, offset): paper_spec(ctx, task={"offset": offset}, model={"attention": attention})
        for attention in HEADS
        for offset in offsets
    }
    runs = train_grid(ctx, cache, specs)
    rows = []
    for (attention, offset), by_seed in runs.items():
        for run in by_seed:
            geometry = model_geometry(run.model, PROFILE_SPAN)
            rows.append(
                LinearRow(
                    attention=attention,
                    offset=offset,
                    seed=run.seed,
                    accuracy=tuple(row.accuracy for row in run.evals),
                    trained=geometry["trained"],
                    baseline=geometry["baseline"],
                    final_loss=run.model.trajectory["loss"][-1] if run.model.trajectory.get("loss") else None,
                )
            )
    return LinearResult(tuple(offsets), ctx.seeds, ctx.evaluation, specs["linear", offsets[0]], rows)
