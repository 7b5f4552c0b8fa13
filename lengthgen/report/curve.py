"""A claim's specification curve drawn: as text (``lengthgen multiverse --curve C8``) and as a figure
(``lengthgen multiverse --curve CLAIM --out PATH``), from the :class:`lengthgen.analysis.curve.Curve` computed
over a recorded run; matplotlib only inside :func:`curve_png`.

- :func:`effect_line`: one main effect in a line;
- :func:`curve_lines`: the curve as text;
- :func:`curve_png`: the curve as a figure.
"""

from __future__ import annotations

import math
from pathlib import Path

from lengthgen.analysis.curve import GREY, SUITE_MARK, Curve, Effect, main_effects, matrix_rows
from lengthgen.analysis.outcome import Outcome
from lengthgen.analysis.multiverse import PAPER
from lengthgen.readings import READINGS
from lengthgen.records.verdicts import label
from lengthgen.report import text
from lengthgen.report.figures import lay_out


def effect_line(e: Effect) -> str:
    """One main effect in a line: "ape-rows=zero: -32 [-41.6, -22.4] over 1 pair: consequential" (with the pairs'
    spread when there are several)."""
    spread = f"; pairs {text.num(e.spread[0], 3)} to {text.num(e.spread[1], 3)}" if e.pairs > 1 else ""
    plural = "s" if e.pairs != 1 else ""
    if not math.isfinite(e.half):
        return (
            f"{e.reading}: {e.mean:+.4g} over {e.pairs} pair{plural}{spread}: worst seed against worst seed, no "
            "interval (the cells' failing seeds are compared with the paper's point)"
        )
    low, high = e.mean - e.half, e.mean + e.half
    mark = "consequential" if e.consequential else "within the seeds' noise"
    return f"{e.reading}: {e.mean:+.4g} [{low:+.4g}, {high:+.4g}] over {e.pairs} pair{plural}{spread}: {mark}"


def curve_lines(curve: Curve) -> list[str]:
    """The curve as text: a header with the check and its threshold, one line per universe by value (its
    number, value, 95% interval, pass / FAIL or "ruled out", verdict), the matrix of readings (a column per
    universe, by number), and :meth:`Curve.summary`."""
    points = curve.points
    needs = text.threshold_text(curve.op, curve.threshold)
    lines = [
        f"{curve.column}: specification curve of {curve.check!r} (needs {needs}); {len(points)} universes by value"
    ]
    wide = max(len("universe"), *(len(p.universe) for p in points))
    head = f"  {'#':>3}  {'universe':<{wide}}  {'value':>10}  {'95% interval / seeds':<22}  {'check':<9}  verdict"
    lines.append(head)
    for i, p in enumerate(points, 1):
        interval = f"[{text.num(p.ci95[0], 4)}, {text.num(p.ci95[1], 4)}]" if p.ci95 is not None else ""
        interval = p.count or interval
        mark = Outcome.RULED_OUT if p.ruled_out else "pass" if p.passed else "n/a" if p.value is None else "FAIL"
        verdict = "excluded from the count" if p.ruled_out else label(p.verdict, p.close)
        noise = p.outcome is Outcome.WITHIN_NOISE and not p.close
        verdict += "; within the seeds' noise of the paper's point" if noise else ""
        lines.append(
            f"  {i:>3}  {p.universe:<{wide}}  {text.num(p.value, 4):>10}  {interval:<22}  {mark:<9}  {verdict}"
        )
    rows = matrix_rows(points)
    widths = [max(len(str(i + 1)), *(len(marks[i]) for _, marks in rows)) for i in range(len(points))]
    first = max(len("choice"), *(len(name) for name, _ in rows))
    lines.append(f"readings by universe (columns numbered as above; {SUITE_MARK} the suite's reading)")
    lines.append(f"  {'choice':<{first}}  " + "  ".join(f"{i + 1:>{w}}" for i, w in enumerate(widths)))
    for name, marks in rows:
        lines.append(f"  {name:<{first}}  " + "  ".join(f"{m:>{w}}" for m, w in zip(marks, widths)))
    effects = main_effects(curve)
    if effects:
        lines.append("main effects on the value (each reading against the suite's reading, matched universes):")
        lines += [f"  {effect_line(e)}" for e in effects]
    lines.append(curve.summary())
    return lines


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
