"""docs/speed.md's benchmark table (``lengthgen docs``), rendered from a recorded pytest-benchmark run
(``tests/data/bench-reference.json``: ``pytest tests/benchmarks -m bench -p no:xdist --benchmark-json=PATH``):
each benchmark's median, per member-step where it times an ensemble step, and the whole-command speed-up, with
the CPU the file names. No torch.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from lengthgen.report import text
from lengthgen.report.markdown import cell, table


def read(path: Path) -> Mapping[str, Any]:
    """A pytest-benchmark JSON file; ValueError naming the path for a missing, unreadable or foreign one."""
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise ValueError(f"{str(path)!r} does not exist") from None
    except (OSError, ValueError) as error:
        raise ValueError(f"{str(path)!r} is not a benchmark file: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list) or "machine_info" not in data:
        raise ValueError(f"{str(path)!r} is not a pytest-benchmark JSON file (no benchmarks, no machine_info)")
    return data


def _median(bench: Mapping[str, Any]) -> str:
    median = float(bench["stats"]["median"])
    shown = f"{1000 * median:.2f} ms" if median < 1 else text.duration(median)
    extra = bench.get("extra_info") or {}
    if extra.get("members"):
        shown += f" ({1000 * median / int(extra['members']):.3f} ms per member-step)"
    if "speedup" in extra:
        shown += f"; the plain loop takes {extra['speedup']}x as long ({extra.get('cpu_speedup', '?')}x in CPU time)"
    return shown


def benchmarks(data: Mapping[str, Any]) -> str:
    """A row per benchmark, in the file's order: its test id and its median (docs/speed.md says what each times)."""
    rows = [[f"`{cell(bench['name'])}`", cell(_median(bench))] for bench in data["benchmarks"]]
    machine = data.get("machine_info") or {}
    cpu = (machine.get("cpu") or {}).get("brand_raw") or machine.get("processor") or "unknown CPU"
    flags = (machine.get("cpu") or {}).get("flags") or []
    kernels = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
    when = str(data.get("datetime", ""))[:10]
    return (
        "\n".join(table(["benchmark", "median"], rows))
        + f"\n\nMeasured on an {cpu} ({kernels}), serially, one thread, on {when} "
        f"(`pytest tests/benchmarks -m bench -p no:xdist`).\n"
    )
