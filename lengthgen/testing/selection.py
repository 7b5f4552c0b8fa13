"""Which tests run: a claim test also answers ``-k`` by its claim id (``-k C15``; pytest matches
substrings, so ``-k C2`` also selects C20..C22: name the file for C2 alone), and the quick variants (and
the robustness map's and the multiverse's cells) run only when the ``-m`` expression names quick
(robustness, multiverse, multiverse_extended)."""

from __future__ import annotations

import pytest


def _deselect_quick(config: pytest.Config, items: list[pytest.Item], marker: str = "quick") -> None:
    """Drop the tests marked ``marker`` unless the ``-m`` expression names it (quick; robustness; multiverse)."""
    if marker in (config.getoption("markexpr") or ""):
        return
    kept, dropped = [], []
    for item in items:
        (dropped if item.get_closest_marker(marker) else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Claim tests answer ``-k`` by their claim id too; quick variants (and the robustness map's cells)
    run only when the ``-m`` expression names quick (robustness)."""
    for item in items:
        marker = item.get_closest_marker("claim") or item.get_closest_marker("control")
        if marker is not None and marker.args:
            item.extra_keyword_matches.add(str(marker.args[0]))
    _deselect_quick(config, items)
    _deselect_quick(config, items, "robustness")  # the robustness map runs only under -m robustness
    _deselect_quick(config, items, "multiverse")  # the multiverse runs only under -m multiverse
    _deselect_quick(config, items, "multiverse_extended")  # its cells left out for their cost: only when named
