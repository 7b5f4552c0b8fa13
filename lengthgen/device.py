"""The devices models train and evaluate on: the CPU by default, a CUDA GPU on request (a subcommand's
``--device``, pytest's ``--lengthgen-device``), held by the run's :class:`~lengthgen.runtime.Runtime`.

The engine's numeric functions (``engine/train.py``'s ``train_members``, ``engine/evaluate.py``'s
``evaluate_models``, the two-layer ones, ...) take the device as an argument (``device=``, the CPU by default); the
store, the process pool and the Dask workers pass the runtime's. Nothing here is state: this module only names and
checks devices.

Random draws (initialisation, data) always come from CPU generators, so a seed sees the same data and the same
initial weights on every device; only the arithmetic differs, within float32 rounding
(``tests/unit/test_device.py``). The device is part of every cache key, so CPU and GPU results never mix.
"""

from __future__ import annotations

import torch

CPU = torch.device("cpu")  # the default device of a Runtime and of every engine function's ``device`` argument


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


def cpu_capability() -> str:
    """The CPU kernels torch dispatches to here: "AVX512", "AVX2", "DEFAULT" (``lengthgen.cpu`` names the CPU)."""
    return str(torch.backends.cpu.get_cpu_capability())
