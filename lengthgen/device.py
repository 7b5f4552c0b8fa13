"""The devices models train and evaluate on: the CPU by default, a CUDA GPU on request (a subcommand's
``--device``, pytest's ``--lengthgen-device``), held by the run's :class:`~lengthgen.runtime.Runtime`.

The engine's numeric files (``engine/train.py``, ``engine/evaluate.py``, ...) read the device of the computation
running now with :func:`get_device`. Their bytes are in every cache key and in the code fingerprint the recorded
runs of ``tests/data`` carry, so they keep that call; what sets it is scoped: :func:`computing_on` makes a device
current for one computation and restores the one before, and the store, the process pool and the Dask workers wrap
each computation they run for a runtime in it. Outside such a block the device is the CPU, whatever runtimes exist.

Random draws (initialisation, data) always come from CPU generators, so a seed sees the same data and the same
initial weights on every device; only the arithmetic differs, within float32 rounding
(``tests/unit/test_device.py``). The device is part of every cache key, so CPU and GPU results never mix.
"""

from __future__ import annotations

import contextlib
from typing import Iterator

import torch

CPU = torch.device("cpu")  # the device outside every computing_on block, and a Runtime's default
_current = [CPU]  # the devices of the computing_on blocks entered and not left, innermost last (CPU at the bottom)


def device_named(name: str) -> torch.device:
    """The device ``name`` ("cpu", "cuda" or "cuda:N"); ``ValueError`` if it is unknown or absent."""
    try:
        device = torch.device(name)
    except RuntimeError:
        raise ValueError(f"unknown device {name!r} (use cpu or cuda)") from None
    if device.type not in ("cpu", "cuda"):
        raise ValueError(f"unsupported device {name!r} (use cpu or cuda)")
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {name!r} requested but no CUDA device is available")
    return device


@contextlib.contextmanager
def computing_on(device: torch.device) -> Iterator[torch.device]:
    """Make ``device`` the one :func:`get_device` answers inside the block (the engine trains and evaluates there);
    leaving the block restores the one before."""
    if not isinstance(device, torch.device):
        raise ValueError(f"device={device!r} must be a torch.device (lengthgen.device.device_named parses a name)")
    _current.append(device)
    try:
        yield device
    finally:
        _current.pop()


def get_device() -> torch.device:
    """The device of the computation running now: the innermost :func:`computing_on` block's, else the CPU."""
    return _current[-1]


def cpu_capability() -> str:
    """The CPU kernels torch dispatches to here: "AVX512", "AVX2", "DEFAULT" (``lengthgen.cpu`` names the CPU)."""
    return str(torch.backends.cpu.get_cpu_capability())
