"""The code fingerprint in every cache key: a change to code that computes a model's numbers
invalidates the entries it produced, and nothing else does.

A one-layer model's numbers depend on the shared core (configs, seeding, training, evaluation, the
plain and fast forwards, the probes recorded while training and evaluating) and on the files of its own
encoding and task. Editing ALiBi therefore retrains ALiBi models only, and presentation code (CLI,
report, experiments' tables) never invalidates anything.
"""

from __future__ import annotations

from typing import Any, Iterable

import torch

import lengthgen
from lengthgen.device import CPU
from lengthgen.store.files import PACKAGE, files_fingerprint

__all__ = ["CORE", "PACKAGE", "code_fingerprint", "environment", "files_fingerprint", "spec_files"]
CORE = (
    "config.py",
    "seeding.py",
    "engine/ensemble.py",
    "engine/train.py",
    "engine/evaluate.py",
    "tasks/batch.py",
    "tasks/uniform.py",
    "encodings/base.py",
    "models/one_layer/head.py",
    "models/one_layer/fast/forward.py",
    "models/one_layer/fast/base.py",
    "models/one_layer/fast/paths.py",
    "models/one_layer/fast/manual.py",
    "models/one_layer/fast/manual_scores.py",
    "probes/geometry.py",
    "probes/attention.py",
)


def code_fingerprint(extra: Iterable[str] = ()) -> str:
    """Fingerprint of the core files plus ``extra`` (paths relative to the package)."""
    return files_fingerprint(CORE + tuple(sorted(set(extra))))


def spec_files(encoding: str, task_kind: str) -> tuple[str, ...]:
    """The files besides the core that a one-layer model of this encoding and task depends on."""
    files = [f"tasks/{task_kind}.py"]
    if encoding != "nope":  # NoPE is the base encoding and fast path itself
        files += [f"encodings/{encoding}.py", f"models/one_layer/fast/{encoding}.py"]
    return tuple(files)


def environment(extra_files: tuple[str, ...] = (), device: torch.device = CPU) -> dict[str, Any]:
    """What besides the config decides the numbers, for models computed on ``device``."""
    return {
        "code": code_fingerprint(extra_files),
        "version": lengthgen.__version__,
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "device": device.type,
    }
