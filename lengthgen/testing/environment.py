"""The run's environment block, collected at the end of a pytest run: versions, code fingerprints, the CPU,
threads, workers, wall time, cache counters, peak memory. The report only reads it (``claims.json``'s
``environment``: ``lengthgen.report.page.environment_rows``)."""

from __future__ import annotations

import hashlib
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any, Mapping

import lengthgen
from lengthgen.cpu import cpu_model

PACKAGE = Path(lengthgen.__file__).parent


def suite_fingerprint(roots: tuple[Path, ...] = (PACKAGE,)) -> str:
    """Hash of every ``.py`` file under ``roots`` (the exact code that produced a report)."""
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            digest.update(str(path.relative_to(root.parent)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


EVENT_TOTALS = {  # (evaluation kind?, event) -> the total it counts towards
    (False, "computed"): "models_trained",
    (False, "hit"): "models_from_cache",
    (True, "computed"): "evaluations_computed",
    (True, "hit"): "evaluations_from_cache",
}


def is_evaluation(kind: str) -> bool:
    """Cache kinds of evaluations ("eval", "two-layer-eval"); every other kind holds trained models."""
    return kind == "eval" or kind.endswith("-eval")


def cache_counts(stats: Mapping[str, int]) -> dict[str, Any]:
    """Models trained and taken from the cache, evaluations computed and reused, from ``Cache.stats``
    (keys "<kind>:hit" / "<kind>:computed" / "<kind>:damaged", summed over processes), and per kind."""
    totals = {
        "models_trained": 0,
        "models_from_cache": 0,
        "evaluations_computed": 0,
        "evaluations_from_cache": 0,
        "damaged_entries": 0,
    }
    kinds: dict[str, dict[str, int]] = {}
    for key, count in stats.items():
        kind, _, event = key.rpartition(":")
        kinds.setdefault(kind, {})[event] = kinds.get(kind, {}).get(event, 0) + int(count)
        if event == "damaged":
            totals["damaged_entries"] += int(count)
        elif event in ("hit", "computed"):
            total = EVENT_TOTALS[is_evaluation(kind), event]
            totals[total] += int(count)
    by_kind = "; ".join(
        f"{kind}: {e.get('computed', 0)} computed, {e.get('hit', 0)} from the cache"
        for kind, e in sorted(kinds.items())
    )
    return {**totals, "cache_by_kind": by_kind or "no cache use"}


MEMORY_BUDGET_MIB = 2048  # the peak resident memory a pytest process (an xdist worker) should stay under


def peak_rss_mib() -> float:
    """This process's peak resident memory so far, in MiB."""
    import resource  # POSIX only

    return _maxrss_mib(resource.RUSAGE_SELF)


def peak_child_rss_mib() -> float:
    """The largest peak resident memory of this process's ended child processes, in MiB (0 without any)."""
    import resource  # POSIX only

    return _maxrss_mib(resource.RUSAGE_CHILDREN)


def _maxrss_mib(who: int) -> float:
    """``getrusage(who).ru_maxrss`` in MiB (it is KiB on Linux, bytes on macOS)."""
    import resource  # POSIX only

    peak = resource.getrusage(who).ru_maxrss
    return round(peak / (2**20 if sys.platform == "darwin" else 2**10), 1)


def memory_line(peaks: Mapping[str, float]) -> str:
    """One line for the terminal: each process's peak and the largest against the budget."""
    each = ", ".join(f"{name} {value:.0f} MiB" for name, value in sorted(peaks.items()))
    worst = max(peaks.values())
    verdict = "within" if worst <= MEMORY_BUDGET_MIB else "OVER"
    return f"peak resident memory: {each} ({verdict} the {MEMORY_BUDGET_MIB} MiB budget per process)"


def torch_facts() -> dict[str, str]:
    """What only torch's import can say (about a second): its version, the vector kernels it chose, and the
    fingerprint of the core files (its module imports torch). An xdist worker sends these to the controller."""
    import torch

    from lengthgen.device import cpu_capability
    from lengthgen.store.fingerprint import code_fingerprint

    return {"code_fingerprint": code_fingerprint(), "torch": str(torch.__version__), "cpu_capability": cpu_capability()}


def collect(
    *,
    threads: int,
    workers: int,
    wall_time_s: float,
    started: float,
    cache_dir: str | None,
    cache_stats: Mapping[str, int],
    command: str,
    claims_dir: Path | None = None,
    exit_status: int | None = None,
    peak_rss: Mapping[str, float] | None = None,
    torch_block: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The environment block of ``claims.json`` (plain types). ``peak_rss``: MiB per process
    (``{"gw0": ..., "gw1": ..., "controller": ...}`` under xdist, ``{"main": ...}`` without). ``torch_block``:
    :func:`torch_facts` as a worker sent it (the xdist controller imports no torch), else computed here."""
    # Heavy (matplotlib), and needed only here, once at the end of a run: the workers read this module's
    # other helpers (peak_rss_mib) mid-run, and the tests read them without a run.
    import matplotlib
    import numpy

    facts = dict(torch_block) if torch_block is not None else torch_facts()
    roots = (PACKAGE,) + ((claims_dir,) if claims_dir is not None and claims_dir.is_dir() else ())
    return {
        "lengthgen": lengthgen.__version__,
        "code_fingerprint": facts["code_fingerprint"],  # the core numeric files: part of every cache key
        "suite_fingerprint": suite_fingerprint(roots),  # every .py of the package and the claims
        "torch": facts["torch"],
        "numpy": numpy.__version__,
        "matplotlib": matplotlib.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "cpu_model": cpu_model(),  # /proc/cpuinfo's model name: runs on two CPUs differ in the last bits
        "cpu_capability": facts["cpu_capability"],  # the vector kernels torch chose (AVX512, AVX2, DEFAULT)
        "threads_per_process": threads,
        "workers": workers,
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(started)),
        "wall_time_s": round(wall_time_s, 2),
        "cache_dir": cache_dir,
        "cache": dict(cache_stats),
        **cache_counts(cache_stats),
        "command": command,
        "exit_status": exit_status,
        "peak_rss_mib": dict(sorted(peak_rss.items())) if peak_rss else None,  # ru_maxrss per process
    }
