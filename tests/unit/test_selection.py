"""Selection: which ``-m`` expressions select only tests with a scale marker (then the unit tests' modules are
not collected), and that no unit test carries one (else ``-m quick`` would drop it unseen)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from lengthgen.testing.selection import SCALE_MARKERS, requires_one_of

TESTS = Path(__file__).resolve().parents[1]  # every tier of the tests


@pytest.mark.parametrize(
    "markexpr",
    ["quick", " quick ", "(quick)", "quick and not slow", "quick and (slow or browser)", "multiverse", "robustness"],
)
def test_an_expression_that_needs_a_scale_marker_selects_no_unit_test(markexpr):
    assert requires_one_of(markexpr, SCALE_MARKERS)


@pytest.mark.parametrize(
    "markexpr",
    [None, "", "  ", "slow", "not quick", "quick or slow", "not (quick or multiverse)", "quick and", "quick(x=1)"],
)
def test_any_other_expression_may_select_unit_tests(markexpr):
    assert not requires_one_of(markexpr, SCALE_MARKERS)


def test_an_expression_with_too_many_names_is_not_decided():
    names = " and ".join(f"m{i}" for i in range(11))
    assert not requires_one_of(f"quick and {names}", SCALE_MARKERS)
    assert requires_one_of("quick and " + " and ".join(f"m{i}" for i in range(3)), SCALE_MARKERS)


def test_no_unit_test_carries_a_scale_marker():
    """``pytest.mark.quick`` (and the other scale markers) as code, not inside a string, in any unit test file."""
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in SCALE_MARKERS
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "mark"
            ):
                found.append(f"{path.relative_to(TESTS)}:{node.lineno} pytest.mark.{node.attr}")
    assert not found, found
