"""Small builders shared by the unit tests."""

from __future__ import annotations

import functools

from lengthgen.config import ModelConfig, RunSpec, TaskConfig, TrainConfig
from lengthgen.registry import Registry


def tiny_spec(encoding: str = "rope", steps: int = 20, offset: int = 2, **model) -> RunSpec:
    """A configuration that trains in well under a second (small batch, few steps)."""
    return RunSpec(
        TaskConfig(offset=offset),
        ModelConfig(encoding=encoding, **{"d": 16, **model}),
        TrainConfig(steps=steps, batch=32, record_every=10),
    )


@functools.cache
def registry() -> Registry:
    """The claims' registry, as a claims run records it: their catalogue and the multiverse's plan of cells (built
    once per process, on first use: it imports every claim module, and torch)."""
    from claims.multiverse import plan
    from claims.registry import catalogue

    return Registry(catalogue(), plan())
