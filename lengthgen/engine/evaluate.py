"""Evaluation at fixed lengths: accuracy and the attention probes, for an ensemble at once.

All members see the same sequences: at length L they are drawn from ``generator(eval.seed, f"eval:{L}")``
(the draw depends only on the vocabulary, so every configuration and seed is scored on the same data);
each member labels them with its own task (its own K).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import torch

from lengthgen.config import EvalConfig
from lengthgen.device import CPU
from lengthgen.models import table_forward
from lengthgen.probes import peak_height, peak_position, selected_offset
from lengthgen.seeding import generator
from lengthgen.tasks import make_task
from lengthgen.engine.train import TrainedModel, ensemble_signature

EVAL_CHUNK = 1024  # sequences per forward pass (bounds memory at long lengths; does not change results)


@dataclass(frozen=True)
class LengthEval:
    """One model at one evaluation length."""

    length: int  # L
    accuracy: float  # fraction of correct argmax predictions
    profile: tuple[tuple[float, ...], ...]  # (H, L) mean attention per absolute position 0..L-1
    target_weight: tuple[float, ...]  # (H,) mean attention weight a* on the target

    def _profile(self, head: int) -> torch.Tensor:
        return torch.tensor(self.profile[head], dtype=torch.float64)

    def selected_offset(self, head: int = 0) -> int:
        """argmax of the mean attention relative to the query (negative before it)."""
        return int(selected_offset(self._profile(head)))

    def peak_position(self, head: int = 0) -> int:
        """argmax of the mean attention as an absolute position."""
        return int(peak_position(self._profile(head)))

    def peak_height(self, head: int = 0) -> float:
        return float(peak_height(self._profile(head)))

    def summary(self, head: int = 0) -> dict[str, Any]:
        """The CLI's JSON record of this length."""
        return {
            "length": self.length,
            "accuracy": self.accuracy,
            "selected_offset": self.selected_offset(head),
            "peak_height": self.peak_height(head),
            "target_weight": self.target_weight[head],
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "length": self.length,
            "accuracy": self.accuracy,
            "profile": [list(row) for row in self.profile],
            "target_weight": list(self.target_weight),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "LengthEval":
        return cls(
            int(data["length"]),
            float(data["accuracy"]),
            tuple(tuple(float(x) for x in row) for row in data["profile"]),
            tuple(float(x) for x in data["target_weight"]),
        )


def eval_draw(task, evaluation: EvalConfig, length: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The shared evaluation sequences at ``length``: tokens (N, L), lengths (N,)."""
    return task.draw_batch(generator(evaluation.seed, f"eval:{length}"), evaluation.sequences, length)


def plain_forward(params, cfg, tokens: torch.Tensor, lengths: torch.Tensor, length: int):
    """The forward an evaluation runs at ``length``: the fast table forward, unchanged at every length."""
    return table_forward(params, cfg, tokens, lengths)


@torch.no_grad()
def evaluate_models(
    models: Sequence[TrainedModel],
    evaluation: EvalConfig,
    forward: Callable[..., Any] = plain_forward,
    device: torch.device = CPU,
) -> list[list[LengthEval]]:
    """Per model, one :class:`LengthEval` per evaluation length, computed on ``device``; models of one signature
    run together.

    ``forward(params, cfg, tokens, lengths, length)`` returns the fast forward's ``TableOutput``; an
    inference-time variant (``lengthgen/engine/evaluate_variants.py``) passes its own, on the same sequences,
    chunks and sums."""
    if not models:
        return []
    signature = ensemble_signature(models[0].spec)
    if any(ensemble_signature(m.spec) != signature for m in models):
        raise ValueError("evaluate_models needs models of one signature; group them first")
    for model in models:
        model.spec.check_eval(evaluation)
    cfg = models[0].spec.model
    params = {name: torch.stack([m.state[name] for m in models]).to(device) for name in models[0].state}
    tasks = [make_task(m.spec.task) for m in models]
    results: list[list[LengthEval]] = [[] for _ in models]
    for length in evaluation.lengths:
        tokens, lengths = eval_draw(tasks[0], evaluation, length)  # (N, L), (N,) drawn on the CPU
        tokens, lengths = tokens.to(device), lengths.to(device)
        correct = torch.zeros(len(models), dtype=torch.float64, device=device)  # (S,)
        profile = torch.zeros(len(models), cfg.heads, length, dtype=torch.float64, device=device)  # (S, H, L)
        on_target = torch.zeros(len(models), cfg.heads, dtype=torch.float64, device=device)  # (S, H)
        for start in range(0, evaluation.sequences, EVAL_CHUNK):
            chunk_tokens, chunk_lengths = tokens[start : start + EVAL_CHUNK], lengths[start : start + EVAL_CHUNK]
            labelled = [task.label(chunk_tokens, chunk_lengths) for task in tasks]
            targets = torch.stack([b.targets for b in labelled])  # (S, B)
            target_cols = torch.stack([b.target_cols for b in labelled])  # (S, B)
            out = forward(params, cfg, chunk_tokens[None], chunk_lengths[None], length)
            correct += (out.logits.argmax(-1) == targets).sum(-1)
            profile += out.attention.sum(2)  # (S, H, L)
            index = target_cols[:, None, :, None].expand(-1, cfg.heads, -1, 1)  # (S, H, B, 1)
            on_target += out.attention.gather(3, index).sum((2, 3))
        n = evaluation.sequences
        correct, profile, on_target = correct.cpu(), profile.cpu(), on_target.cpu()
        for i in range(len(models)):
            results[i].append(
                LengthEval(
                    length,
                    float(correct[i] / n),
                    tuple(tuple(row) for row in (profile[i] / n).tolist()),
                    tuple((on_target[i] / n).tolist()),
                )
            )
    return results
