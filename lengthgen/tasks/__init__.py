"""Tasks: one file each, all producing :class:`~lengthgen.tasks.batch.Batch` from an explicit generator."""

from __future__ import annotations

from typing import Protocol

import torch

from lengthgen.config import TaskConfig
from lengthgen.tasks.batch import Batch, absolute_positions, valid_mask
from lengthgen.tasks.content import ContentConditioned
from lengthgen.tasks.offset import OffsetRetrieval


class Task(Protocol):
    """What the training engine and the evaluation need from a task."""

    cfg: TaskConfig

    def draw_batch(self, generator: torch.Generator, batch: int, length: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Tokens (B, L) and lengths (B,) of ``batch`` sequences of one ``length`` (evaluation)."""

    def sample_batch(self, generator: torch.Generator, batch: int, length: int) -> Batch:
        """``label(*draw_batch(...))``."""

    def draw_training(self, generator: torch.Generator, steps: int, batch: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Right-aligned tokens (steps, B, Lmax) and lengths (steps, B): everything random."""

    def label(self, tokens: torch.Tensor, lengths: torch.Tensor) -> Batch:
        """The batch with its targets (deterministic given the tokens)."""


_TASKS: dict[str, type] = {"offset": OffsetRetrieval}


def register_task(kind: str, cls: type) -> None:
    """Make ``TaskConfig(kind=kind)`` build ``cls``."""
    _TASKS[kind] = cls


def make_task(cfg: TaskConfig) -> Task:
    if cfg.kind not in _TASKS:
        raise ValueError(f"task kind {cfg.kind!r} has no implementation (known: {', '.join(_TASKS)})")
    return _TASKS[cfg.kind](cfg)


register_task("content", ContentConditioned)


__all__ = [
    "Batch",
    "ContentConditioned",
    "OffsetRetrieval",
    "Task",
    "absolute_positions",
    "make_task",
    "register_task",
    "valid_mask",
]
