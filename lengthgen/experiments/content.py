"""The content-conditioned task with H in {1, 2, 4} heads (C21, C22; the paper's multi-head paragraph).

One-layer RoPE heads of total width d = 64 split into H heads of width 64 / H (``ModelConfig.heads``),
trained on the content task (``tasks/content.py``: query token in the lower half of the vocabulary ->
target at offset -K1, upper half -> -K2; K1 = 2, K2 = 3 by default) with the paper's protocol otherwise
(lengths [8, 16], Adam 1e-3, batch 256). Per (H, seed):

- accuracy per evaluation length (through the cached evaluation);
- each head's top singular-value energy of W_h = W_Q^h^T W_K^h (``probes/geometry.py``), trained and at
  initialisation (its baseline);
- *mode-conditioned* attention profiles (``probes/modes.py``): per head, the mean attention over the
  sequences whose query asks for K1 (mode 0) and over those asking for K2 (mode 1), on the same
  evaluation sequences as the accuracy. From them: each head's peak height per mode, the attention on
  that mode's target, and the selected offset per mode (a single head solving both offsets selects -K1
  in mode 0 and -K2 in mode 1: the query-conditioned rotation).

The peak attention of C22 is the mean over the two modes and over the heads of each head's
mode-conditioned peak height (a typical head's concentration); the retrieving head's (per mode, the
head with the most attention on that mode's target) is reported beside it, with its attention on the
target a*, and per head and mode whether the peak is at that mode's target.

``untrained_content(result)``: the same heads, seeds and evaluation with every model's weights replaced
by its seed's initialisation (a negative control's counterfactual for C21; evaluated directly, uncached).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import torch

from lengthgen.store.cache import Cache
from lengthgen.config import EvalConfig, RunSpec
from lengthgen.context import Context
from lengthgen.device import CPU
from lengthgen.engine.evaluate import EVAL_CHUNK, eval_draw, evaluate_models
from lengthgen.experiments.common import Run, mean, paper_spec, train_grid
from lengthgen.experiments.results import Column, config, length_columns, table_lines, to_json
from lengthgen.models import table_forward
from lengthgen.probes import per_head_bilinear, top_singular_energy
from lengthgen.probes.modes import mode_profiles, mode_target_weight
from lengthgen.tasks import make_task
from lengthgen.engine.train import TrainedModel

HEADS = (1, 2, 4)  # the paper's head counts
OFFSETS = (2, 3)  # (K1, K2): both >= 2, the regime of the mechanism claims (C4, C5)


def content_spec(ctx: Context, heads: int, offsets: Sequence[int] = OFFSETS) -> RunSpec:
    """The paper's one-layer RoPE setup at ``ctx`` with ``heads`` heads on the content task with offsets (K1, K2)."""
    if len(offsets) != 2:
        raise ValueError(f"the content task needs two offsets K1,K2, got {tuple(offsets)}")
    return paper_spec(
        ctx,
        model={"encoding": "rope", "heads": heads},
        task={"kind": "content", "offset": offsets[0], "alt_offset": offsets[1]},
    )


@torch.no_grad()
def mode_conditioned_profiles(models: Sequence[TrainedModel], evaluation: EvalConfig) -> dict[int, torch.Tensor]:
    """Per length, the mode-conditioned mean attention (S, H, 2, L) of models sharing one spec."""
    spec = models[0].spec
    if any(m.spec != spec for m in models):
        raise ValueError("mode_conditioned_profiles needs models of one spec")
    task = make_task(spec.task)
    params = {name: torch.stack([m.state[name] for m in models]) for name in models[0].state}  # (S, ...)
    profiles = {}
    for length in evaluation.lengths:
        tokens, lengths = eval_draw(task, evaluation, length)  # (N, L), (N,): the evaluation's sequences
        chunks = []
        for start in range(0, evaluation.sequences, EVAL_CHUNK):
            chunk = slice(start, start + EVAL_CHUNK)
            chunks.append(table_forward(params, spec.model, tokens[None, chunk], lengths[None, chunk]).attention)
        attention = torch.cat(chunks, dim=2)  # (S, H, N, L)
        profiles[length] = mode_profiles(attention, task.mode(tokens), 2)  # (S, H, 2, L)
    return profiles


def singular_energies(model: TrainedModel, initial: bool = False) -> list[float]:
    """Each head's top singular-value energy of W_h = W_Q^h^T W_K^h (trained, or at initialisation)."""
    if initial:
        state = dict(model.initial_module().named_parameters())
    else:
        state = model.state
    bilinear = per_head_bilinear(state["W_Q.weight"], state["W_K.weight"], model.spec.model.heads)  # (H, d, d)
    return top_singular_energy(bilinear).tolist()


@dataclass(frozen=True)
class ContentLength:
    """One (H, seed) model at one evaluation length (heads and modes in the nested lists)."""

    length: int  # evaluation length L
    accuracy: float  # accuracy at L
    peak_by_head_and_mode: list[list[float]]  # (H, 2): each head's mode-conditioned peak height
    target_weight_by_head_and_mode: list[list[float]]  # (H, 2): each head's attention on the mode's target
    selected_offset_by_head_and_mode: list[list[int]]  # (H, 2): argmax relative to the query
    retrieving_target_weight: float  # a* of the retrieving head, mean over modes
    peaks_at_target: float  # fraction of (head, mode) pairs peaking at the mode's target


@dataclass(frozen=True)
class ContentCell:
    """One (H, seed) model: per-head singular-value energies and its readings per evaluation length."""

    heads: int  # head count H
    seed: int  # training seed
    top_singular_energy: list[float]  # per head: sigma_1^2 / sum sigma_i^2 of W_h, trained
    top_singular_energy_init: list[float]  # the same at initialisation
    eval: tuple[ContentLength, ...]  # one per evaluation length


def mean_columns(lengths: Sequence[int], value: Callable[[int, int], list[float]]) -> tuple[Column, ...]:
    """Per H: the mean over seeds of ``value(H, L)`` at every evaluation length."""
    return (
        Column("H", lambda heads: heads, ">2"),
        *length_columns(lengths, lambda heads, i, L: mean(value(heads, L))),
    )


def energy_columns(result: "ContentResult") -> tuple[Column, ...]:
    """Per H: each head's seed-mean top singular-value energy, trained and at initialisation."""

    def per_head(energies: list[list[float]], heads: int) -> str:
        return " ".join(f"{mean([seed[h] for seed in energies]):.3f}" for h in range(heads))

    return (
        Column("H", lambda heads: heads, ">2"),
        Column("trained", lambda heads: per_head(result.energies[heads], heads), gap="  "),
        Column("init", lambda heads: f"(init {per_head(result.baseline_energies[heads], heads)})", gap="   "),
    )


@dataclass
class ContentResult:
    heads: tuple[int, ...]  # head counts H, in run order
    offsets: tuple[int, int]  # (K1, K2)
    seeds: tuple[int, ...]  # training seeds, in run order
    evaluation: EvalConfig  # evaluation lengths and sequences per length
    specs: dict[int, RunSpec]  # H -> spec
    runs: dict[int, list[Run]]  # H -> runs by seed
    profiles: dict[int, dict[int, torch.Tensor]]  # H -> length -> (S, H, 2, L) mode-conditioned profiles
    energies: dict[int, list[list[float]]]  # H -> per seed, per head: top singular-value energy of W_h
    baseline_energies: dict[int, list[list[float]]]  # the same at initialisation

    @property
    def lengths(self) -> tuple[int, ...]:
        return self.evaluation.lengths

    @property
    def max_len(self) -> int:
        return next(iter(self.specs.values())).task.max_len

    def accuracy(self, heads: int, length: int) -> list[float]:
        """Per seed, the accuracy at one length."""
        return [run.at(length).accuracy for run in self.runs[heads]]

    def head_peaks(self, heads: int, length: int) -> torch.Tensor:
        """(S, H, 2): each head's mode-conditioned peak height."""
        return self.profiles[heads][length].max(-1).values

    def head_target_weights(self, heads: int, length: int) -> torch.Tensor:
        """(S, H, 2): each head's mode-conditioned mean attention on the mode's target."""
        return mode_target_weight(self.profiles[heads][length], self.offsets)

    def peak(self, heads: int, length: int) -> list[float]:
        """C22's peak attention, per seed: mean over modes and heads of each head's mode-conditioned peak."""
        return self.head_peaks(heads, length).mean((1, 2)).tolist()

    def retrieving_peak(self, heads: int, length: int) -> list[float]:
        """Per seed, mean over modes of the peak of the head with the most attention on that mode's target."""
        peaks, on_target = self.head_peaks(heads, length), self.head_target_weights(heads, length)  # (S, H, 2)
        best = on_target.argmax(1, keepdim=True)  # (S, 1, 2)
        return peaks.gather(1, best).squeeze(1).mean(-1).tolist()

    def retrieving_target_weight(self, heads: int, length: int) -> list[float]:
        """Per seed, a* of the retrieving head: mean over modes of the most attention any head puts on that
        mode's target."""
        return self.head_target_weights(heads, length).max(1).values.mean(-1).tolist()

    def peaks_at_target(self, heads: int, length: int) -> list[float]:
        """Per seed, the fraction of (head, mode) pairs whose mode-conditioned peak is at the mode's target."""
        targets = torch.tensor([-k for k in self.offsets])  # (2,)
        chosen = self.profiles[heads][length].argmax(-1) - (length - 1)  # (S, H, 2)
        return (chosen == targets).double().mean((1, 2)).tolist()

    def selected_offsets(self, heads: int, length: int) -> list[list[list[int]]]:
        """Per seed, per head, per mode: argmax of the mode-conditioned mean attention, relative to the query."""
        profile = self.profiles[heads][length]  # (S, H, 2, L)
        return (profile.argmax(-1) - (length - 1)).tolist()

    def cells(self) -> list[ContentCell]:
        return [
            ContentCell(
                heads=heads,
                seed=run.seed,
                top_singular_energy=self.energies[heads][i],
                top_singular_energy_init=self.baseline_energies[heads][i],
                eval=tuple(
                    ContentLength(
                        length=L,
                        accuracy=run.at(L).accuracy,
                        peak_by_head_and_mode=self.head_peaks(heads, L)[i].tolist(),
                        target_weight_by_head_and_mode=self.head_target_weights(heads, L)[i].tolist(),
                        selected_offset_by_head_and_mode=self.selected_offsets(heads, L)[i],
                        retrieving_target_weight=self.retrieving_target_weight(heads, L)[i],
                        peaks_at_target=self.peaks_at_target(heads, L)[i],
                    )
                    for L in self.lengths
                ),
            )
            for heads in self.heads
            for i, run in enumerate(self.runs[heads])
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "config": config(
                heads=self.heads,
                offsets=self.offsets,
                seeds=self.seeds,
                spec=self.specs[self.heads[0]],
                eval=self.evaluation,
            ),
            "cells": to_json(self.cells()),
        }

    def table(self) -> str:
        k1, k2 = self.offsets
        lines = [
            f"content task (query token < m/2 -> K1={k1}, else K2={k2}); RoPE, d=64 split into H heads; "
            f"mean over {len(self.seeds)} seeds",
            "accuracy per length:",
            *table_lines(mean_columns(self.lengths, self.accuracy), self.heads),
            "peak attention (mean over modes and heads of each head's mode-conditioned peak):",
            *table_lines(mean_columns(self.lengths, self.peak), self.heads, header=False),
            "a* of the retrieving head (per mode the most attention on the target, mean over modes):",
            *table_lines(mean_columns(self.lengths, self.retrieving_target_weight), self.heads, header=False),
            "top singular-value energy of W_h per head (mean over seeds; at initialisation):",
            *table_lines(energy_columns(self), self.heads, header=False),
        ]
        return "\n".join(lines)


def run_content(
    ctx: Context, cache: Cache | None, heads: Sequence[int] = HEADS, offsets: Sequence[int] = OFFSETS
) -> ContentResult:
    """The content-task RoPE heads of every head count H, trained and evaluated at ``ctx``."""
    specs = {h: content_spec(ctx, h, offsets) for h in heads}
    runs = train_grid(ctx, cache, specs)
    return content_result(specs, (offsets[0], offsets[1]), ctx.seeds, ctx.evaluation, runs)


def content_result(
    specs: dict[int, RunSpec],
    offsets: tuple[int, int],
    seeds: tuple[int, ...],
    evaluation: EvalConfig,
    by_heads: dict[int, list[Run]],
) -> ContentResult:
    """The result of evaluated runs (H -> runs by seed): the mode-conditioned profiles and the energies."""
    heads = tuple(specs)
    return ContentResult(
        heads,
        offsets,
        seeds,
        evaluation,
        specs,
        by_heads,
        {h: mode_conditioned_profiles([run.model for run in by_heads[h]], evaluation) for h in heads},
        {h: [singular_energies(run.model) for run in by_heads[h]] for h in heads},
        {h: [singular_energies(run.model, initial=True) for run in by_heads[h]] for h in heads},
    )


def initial_model(model: TrainedModel) -> TrainedModel:
    """The seed's untrained initialisation as a model of the same spec (no trajectory, no training time)."""
    state = {name: value.detach().clone() for name, value in model.initial_module().state_dict().items()}
    return TrainedModel(model.spec, model.seed, state)


def untrained_content(result: ContentResult, device: torch.device = CPU) -> ContentResult:
    """``result``'s heads, seeds and evaluation with every model replaced by its untrained initialisation,
    evaluated now on ``device`` (uncached: one evaluation pass per H)."""
    by_heads = {}
    for heads, runs in result.runs.items():
        models = [initial_model(run.model) for run in runs]
        rows = evaluate_models(models, result.evaluation, device=device)
        by_heads[heads] = [Run(m, per_length) for m, per_length in zip(models, rows)]
    return content_result(result.specs, result.offsets, result.seeds, result.evaluation, by_heads)
