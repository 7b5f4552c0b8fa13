"""Figure specifications: plain data that a claim test records and the report draws.

A claim records ``claim.figure(name, spec)`` with ``spec`` built here; the report renders every spec
with matplotlib, so a claim never draws and the report needs no claim-specific code. Kinds:

- ``lines``: one line per series over ``x``; a series has ``y`` (one curve) or ``per_seed`` (a list of
  curves: the report draws their mean with a band from min to max over seeds).
- ``bars``: grouped bars; a series has ``values`` (one per group) or ``per_seed`` (one list per group).
- ``heatmap``: ``values[i][j]`` at row ``y[i]``, column ``x[j]``.
Optional on every kind: ``hlines``/``vlines`` (reference lines: {"at": v, "label": text}),
``xscale``/``yscale`` ("linear" or "log"), ``note`` (a caption line).
"""

from __future__ import annotations

from typing import Any, Sequence


def _ref(lines: Sequence[tuple[float, str]] | None) -> list[dict[str, Any]]:
    return [{"at": float(at), "label": label} for at, label in (lines or [])]


def series(
    label: str,
    x: Sequence[float],
    y: Sequence[float] | None = None,
    per_seed: Sequence[Sequence[float]] | None = None,
    style: str | None = None,
) -> dict[str, Any]:
    """One line: ``y`` or ``per_seed`` (rows = seeds). ``style``: "dashed", "dotted", "points" or None."""
    if (y is None) == (per_seed is None):
        raise ValueError("a series needs exactly one of y and per_seed")
    out: dict[str, Any] = {"label": label, "x": [float(v) for v in x]}
    if y is not None:
        out["y"] = [float(v) for v in y]
    else:
        out["per_seed"] = [[float(v) for v in row] for row in per_seed]
    if style:
        out["style"] = style
    return out


def lines(
    title: str,
    xlabel: str,
    ylabel: str,
    all_series: Sequence[dict],
    *,
    hlines=None,
    vlines=None,
    xscale: str = "linear",
    yscale: str = "linear",
    note: str | None = None,
) -> dict[str, Any]:
    return {
        "kind": "lines",
        "title": title,
        "xlabel": xlabel,
        "ylabel": ylabel,
        "series": list(all_series),
        "hlines": _ref(hlines),
        "vlines": _ref(vlines),
        "xscale": xscale,
        "yscale": yscale,
        "note": note,
    }


def bars(
    title: str,
    ylabel: str,
    groups: Sequence[str],
    all_series: Sequence[dict],
    *,
    hlines=None,
    yscale: str = "linear",
    note: str | None = None,
) -> dict[str, Any]:
    """``all_series``: [{"label": ..., "values": [...]} or {"label": ..., "per_seed": [[...] per group]}]."""
    return {
        "kind": "bars",
        "title": title,
        "ylabel": ylabel,
        "groups": list(groups),
        "series": list(all_series),
        "hlines": _ref(hlines),
        "vlines": [],
        "yscale": yscale,
        "note": note,
    }


def heatmap(
    title: str,
    xlabel: str,
    ylabel: str,
    x: Sequence,
    y: Sequence,
    values: Sequence[Sequence[float]],
    *,
    note: str | None = None,
) -> dict[str, Any]:
    return {
        "kind": "heatmap",
        "title": title,
        "xlabel": xlabel,
        "ylabel": ylabel,
        "x": list(x),
        "y": list(y),
        "values": [[float(v) for v in row] for row in values],
        "hlines": [],
        "vlines": [],
        "note": note,
    }
