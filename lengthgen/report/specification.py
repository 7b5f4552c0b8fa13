"""The multiverse's answer on the page (Simonsohn, Simmons & Nelson 2020; Boba, Liu et al. 2020): per row of the
multiverse grid its specification curve (:mod:`lengthgen.report.curve`: the deciding check in every universe,
sorted, the ruled-out ones greyed, the matrix of readings beneath), the joint answer "reproduced in N of M
admissible universes" and the choices it hinges on (the consequential main effects); then what the paper's
stated numbers say about its readings (:func:`lengthgen.report.stated_numbers.stated_view`: the universes ranked,
the reading each choice's numbers favour, the untrained baselines).

Everything is read off the run's records; the curves are drawn once per curve and kept beside the page like the
claims' figures (:func:`cached_curve`), so a rerun that records the same cells redraws nothing. No torch.
"""

from __future__ import annotations

import base64
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from lengthgen.analysis.curve import Curve, curve, main_effects
from lengthgen.report.curve import curve_png, effect_line
from lengthgen.report.figures import kept_drawing, drawing_key
from lengthgen.analysis.outcome import column_of
from lengthgen.analysis.run_view import RunView

CURVE_DPI = 72  # the curves' resolution: a point a pixel, so their 7-8 pt labels stay legible; the page scales each
# to its width anyway, and holds one per multiverse row, so fewer pixels than matplotlib's 100 dpi keep it light


@dataclass(frozen=True)
class CurveView:
    """One row's curve on the page."""

    column: str  # the multiverse row (a claim, or "<id>-<variant>" run apart)
    key: str  # its drawing's key (:func:`curve_key`)
    summary: str  # "reproduced in N of M admissible universes"
    check: str  # the deciding check the curve plots
    hinges_on: tuple[str, ...]  # the readings whose main effect excludes 0 ("consequential")
    effects: tuple[str, ...]  # every main effect in one line each
    png: str | None  # the figure, base64 (None when it could not be drawn)
    error: str | None  # why not
    changes: bool  # some admissible universe does not reproduce it while the paper's point does, or the reverse


def curve_key(found: Curve) -> str:
    """The drawing's identity: the curve's data, the drawing code, matplotlib's version and :data:`CURVE_DPI`."""
    return "curve-" + drawing_key(asdict(found), ("report/curve.py", "analysis/curve.py"), CURVE_DPI)


def cached_curve(found: Curve, key: str, drawings: Path | None) -> str:
    """The curve's PNG at :data:`CURVE_DPI`, base64, reusing a drawing of the same curve (its ``key``) kept in
    ``drawings`` (``figures.kept_drawing``)."""

    def draw() -> dict[str, str]:
        import matplotlib  # heavy: only when drawing

        with tempfile.TemporaryDirectory() as scratch, matplotlib.rc_context({"savefig.dpi": CURVE_DPI}):
            return {"png": base64.b64encode(curve_png(found, Path(scratch) / "curve.png").read_bytes()).decode("ascii")}

    return kept_drawing(key, drawings, draw)["png"]


def ruled_out_view(column: str, universes: int) -> CurveView:
    """A row whose every recorded universe is ruled out: no curve, and the sentence that says why."""
    summary = f"ruled out in every universe this run holds ({universes}): no admissible universe ran its checks"
    return CurveView(column, "", summary, "", (), (), None, None, False)


def curve_views(run: RunView, drawings: Path | None = None) -> tuple[CurveView, ...]:
    """Every multiverse row's curve, by claim number (() without a multiverse part)."""
    columns = sorted(dict.fromkeys(column_of(c, run.catalogue) for c in run.multiverse), key=run.catalogue.column_order)
    views = []
    for column in columns:
        cells = [c for c in run.multiverse if column_of(c, run.catalogue) == column]
        if all(c.ruled_out is not None for c in cells):  # no universe ran its checks: nothing to plot
            views.append(ruled_out_view(column, len(cells)))
            continue
        found = curve(run, column)
        effects = main_effects(found)
        key = curve_key(found)
        try:
            png, error = cached_curve(found, key, drawings), None
        except (ValueError, OSError) as failure:  # a curve that cannot be drawn says why, the page still renders
            png, error = None, str(failure)
        views.append(
            CurveView(
                column,
                key,
                found.summary(),
                found.check,
                tuple(e.reading for e in effects if e.consequential),
                tuple(effect_line(e) for e in effects),
                png,
                error,
                found.changes,
            )
        )
    return tuple(views)
