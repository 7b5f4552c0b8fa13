"""A claim's specification curve drawn: as text (``lengthgen multiverse --curve C8``) and as a figure
(``lengthgen multiverse --curve CLAIM --out PATH``), from the :class:`lengthgen.analysis.curve.Curve` computed
over a recorded run; matplotlib only inside :func:`curve_png`.

- :func:`effect_line`: one main effect in a line;
- :func:`curve_lines`: the curve as text;
- :func:`curve_png`: the curve as a figure.

The text's words and layout are templates (``templates/text/curve.txt.j2``, the main effect's line a macro of
``_curve.j2``); this module computes what they show (:class:`CurveText`), the numbers formatted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from lengthgen.analysis.curve import GREY, SUITE_MARK, Curve, CurvePoint, Effect, main_effects, matrix_rows
from lengthgen.analysis.outcome import Outcome
from lengthgen.analysis.multiverse import PAPER
from lengthgen.readings import READINGS
from lengthgen.records.verdicts import label
from lengthgen.report import text
from lengthgen.report.figures import lay_out
from lengthgen.report.templating import render_macro, render_lines

TEMPLATE = "text/curve.txt.j2"  # the curve's text (under report/templates)
PIECES = "text/_curve.j2"  # its pieces: a main effect's line


@dataclass(frozen=True)
class EffectText:
    """One main effect, its numbers formatted."""

    reading: str  # the reading's name
    mean: str  # the mean difference, signed ("+.4g")
    pairs: int  # matched pairs of universes
    spread: tuple[str, str] | None  # the smallest and largest pair difference, where there are several pairs
    interval: tuple[str, str] | None  # the 95% interval, signed; None without one (worst seed against worst seed)
    consequential: bool  # the interval excludes 0


@dataclass(frozen=True)
class PointText:
    """One universe's line."""

    universe: str  # the universe's name
    value: str  # the check's value ("n/a" where it was not measured)
    interval: str  # its failing seeds and worst value, else its 95% interval, else ""
    ruled_out: bool  # a precondition ruled the cell out (excluded from the count)
    measured: bool  # the check was measured there
    passed: bool  # the check held there
    verdict: str  # the cell's verdict as the report shows it ("reproduced (close)")
    noise: bool  # on the other side of the paper's point only within the seeds' noise, and no close call


@dataclass(frozen=True)
class CurveText:
    """What the curve's text shows."""

    column: str  # the multiverse's row: the claim, or "<id>-<variant>"
    check: str  # the deciding check's name
    needs: str  # its comparison and threshold in words
    points: tuple[PointText, ...]  # the universes by value
    ruled_out: str  # the check column's mark of a ruled-out universe (``Outcome.RULED_OUT``)
    suite_mark: str  # the matrix's mark of the suite's reading (``analysis.curve.SUITE_MARK``)
    matrix: tuple[tuple[str, tuple[str, ...]], ...]  # a row per choice: its name, its mark per universe
    widths: tuple[int, ...]  # the matrix's column widths, a column per universe
    effects: tuple[EffectText, ...]  # the readings' main effects on the value
    summary: str  # the curve in a sentence (``Curve.summary``)


def effect_text(e: Effect) -> EffectText:
    """``e`` with its numbers formatted."""
    spread = (text.num(e.spread[0], 3), text.num(e.spread[1], 3)) if e.pairs > 1 else None
    interval = (f"{e.mean - e.half:+.4g}", f"{e.mean + e.half:+.4g}") if math.isfinite(e.half) else None
    return EffectText(e.reading, f"{e.mean:+.4g}", e.pairs, spread, interval, e.consequential)


def effect_line(e: Effect) -> str:
    """One main effect in a line: "ape-rows=zero: -32 [-41.6, -22.4] over 1 pair: consequential" (with the pairs'
    spread when there are several)."""
    return render_macro(PIECES, "effect_line", effect_text(e))


def point_text(p: CurvePoint) -> PointText:
    """``p``'s line, its numbers formatted."""
    interval = f"[{text.num(p.ci95[0], 4)}, {text.num(p.ci95[1], 4)}]" if p.ci95 is not None else ""
    return PointText(
        universe=p.universe,
        value=text.num(p.value, 4),
        interval=p.count or interval,
        ruled_out=p.ruled_out,
        measured=p.value is not None,
        passed=p.passed,
        verdict=label(p.verdict, p.close),
        noise=p.outcome is Outcome.WITHIN_NOISE and not p.close,
    )


def curve_text(curve: Curve) -> CurveText:
    """What the text of ``curve`` shows."""
    points = curve.points
    rows = matrix_rows(points)
    return CurveText(
        column=curve.column,
        check=curve.check,
        needs=text.threshold_text(curve.op, curve.threshold),
        points=tuple(point_text(p) for p in points),
        ruled_out=Outcome.RULED_OUT.value,
        suite_mark=SUITE_MARK,
        matrix=tuple((name, tuple(marks)) for name, marks in rows),
        widths=tuple(max(len(str(i + 1)), *(len(marks[i]) for _, marks in rows)) for i in range(len(points))),
        effects=tuple(effect_text(e) for e in main_effects(curve)),
        summary=curve.summary(),
    )


def curve_lines(curve: Curve) -> list[str]:
    """The curve as text: a header with the check and its threshold, one line per universe by value (its
    number, value, 95% interval, pass / FAIL or "ruled out", verdict), the matrix of readings (a column per
    universe, by number), the readings' main effects and :meth:`Curve.summary`."""
    return render_lines(TEMPLATE, curve=curve_text(curve))


# ----------------------------------------------------------------------------------------------- the figure


def curve_png(curve: Curve, path: Path | str) -> Path:
    """Draw the curve as a PNG at ``path`` (Simonsohn et al.'s figure): above, the values by universe with
    their 95% intervals and the threshold (both bounds for "in"), reproduced green, other verdicts orange,
    ruled-out universes grey; below, the matrix of readings, a row per alternative reading. Returns the path."""
    import matplotlib  # heavy: only when drawing (module docstring)

    matplotlib.use("Agg")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    points = curve.points
    known = [r.name for r in READINGS]
    rows = known + list(dict.fromkeys(r for p in points for r in p.readings if r not in known))
    xs = range(1, len(points) + 1)
    fig = Figure(figsize=(max(6.4, 1.6 + 0.45 * len(points)), 3.6 + 0.22 * len(rows)), dpi=100)
    FigureCanvasAgg(fig)
    top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [3, 0.25 * len(rows) + 0.5]})
    for x, p in zip(xs, points):
        if p.ruled_out:
            top.axvspan(x - 0.5, x + 0.5, color=GREY, alpha=0.15, linewidth=0)
        if p.value is None:
            top.annotate(
                Outcome.RULED_OUT if p.ruled_out else "n/a",
                (x, 0.02),
                xycoords=("data", "axes fraction"),
                ha="center",
                rotation=90,
                fontsize=7,
                color=p.colour,
            )
            continue
        yerr = None
        if p.ci95 is not None:
            yerr = [[max(p.value - p.ci95[0], 0.0)], [max(p.ci95[1] - p.value, 0.0)]]
        top.errorbar([x], [p.value], yerr=yerr, fmt="o", color=p.colour, markersize=5, capsize=2)
    bounds = curve.threshold if curve.op == "in" else (curve.threshold,)
    for bound in bounds:
        top.axhline(float(bound), color="black", linestyle="--", linewidth=1)
    top.set_title(f"{curve.column}: {curve.check}", fontsize=9)
    top.set_ylabel(f"value (needs {text.threshold_text(curve.op, curve.threshold)})", fontsize=8)
    top.text(0.01, 0.98, curve.summary(), transform=top.transAxes, va="top", fontsize=8)
    top.grid(True, alpha=0.25)
    top.tick_params(labelsize=8)
    for x, p in zip(xs, points):
        taken = [rows.index(r) for r in p.readings]
        idle = [i for i in range(len(rows)) if i not in taken]
        bottom.scatter([x] * len(idle), idle, s=6, color="#d0d7de")
        bottom.scatter([x] * len(taken), taken, s=30, color=p.colour)
    bottom.set_yticks(range(len(rows)), rows, fontsize=7)
    bottom.set_ylim(len(rows) - 0.5, -0.5)
    bottom.set_xticks(list(xs), [PAPER if p.universe == PAPER else str(x) for x, p in zip(xs, points)], fontsize=7)
    bottom.set_xlim(0.5, len(points) + 0.5)
    bottom.set_xlabel("universe, by value (the paper's point takes no alternative reading)", fontsize=8)
    lay_out(fig)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    return path
