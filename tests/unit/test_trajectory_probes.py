"""Emergence step and plateau deviation of a recorded trajectory (C16), on hand-made series."""

from __future__ import annotations

import pytest

from lengthgen.experiments.dynamics import emerge_by
from lengthgen.probes.trajectory import emergence_step, plateau_deviation

STEPS = [0, 50, 100, 150, 200, 250, 300]


def test_emergence_is_the_first_step_reaching_the_fraction():
    values = [0.05, 0.1, 0.5, 0.71, 0.75, 0.78, 0.8]  # 90% of 0.8 is 0.72
    assert emergence_step(STEPS, values) == 200
    assert emergence_step(STEPS, values, fraction=0.5) == 100
    assert emergence_step(STEPS, values, fraction=1.0) == 300


def test_emergence_counts_the_first_crossing_even_with_an_overshoot():
    values = [0.0, 1.2, 0.6, 0.6, 0.9, 1.0, 1.0]
    assert emergence_step(STEPS, values) == 50


def test_plateau_deviation_is_the_largest_relative_gap_after_the_step():
    values = [0.0, 1.2, 0.6, 0.95, 1.1, 1.0, 1.0]
    assert plateau_deviation(STEPS, values, after=150) == pytest.approx(0.1)
    assert plateau_deviation(STEPS, values, after=100) == pytest.approx(0.4)
    assert plateau_deviation(STEPS, values, after=300) == 0.0


def test_bad_input():
    with pytest.raises(ValueError, match="matching"):
        emergence_step([0, 1], [1.0])
    with pytest.raises(ValueError, match="increase"):
        emergence_step([0, 0], [1.0, 1.0])
    with pytest.raises(ValueError, match="positive"):
        plateau_deviation([0, 1], [1.0, 0.0], 0)
    with pytest.raises(ValueError, match="after step 400"):
        plateau_deviation(STEPS, [1.0] * 7, 400)
    with pytest.raises(ValueError, match="fraction"):
        emergence_step(STEPS, [1.0] * 7, fraction=0)


def test_emerge_by():
    assert emerge_by(4000) == 1000 and emerge_by(1000) == 500
