"""The markdown summary, the terminal summary, ``lengthgen diff``, the specification curves and the robustness map's
and the multiverse's text grids render the recorded runs exactly as pinned (``tests/text_cases.py``): their
templates and view models change no byte a reader sees."""

from __future__ import annotations

import pytest

from tests.text_cases import cases, pinned

CASES = sorted(cases())  # every case, by name: "<renderer>/<run>..."


def first_difference(got: str, want: str) -> str:
    """The first line where ``got`` and ``want`` differ, both shown."""
    for i, (a, b) in enumerate(zip(got.splitlines(keepends=True), want.splitlines(keepends=True)), 1):
        if a != b:
            return f"line {i}:\n got  {a!r}\n want {b!r}"
    return f"lengths differ: {len(got)} vs {len(want)} characters (one ends early, or in its last newline)"


def test_every_pinned_text_is_a_case():
    assert sorted(pinned()) == CASES


@pytest.mark.parametrize("name", CASES)
def test_the_text_is_as_pinned(name):
    got, want = cases()[name](), pinned()[name]
    assert got == want, first_difference(got, want)
