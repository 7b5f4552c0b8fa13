"""Small builders shared by the unit tests."""

from __future__ import annotations

from lengthgen.config import ModelConfig, RunSpec, TaskConfig, TrainConfig


def tiny_spec(encoding: str = "rope", steps: int = 20, offset: int = 2, **model) -> RunSpec:
    """A configuration that trains in well under a second (small batch, few steps)."""
    return RunSpec(
        TaskConfig(offset=offset),
        ModelConfig(encoding=encoding, **{"d": 16, **model}),
        TrainConfig(steps=steps, batch=32, record_every=10),
    )
