"""Which tests run: a claim test also answers ``-k`` by its claim id (``-k C15``; pytest matches
substrings, so ``-k C2`` also selects C20..C22: name the file for C2 alone), and the quick variants (and
the robustness map's and the multiverse's cells) run only when the ``-m`` expression names quick
(robustness, multiverse, multiverse_extended).

:func:`requires_one_of` answers whether a ``-m`` expression selects only tests that carry one of some markers:
the unit tests' ``conftest.py`` uses it to skip importing its modules under ``-m quick`` (no unit test carries
a scale marker), which saves the fast check the collection of every unit test module.
"""

from __future__ import annotations

import itertools
import re

import pytest

SCALE_MARKERS = ("quick", "robustness", "multiverse", "multiverse_extended")  # only claim tests carry these
MAX_MARKER_NAMES = 10  # names of an expression tried in every combination (2**10 evaluations at most)
_NAME = re.compile(r"[^\s()]+")  # a -m expression's identifiers, between its parentheses and spaces
_KEYWORDS = {"and", "or", "not"}


def requires_one_of(markexpr: str | None, markers: tuple[str, ...]) -> bool:
    """Whether the ``-m`` expression is false for every test that carries none of ``markers``, whatever its
    other markers (each other name of the expression tried true and false). False when unsure: an empty,
    unparsable or too long expression, or one with marker arguments."""
    if not markexpr or not markexpr.strip() or "=" in markexpr:
        return False
    from _pytest.mark.expression import Expression  # pytest's own -m grammar

    try:
        expression = Expression.compile(markexpr)
    except Exception:  # noqa: BLE001 (pytest reports a bad expression itself, later)
        return False
    others = sorted({name for name in _NAME.findall(markexpr) if name not in _KEYWORDS} - set(markers))
    if len(others) > MAX_MARKER_NAMES:
        return False
    for values in itertools.product((False, True), repeat=len(others)):
        present = {name for name, value in zip(others, values) if value}
        if expression.evaluate(lambda name, /, **kwargs: name in present):
            return False
    return True


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
