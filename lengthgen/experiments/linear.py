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
from lengthgen.experiments.carrier import PROFILE_SPAN, model_geometry
from lengthgen.experiments.common import column_means, eval_dict, mean, paper_spec, train_and_evaluate

HEADS = ("linear", "softmax")


@dataclass
class LinearResult:
    offsets: tuple[int, ...]
    seeds: tuple[int, ...]
    evaluation: EvalConfig
    spec: RunSpec  # the linear spec of the first offset
    rows: list[dict[str, Any]]  # one per (attention, K, seed)

    @property
    def lengths(self) -> tuple[int, ...]:
        return self.evaluation.lengths

    def of(self, attention: str, offset: int) -> list[dict[str, Any]]:
        return [r for r in self.rows if r["attention"] == attention and r["offset"] == offset]

    def accuracy(self, attention: str, offset: int, length: int) -> list[float]:
        return [r["accuracy"][self.lengths.index(length)] for r in self.of(attention, offset)]

    def geometry(self, attention: str, offset: int, which: str, name: str) -> list[float]:
        """Per seed: ``which`` in {"trained", "baseline"}, ``name`` a CarrierGeometry field."""
        return [float(r[which][name]) for r in self.of(attention, offset)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "config": {
                "offsets": list(self.offsets),
                "seeds": list(self.seeds),
                "spec": self.spec.to_dict(),
                "eval": eval_dict(self.evaluation),
            },
            "rows": self.rows,
        }

    def table(self) -> str:
        lines = [
            "linear (no softmax) against softmax RoPE heads: accuracy per length and carrier geometry",
            f"{'head':<8} {'K':>2}  "
            + " ".join(f"L={L:<5}" for L in self.lengths)
            + f"  {'key frac':>8} {'cos(mQ,R-K mK)':>14}",
        ]
        for offset in self.offsets:
            for attention in HEADS:
                rows = self.of(attention, offset)
                acc = column_means([r["accuracy"] for r in rows])
                key = mean([r["trained"]["key_fraction"] for r in rows])
                cos = mean([r["trained"]["cosine"] for r in rows])
                lines.append(
                    f"{attention:<8} {offset:>2}  "
                    + " ".join(f"{a:<7.3f}" for a in acc)
                    + f"  {key:>8.3f} {cos:>14.3f}"
                )
            base = mean([r["baseline"]["key_fraction"] for r in self.of("linear", offset)])
            lines.append(f"  K={offset}: key carrier fraction of the untrained initialisation {base:.3f}")
        lines.append(f"(means over {len(self.seeds)} seeds)")
        return "\n".join(lines)


def run_linear(
    seeds: Sequence[int],
    steps: int = 4000,
    offsets: Sequence[int] = (2, 3),
    evaluation: EvalConfig | None = None,
    cache: Cache | None = None,
    progress: bool | None = None,
) -> LinearResult:
    evaluation = evaluation or EvalConfig()
    specs = {
        (attention, offset): paper_spec(steps, task={"offset": offset}, model={"attention": attention})
        for attention in HEADS
        for offset in offsets
    }
    runs = train_and_evaluate(list(specs.values()), seeds, evaluation, cache, progress)
    rows = []
    for (attention, offset), spec in specs.items():
        for run in runs[spec]:
            geometry = model_geometry(run.model, PROFILE_SPAN)
            rows.append(
                {
                    "attention": attention,
                    "offset": offset,
                    "seed": run.seed,
                    "accuracy": [row.accuracy for row in run.evals],
                    "trained": geometry["trained"].to_dict(),
                    "baseline": geometry["baseline"].to_dict(),
                    "final_loss": run.model.trajectory["loss"][-1] if run.model.trajectory.get("loss") else None,
                }
            )
    return LinearResult(tuple(offsets), tuple(seeds), evaluation, specs["linear", offsets[0]], rows)
