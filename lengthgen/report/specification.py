"""The multiverse's answer on the page (Simonsohn, Simmons & Nelson 2020; Boba, Liu et al. 2020): per row of the
multiverse grid its specification curve (:mod:`lengthgen.report.curve`: the deciding check in every universe,
sorted, the ruled-out ones greyed, the matrix of readings beneath), the joint answer "reproduced in N of M
admissible universes" and the choices it hinges on (the consequential main effects); then what the paper's
stated numbers say about its readings (:mod:`lengthgen.report.stated_numbers`: the universes ranked, the
reading each choice's numbers favour, the untrained baselines).

Everything is read off the run's records; the curves are drawn once per curve and kept beside the page like the
claims' figures (:func:`cached_curve`), so a rerun that records the same cells redraws nothing. No torch.
"""

from __future__ import annotations

import base64
import hashlib
import json
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Mapping

from lengthgen.report import text
from lengthgen.report.curve import Curve, Effect, curve, curve_png, main_effects
from lengthgen.report.multiverse import column_of
from lengthgen.report.run_view import RunView
from lengthgen.report.stated_numbers import PAPER, baseline_lines, by_choice, rank
from lengthgen.multiverse_cells import sort_key
from lengthgen.store.files import atomic_write, files_fingerprint

TOP_UNIVERSES = 8  # the ranking's rows shown on the page (the rest: `lengthgen multiverse --paper`)


@dataclass(frozen=True)
class CurveView:
    """One row's curve on the page."""

    column: str  # the multiverse row ("C8", "C12-d64")
    key: str  # its drawing's key (:func:`curve_key`)
    summary: str  # "reproduced in N of M admissible universes"
    check: str  # the deciding check the curve plots
    hinges_on: tuple[str, ...]  # the readings whose main effect excludes 0 ("consequential")
    effects: tuple[str, ...]  # every main effect in one line each
    png: str | None  # the figure, base64 (None when it could not be drawn)
    error: str | None  # why not
    changes: bool  # some admissible universe does not reproduce it while the paper's point does, or the reverse


def effect_line(e: Effect) -> str:
    """ "ape-rows=zero: -32 [-41.6, -22.4] over 1 pair: consequential"."""
    low, high = e.mean - e.half, e.mean + e.half
    mark = "consequential" if e.consequential else "within the seeds' noise"
    return (
        f"{e.reading}: {e.mean:+.4g} [{low:+.4g}, {high:+.4g}] over {e.pairs} pair{'s' if e.pairs != 1 else ''}: {mark}"
    )


def curve_key(found: Curve) -> str:
    """The drawing's identity: the curve's data, the drawing code and matplotlib's version."""
    import matplotlib  # heavy: only for a drawing's key

    salt = f"{files_fingerprint(('report/curve.py',))}:{matplotlib.__version__}"
    data = json.dumps(asdict(found), sort_keys=True, default=str)
    return "curve-" + hashlib.sha256(f"{salt}\n{data}".encode()).hexdigest()


def cached_curve(found: Curve, key: str, drawings: Path | None) -> str:
    """The curve's PNG, base64, reusing a drawing of the same curve (its ``key``) kept in ``drawings``."""
    path = drawings / f"{key}.json" if drawings is not None else None
    if path is not None and path.exists():
        try:
            return json.loads(path.read_text())["png"]
        except (OSError, ValueError, KeyError):
            pass  # a damaged drawing is drawn again
    with tempfile.TemporaryDirectory() as scratch:
        png = base64.b64encode(curve_png(found, Path(scratch) / "curve.png").read_bytes()).decode("ascii")
    if path is not None:
        atomic_write(path, json.dumps({"png": png}))
    return png


def curve_views(run: RunView, drawings: Path | None = None) -> tuple[CurveView, ...]:
    """Every multiverse row's curve, by claim number (() without a multiverse part)."""
    columns = sorted(dict.fromkeys(column_of(c) for c in run.multiverse), key=sort_key)
    views = []
    for column in columns:
        found = curve(run, column)
        effects = main_effects(found)
        admissible = [p for p in found.points if not p.ruled_out]
        changes = len({p.reproduces for p in admissible}) > 1
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
                changes,
            )
        )
    return tuple(views)


@dataclass(frozen=True)
class StatedView:
    """What the paper's stated numbers say about its readings."""

    ranking: tuple[tuple[str, int, int], ...]  # (universe, agree, compared), most agreeing first, the top rows
    more: int  # universes ranked below the rows shown
    at_paper: tuple[tuple[str, str, str, str], ...]  # (claim, quantity, paper, measured: agrees/DISAGREES)
    per_choice: tuple[str, ...]  # per reading run alone: the reading the numbers favour, or that they cannot tell
    baselines: tuple[str, ...]  # the untrained baselines under both definitions


def stated_view(data: Mapping[str, Any]) -> StatedView | None:
    """The stated numbers against the run's universes (None without a multiverse part)."""
    if not data.get("multiverse"):
        return None
    ranked = rank(data)
    paper = next((r for r in ranked if r.universe == PAPER), None)
    at_paper = ()
    if paper is not None:
        at_paper = tuple(
            (
                c.stated.claim,
                c.stated.quantity,
                c.stated.text,
                f"{c.measured}: {'agrees' if c.agrees else 'n/a' if c.agrees is None else 'disagrees'}",
            )
            for c in paper.comparisons
        )
    return StatedView(
        tuple((r.universe, r.agree, r.compared) for r in ranked[:TOP_UNIVERSES]),
        max(0, len(ranked) - TOP_UNIVERSES),
        at_paper,
        tuple(by_choice(ranked)),
        tuple(baseline_lines(data)),
    )


def share(agree: int, compared: int) -> str:
    """ "16 / 20"."""
    return f"{agree} / {compared}" if compared else text.num(None)
