"""Small builders shared by the unit tests."""

from __future__ import annotations

import functools
from pathlib import Path

from lengthgen.config import ModelConfig, RunSpec, TaskConfig, TrainConfig
from lengthgen.registry import Registry

ROOT = Path(__file__).resolve().parents[1]  # the checkout: the package, claims/, tests/, docs/
DATA = ROOT / "tests" / "data"  # the recorded runs and measurements the tests and documents read
SHARED = ROOT.parent / "shared"  # the paper and its catalogue beside a working checkout (absent in a clone)


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
