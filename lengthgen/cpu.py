"""Which CPU a run ran on: its model name, and a record's CPU in one phrase (with the vector kernels torch
chose for it, ``lengthgen.device.cpu_capability``).

Machines of one kind come with different CPUs (some report AVX-512, some only AVX2), and torch picks its
CPU kernels by what the CPU offers (``torch.backends.cpu.get_cpu_capability()``; the environment variable
``ATEN_CPU_CAPABILITY`` lowers the choice). Two kernels round a float32 sum differently, so the same seed on
two CPUs gives numbers that agree to about 1e-7 relative, not bit for bit. Each run records both facts
(``lengthgen.testing.environment``), the report shows them, and ``lengthgen diff`` says when two runs differ
in them (``lengthgen.analysis.diff``). This module imports no torch: the report reads it.
"""

from __future__ import annotations

import platform
from pathlib import Path
from typing import Any, Mapping

CPUINFO = Path("/proc/cpuinfo")  # Linux: one "model name" line per logical CPU
UNKNOWN = "unknown"  # what a record without the fact (written before it was recorded) reads as


def cpu_model(cpuinfo: Path = CPUINFO) -> str:
    """The CPU's model name ("Intel(R) Xeon(R) Processor"); ``platform.processor()`` where /proc/cpuinfo
    is absent or says nothing, else :data:`UNKNOWN`."""
    try:
        for line in cpuinfo.read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and value.strip():
                return " ".join(value.split())
    except OSError:
        pass
    return platform.processor() or UNKNOWN


def cpu_label(environment: Mapping[str, Any]) -> str:
    """A record's CPU in one phrase, "Intel(R) Xeon(R) Processor, torch kernels AVX512"; :data:`UNKNOWN`
    for an environment written before runs recorded it."""
    model, capability = environment.get("cpu_model"), environment.get("cpu_capability")
    if not model and not capability:
        return UNKNOWN
    return f"{model or UNKNOWN}, torch kernels {capability or UNKNOWN}"
