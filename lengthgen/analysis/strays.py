"""Which of many series stray from the rest (:func:`strays`: a robust outlier test over the series of a figure spec,
plain data from ``lengthgen.report.figure_specs``), and where one leaves the others (:func:`most_astray`). The
report's figures name and colour the series that stray, labelled at that point, and draw the others grey
(``lengthgen.report.figures``); nothing here draws."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

STRAY_Z = 5.0  # a series strays when one of its points lies this many robust spreads from the others' median
STRAY_FLOOR = 0.02  # the spread used at least, as a fraction of the data's range (identical seeds have MAD 0)
MAD_TO_SD = 1.4826  # the median absolute deviation of a normal sample times this estimates its standard deviation


def strays(series: list[Mapping[str, Any]]) -> list[int]:
    """The indices of the series (with ``y``) that stray from the rest, most astray first: at some x, a point more
    than :data:`STRAY_Z` robust spreads (median absolute deviation) from the median of every series at that x."""
    points: dict[float, list[float]] = {}
    for s in series:
        if "y" in s:
            for x, y in zip(s.get("x", []), s["y"]):
                if x is not None and y is not None and np.isfinite(y):
                    points.setdefault(float(x), []).append(float(y))
    every = [v for values in points.values() for v in values]
    if len(every) < 2:
        return []
    floor = STRAY_FLOOR * max(max(every) - min(every), 1e-12)
    centre = {x: float(np.median(v)) for x, v in points.items()}
    spread = {x: max(MAD_TO_SD * float(np.median(np.abs(np.array(v) - centre[x]))), floor) for x, v in points.items()}
    scores = []
    for i, s in enumerate(series):
        if "y" not in s:
            continue
        z = [
            abs(float(y) - centre[float(x)]) / spread[float(x)]
            for x, y in zip(s.get("x", []), s["y"])
            if x is not None and y is not None and np.isfinite(y)
        ]
        if z and max(z) > STRAY_Z:
            scores.append((max(z), i))
    return [i for _, i in sorted(scores, reverse=True)]


def most_astray(x: Sequence[float], y: Sequence[float], series: list[Mapping[str, Any]]) -> tuple[float, float] | None:
    """The point of one series (``x``, ``y``) farthest from the median of every series (with ``y``) at its x: where
    it leaves the others; None when it has no finite point."""
    scores = []
    for xi, yi in zip(x, y):
        if not np.isfinite(yi):
            continue
        others = [
            float(v)
            for s in series
            if "y" in s
            for sx, v in zip(s.get("x", []), s["y"])
            if v is not None and sx is not None and float(sx) == float(xi)
        ]
        scores.append((abs(float(yi) - float(np.median(others))) if others else 0.0, float(xi), float(yi)))
    if not scores:
        return None
    _, xi, yi = max(scores)
    return xi, yi
