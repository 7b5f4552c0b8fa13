"""Benchmarks run only when asked for (``-m bench``), serially (pytest-benchmark is off under xdist):

pytest tests/benchmarks -m bench -p no:xdist --benchmark-autosave
pytest tests/benchmarks -m bench -p no:xdist --benchmark-compare --benchmark-compare-fail=median:25%
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    wanted = "bench" in (config.getoption("markexpr") or "")
    kept, dropped = [], []
    for item in items:
        if HERE in Path(item.fspath).parents:
            item.add_marker(pytest.mark.bench)
            (kept if wanted else dropped).append(item)
        else:
            kept.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
