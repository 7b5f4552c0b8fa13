"""Draw the figure specs of ``lengthgen.report.figure_specs`` (lines, bars, heatmap) as PNG images, generically.

Drawn for a reader: a legend of at most :data:`LEGEND_MAX` entries below the axes, the reference lines' labels
outside the axes (never on the data), and, where a spec holds more series than a legend can name (one line per
seed), the series that stray from the rest (``lengthgen.analysis.strays``) named and coloured and the others grey.
Every PNG is stored with a small palette (:func:`compact_png`), so that the page stays light.

Every claim records its figures as specs (plain data); nothing here knows a claim. Matplotlib's
object API with the Agg canvas (no pyplot state, no display, no network). A spec that cannot be drawn
does not stop the report: :func:`render_record` returns the error in its place, and the page shows it.
Matplotlib is heavy, and imported inside the functions that need it (those that draw, and ``drawing_key`` for
its version): importing the report (``lengthgen diff``, ``lengthgen multiverse``, the markdown summary, the
claim tests' ``figure_specs``) does not load it.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import textwrap
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from lengthgen.analysis.strays import most_astray, strays
from lengthgen.records.verdicts import SHOWN, look
from lengthgen.report.text import num
from lengthgen.store.files import atomic_write, files_fingerprint

SIZE = (5.6, 3.8)  # inches, one figure (the legend sits below the axes)
DPI = 90  # 504 x 342 pixels: legible in a two-column grid, small as base64
TITLE_WRAP = 60  # characters per line of a figure's title (a longer one would be cut at the figure's edges)
LABEL_WRAP = 16  # characters per line of a horizontal line's label, right of the axes
LEGEND_MAX = 8  # legend entries at most: beyond it a reader cannot match colours to names
LEGEND_COLUMNS = 4  # legend entries per row below the axes
PALETTE = 16  # colours of a stored PNG: lines and text on white need few (compact_png)
GREY = "0.62"  # the series that do not stray
GREY_MARKERS = ("o", "s", "^", "v", "D", "P", "X")  # one per grey group, so groups differ by shape as well
SEED_TOKEN = r"[\s,;]*\bseeds?\s*=?\s*\d+\b"  # "seed=3" in a series label: the grey groups of :func:`_lines`
ANNOTATE_CELLS = 120  # heatmaps with at most this many cells print their values
BAND_ALPHA = 0.2  # opacity of the min-max band over seeds
REF_TEXT = {"textcoords": "offset points", "fontsize": 7, "color": "0.25", "annotation_clip": False}  # reference labels
STYLES = {
    None: {},
    "solid": {},
    "dashed": {"linestyle": "--"},
    "dotted": {"linestyle": ":"},
    "points": {"linestyle": "none", "marker": "o", "markersize": 4},
}


class FigureError(ValueError):
    """A figure spec that cannot be drawn (the message names what is wrong)."""


@dataclass(frozen=True)
class Rendered:
    name: str  # the name the claim gave the figure
    title: str
    png_base64: str | None  # the image, or None if it could not be drawn
    caption: str  # the spec's note and how per-seed data is shown
    error: str | None = None  # why it could not be drawn


def _floats(values: Any, what: str) -> np.ndarray:
    """``values`` (a list, or a list of rows) as floats, None as NaN (numpy's conversion to float does both)."""
    try:
        return np.array(values, dtype=float)
    except (TypeError, ValueError) as error:
        raise FigureError(f"{what}: not numbers ({error})") from None


def _colors(count: int) -> list:
    from matplotlib import colormaps  # heavy: only when drawing (module docstring)

    cmap = colormaps["tab10" if count <= 10 else "tab20"]
    return [cmap(i % cmap.N) for i in range(count)]


def compact_png(png: bytes, colours: int | None = PALETTE) -> bytes:
    """The same picture on white, optimised, with a palette of ``colours`` colours (None: every colour kept, for a
    picture whose colours must stay exact): a fraction of the bytes of matplotlib's RGBA PNG."""
    from PIL import Image  # matplotlib's own image dependency; heavy: only when drawing

    image = Image.open(io.BytesIO(png))
    flat = Image.new("RGB", image.size, "white")
    flat.paste(image, mask=image.getchannel("A") if image.mode == "RGBA" else None)
    out = io.BytesIO()
    picture = flat if colours is None else flat.quantize(colours, method=Image.Quantize.FASTOCTREE)
    picture.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _references(ax, spec: Mapping[str, Any]) -> None:
    """Reference lines, each labelled outside the axes (a horizontal line's label right of the axes, a vertical
    line's above them), so that no label lies on the data or is clipped by the axes."""
    for ref in spec.get("hlines") or []:
        ax.axhline(ref["at"], color="0.35", linestyle=":", linewidth=1)
        label = textwrap.fill(str(ref.get("label", "")), LABEL_WRAP)
        ax.annotate(
            label, (1, ref["at"]), xycoords=("axes fraction", "data"), xytext=(3, 0), ha="left", va="center", **REF_TEXT
        )
    for ref in spec.get("vlines") or []:
        ax.axvline(ref["at"], color="0.35", linestyle="--", linewidth=1)
        label = ref.get("label", "")
        above = (ref["at"], 1)  # the label's anchor: the line's x, the top of the axes
        ax.annotate(
            label, above, xycoords=("data", "axes fraction"), xytext=(0, 2), ha="center", va="bottom", **REF_TEXT
        )


def _legend(ax, count: int) -> str:
    """The legend below the axes (never on the data), at most :data:`LEGEND_MAX` entries; returns a caption
    remark when there are more entries than that (then no legend)."""
    if count == 0:
        return ""
    if count > LEGEND_MAX:
        return f"{count} series (legend omitted)"
    ax.legend(
        fontsize=7,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.16),
        ncol=min(count, LEGEND_COLUMNS),
        frameon=False,
        borderaxespad=0,
    )
    return ""


def _group(label: str) -> str:
    """A series' group: its label without the seed ("K=3 seed=4" -> "K=3")."""
    return re.sub(SEED_TOKEN, "", label).strip(" ,;") or "series"


def _lines(ax, fig, spec: Mapping[str, Any]) -> list[str]:
    remarks = []
    series = spec.get("series") or []
    colors = _colors(len(series))
    banded = False
    many = len(series) > LEGEND_MAX
    named = strays(series)[: LEGEND_MAX // 2] if many else []  # the series a reader must find, named
    groups = list(dict.fromkeys(_group(str(s.get("label", ""))) for s in series)) if many else []
    grouped = 0 < len(groups) <= LEGEND_MAX - len(named)  # else one grey entry for every other series
    highlight = _colors(max(len(named), 1))
    drawn_groups: set[str] = set()
    for i, s in enumerate(series):
        label = str(s.get("label", f"series {i}"))
        x = _floats(s.get("x", []), f"series {label!r} x")
        style = STYLES.get(s.get("style"))
        if style is None:
            raise FigureError(f"series {label!r}: unknown style {s.get('style')!r}")
        colour, shown, extra = colors[i], label, {}
        if many and i in named:
            colour, extra = highlight[named.index(i)], {"zorder": 4, "linewidth": 2}
            if "marker" in style:
                extra["markersize"] = 7
        elif many:
            group = _group(label) if grouped else "other series"
            colour, shown = GREY, (None if group in drawn_groups else group)
            drawn_groups.add(group)
            extra = {"zorder": 2, "linewidth": 1}
            if "marker" in style:
                marker = GREY_MARKERS[groups.index(group) % len(GREY_MARKERS)] if grouped else "o"
                extra.update(marker=marker, markersize=4)
        kwargs = {**style, **extra}
        if "y" in s:
            y = _floats(s["y"], f"series {label!r} y")
            if y.shape != x.shape:
                raise FigureError(f"series {label!r}: {len(y)} y values for {len(x)} x values")
            ax.plot(x, y, color=colour, label=shown if shown is not None else "_nolegend_", **kwargs)
            if many and i in named:
                _name_stray(ax, x, y, label, series, colour)
        elif "per_seed" in s:
            rows = _floats(s["per_seed"], f"series {label!r} per_seed")
            if rows.ndim != 2 or rows.shape[1] != len(x):
                raise FigureError(
                    f"series {label!r}: per_seed rows must each have {len(x)} values (got shape {tuple(rows.shape)})"
                )
            with np.errstate(all="ignore"):
                mean = np.nanmean(rows, axis=0)
            if shown is not None and rows.shape[0] > 1:
                shown = f"{shown} (n={rows.shape[0]})"
            ax.plot(x, mean, color=colour, label=shown if shown is not None else "_nolegend_", **kwargs)
            if rows.shape[0] > 1:
                ax.fill_between(
                    x, np.nanmin(rows, axis=0), np.nanmax(rows, axis=0), color=colour, alpha=BAND_ALPHA, linewidth=0
                )
                banded = True
        else:
            raise FigureError(f"series {label!r} has neither y nor per_seed")
    ax.set_xscale(spec.get("xscale") or "linear")
    ax.set_yscale(spec.get("yscale") or "linear")
    if banded:
        remarks.append("lines: mean over seeds; bands: min to max over seeds")
    if many:
        others = len(series) - len(named)
        what = ", ".join(str(series[i].get("label")) for i in named)
        remarks.append(
            (f"coloured and named: {what}, the series that stray from the rest; " if named else "")
            + f"grey: the other {others} series"
            + (
                " (one shape per group)"
                if grouped and any("marker" in (STYLES.get(s.get("style")) or {}) for s in series)
                else ""
            )
        )
    entries = len(ax.get_legend_handles_labels()[1])
    remarks.append(_legend(ax, entries))
    return remarks


def _name_stray(ax, x: np.ndarray, y: np.ndarray, label: str, series: list, colour) -> None:
    """Write a stray series' label beside its most astray point (where it leaves the others)."""
    point = most_astray(x, y, series)
    if point is None:
        return
    xi, yi = point
    ax.annotate(
        f"{label}: {num(yi)}",
        (xi, yi),
        xytext=(-6, 0),
        textcoords="offset points",
        ha="right",
        va="center",
        fontsize=8,
        color="black",
        fontweight="bold",
        zorder=5,
    )


def _bars(ax, fig, spec: Mapping[str, Any]) -> list[str]:
    groups = [str(g) for g in spec.get("groups") or []]
    series = spec.get("series") or []
    colors = _colors(len(series))
    width = 0.8 / max(len(series), 1)
    positions = np.arange(len(groups), dtype=float)
    spread = False
    for i, s in enumerate(series):
        label = str(s.get("label", f"series {i}"))
        at = positions - 0.4 + width * (i + 0.5)
        if "values" in s:
            heights = _floats(s["values"], f"series {label!r} values")
            if heights.shape != (len(groups),):
                raise FigureError(f"series {label!r}: {heights.size} values for {len(groups)} groups")
            ax.bar(at, heights, width, color=colors[i], label=label)
        elif "per_seed" in s:
            per_group = s["per_seed"]
            if len(per_group) != len(groups):
                raise FigureError(f"series {label!r}: per_seed has {len(per_group)} groups, expected {len(groups)}")
            seeds = [_floats(v, f"series {label!r} per_seed") for v in per_group]
            with np.errstate(all="ignore"):
                heights = np.array([np.nanmean(v) if v.size else np.nan for v in seeds])
            ax.bar(at, heights, width, color=colors[i], alpha=0.8, label=label)
            for x, v in zip(at, seeds):
                if v.size > 1:
                    ax.plot(np.full(v.shape, x), v, "o", color="black", markersize=2.5, alpha=0.7)
                    spread = True
        else:
            raise FigureError(f"series {label!r} has neither values nor per_seed")
    ax.set_xticks(positions)
    long_labels = sum(len(g) for g in groups) > 60
    ax.set_xticklabels(groups, rotation=30 if long_labels else 0, ha="right" if long_labels else "center", fontsize=8)
    ax.set_yscale(spec.get("yscale") or "linear")
    remarks = ["bars: mean over seeds; dots: one per seed"] if spread else []
    remarks.append(_legend(ax, len(series)))
    return remarks


def _heatmap(ax, fig, spec: Mapping[str, Any]) -> list[str]:
    values = _floats(spec.get("values") or [], "heatmap values")
    x, y = list(spec.get("x") or []), list(spec.get("y") or [])
    if values.ndim != 2 or values.shape != (len(y), len(x)):
        raise FigureError(f"heatmap values of shape {tuple(values.shape)} for {len(y)} rows (y) x {len(x)} columns (x)")
    image = ax.imshow(values, aspect="auto", cmap="viridis", origin="lower", interpolation="nearest")
    fig.colorbar(image, ax=ax, fraction=0.05, pad=0.02)
    step_x, step_y = max(1, len(x) // 16), max(1, len(y) // 16)
    ax.set_xticks(range(0, len(x), step_x), [str(v) for v in x[::step_x]], fontsize=8)
    ax.set_yticks(range(0, len(y), step_y), [str(v) for v in y[::step_y]], fontsize=8)
    if values.size <= ANNOTATE_CELLS:
        finite = values[np.isfinite(values)]
        middle = (finite.min() + finite.max()) / 2 if finite.size else 0.0
        for (i, j), v in np.ndenumerate(values):
            ax.text(
                j,
                i,
                num(v, 2),
                ha="center",
                va="center",
                fontsize=7,
                color="black" if np.isfinite(v) and v > middle else "white",
            )
    return []


DRAW = {"lines": _lines, "bars": _bars, "heatmap": _heatmap}


def _figure(size: tuple[float, float]):
    """A figure of ``size`` inches on the Agg canvas (no pyplot state) and its one axes."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # heavy: only when drawing (module docstring)
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, dpi=DPI)
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def _png(fig, colours: int) -> bytes:
    """The figure laid out (:func:`lay_out`), saved as PNG and stored with ``colours`` colours (:func:`compact_png`)."""
    lay_out(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI)
    return compact_png(buffer.getvalue(), colours)


def lay_out(fig) -> None:
    """tight_layout's margins, computed once, and then no layout engine on the figure: tight_layout leaves a
    placeholder engine behind, and savefig lays out and draws once more for any engine before it draws. The PNG
    is the same byte for byte with one draw fewer (``tests/unit/test_report_figures.py``)."""
    fig.tight_layout()
    fig.set_layout_engine(None)


def render(spec: Mapping[str, Any]) -> tuple[bytes, str]:
    """``(png_bytes, caption)`` of one spec; raises :class:`FigureError` naming what is wrong."""
    if not isinstance(spec, Mapping):
        raise FigureError(f"a figure spec is a dict from lengthgen.report.figure_specs, got {type(spec).__name__}")
    kind = spec.get("kind")
    if kind not in DRAW:
        raise FigureError(f"unknown figure kind {kind!r}; expected one of {', '.join(DRAW)}")
    fig, ax = _figure(SIZE)
    try:
        remarks = DRAW[kind](ax, fig, spec)
        _references(ax, spec)
    except FigureError:
        raise
    except Exception as error:  # a malformed spec surfaces as numpy/matplotlib errors: name the figure's kind
        raise FigureError(f"{kind} spec could not be drawn: {type(error).__name__}: {error}") from None
    title = textwrap.fill(str(spec.get("title", "")), TITLE_WRAP)
    ax.set_title(title, fontsize=10, pad=14 if spec.get("vlines") else 6)  # above the vertical lines' labels
    ax.set_xlabel(str(spec.get("xlabel", "")), fontsize=9)
    ax.set_ylabel(str(spec.get("ylabel", "")), fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(True, alpha=0.25)
    caption = " · ".join(part for part in [spec.get("note") or "", *remarks] if part)
    return _png(fig, PALETTE), caption


def drawing_key(data: Any, files: tuple[str, ...], *settings: Any) -> str:
    """A drawing's identity: its data (as sorted JSON), the package ``files`` that draw it, matplotlib's version
    and any ``settings`` the drawing is made with."""
    import matplotlib  # heavy: only for a drawing's key (module docstring)

    salt = ":".join([files_fingerprint(files), matplotlib.__version__, *(str(s) for s in settings)])
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha256(f"{salt}\n{text}".encode()).hexdigest()


def spec_key(spec: Mapping[str, Any]) -> str:
    """The drawing's identity: the spec, this renderer's code (with the stray test it colours by) and matplotlib's
    version."""
    return drawing_key(spec, ("report/figures.py", "analysis/strays.py"))


def kept_drawing(
    key: str, drawings: Path | None, draw: Callable[[], dict[str, str]], fields: tuple[str, ...] = ("png",)
) -> dict[str, str]:
    """The drawing kept under ``key`` in ``drawings`` (a JSON object holding ``fields``: the base64 PNG under
    "png", and what else ``draw`` returns), else ``draw()``'s, kept there for the next run (a warm rerun redraws
    nothing; a damaged file, or one that lacks a field, is drawn again). ``drawings`` None: drawn, kept nowhere.
    The one cache of the page's drawings: the claims' figures (:func:`cached_render`) and the multiverse's curves
    (``specification.cached_curve``)."""
    path = drawings / f"{key}.json" if drawings is not None else None
    if path is not None and path.exists():
        try:
            stored = json.loads(path.read_text())
            if isinstance(stored, dict) and all(field in stored for field in fields):
                return stored
        except (OSError, ValueError):
            pass  # a damaged drawing is drawn again
    drawn = draw()
    if path is not None:
        atomic_write(path, json.dumps(drawn))
    return drawn


def cached_render(spec: Mapping[str, Any], cache_dir: Path | None) -> tuple[str, str]:
    """``(png_base64, caption)`` of a spec, reusing an earlier drawing of the same spec from ``cache_dir``
    (:func:`kept_drawing`); raises :class:`FigureError` like :func:`render`."""

    def draw() -> dict[str, str]:
        png, caption = render(spec)
        return {"png": base64.b64encode(png).decode("ascii"), "caption": caption}

    kept = kept_drawing(spec_key(spec), cache_dir, draw, ("png", "caption"))
    return kept["png"], kept["caption"]


def render_record(figures: Mapping[str, Any], cache_dir: Path | None = None) -> list[Rendered]:
    """Every figure of one record, in the order recorded; a spec that fails carries its error.

    ``cache_dir``: where drawings are kept between runs, keyed by :func:`spec_key`.
    """
    out = []
    for name, spec in figures.items():
        title = str(spec.get("title", name)) if isinstance(spec, Mapping) else name
        try:
            png, caption = cached_render(spec, cache_dir)
            out.append(Rendered(name, title, png, caption))
        except FigureError as error:
            out.append(Rendered(name, title, None, "", str(error)))
    return out


def prune_drawings(cache_dir: Path, keep: set[str]) -> None:
    """Delete the kept drawings of specs that no longer appear (``keep``: their keys)."""
    for path in cache_dir.glob("*.json"):
        if path.stem not in keep:
            path.unlink(missing_ok=True)


FOREST_CLIP = 100.0  # standard errors: margins beyond are drawn at the edge, marked as beyond
FOREST_LINEAR = 3.0  # the symlog axis is linear within +-this many standard errors (the close region)
FOREST_ROW_IN = 0.21  # inches per claim row
FOREST_WIDTH_IN = 11.0
FOREST_MARKER = 9  # points: a verdict's shape must read at a glance
FOREST_PALETTE = 64  # the overview's colours: enough that its verdict colours stay as they are (one image)
DEPENDS_MARK = "\u2020"  # after a row's label: its verdict depends on a reading (a dagger)
DEPENDS_NOTE = "the verdict changes under another reading of a choice the paper leaves open"


def forest(rows: list[Mapping[str, Any]]) -> tuple[bytes, str]:
    """The overview: one row per claim, its deciding check's margin to the threshold in standard errors
    (positive: the check holds) with its deciding interval in the same units, coloured by verdict.

    A row is ``{"label", "verdict", "close", "kind", "margin", "low", "high", "passed", "depends"}``;
    ``kind``: "interval" (drawn at its margin), "exact" or "none" (an exact computation, or a check without
    an interval: every seed must pass, an identity; drawn as a marker at the edge of its side, labelled);
    ``depends`` (optional): the verdict changes under another reading of an open choice (the multiverse):
    the label gets :data:`DEPENDS_MARK` and the legend and caption say what it means.
    Returns ``(png_bytes, caption)``.
    """
    from matplotlib.lines import Line2D  # heavy: only when drawing (module docstring)

    if not rows:
        raise FigureError("the overview needs at least one claim with a check")
    height = max(2.6, 1.6 + FOREST_ROW_IN * len(rows))
    fig, ax = _figure((FOREST_WIDTH_IN, height))
    edge = FOREST_CLIP * 0.6

    def clip(value: float) -> float:
        return float(np.clip(value, -FOREST_CLIP, FOREST_CLIP))

    ax.axvspan(-2, 2, color="#fff1e0", zorder=0)
    ax.axvline(0, color="0.2", linewidth=1.2, zorder=1)
    for y, row in enumerate(rows):
        shown = look(row.get("verdict"))  # the verdict's colour and shape (lengthgen.records.verdicts)
        colour, marker = shown.colour, shown.marker
        kind = row.get("kind")
        face = "white" if row.get("close") else colour
        if kind == "interval":
            low, high, x = clip(row["low"]), clip(row["high"]), clip(row["margin"])
            ax.plot([low, high], [y, y], color=colour, linewidth=2.2, solid_capstyle="butt", zorder=2)
            # drawn at the edge: say it lies beyond
            label = f"{'>' if x > 0 else '<'} {FOREST_CLIP:g}" if abs(row["margin"]) >= FOREST_CLIP else None
        else:
            x = edge if row.get("passed") else -edge
            label = "exact" if kind == "exact" else "no interval"
        ax.plot(
            [x],
            [y],
            marker=marker,
            markersize=FOREST_MARKER,
            color=colour,
            markerfacecolor=face,
            markeredgewidth=1.6,
            zorder=3,
        )
        if label is not None:  # on the inner side of the marker, inside the axes
            ax.annotate(
                label,
                (x, y),
                xytext=(-8 if x > 0 else 8, 0),
                textcoords="offset points",
                va="center",
                ha="right" if x > 0 else "left",
                fontsize=7,
                color="0.3",
            )
    ax.set_xscale("symlog", linthresh=FOREST_LINEAR, linscale=1.5)
    ax.set_xlim(-FOREST_CLIP * 1.3, FOREST_CLIP * 1.3)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_yticks(range(len(rows)), [depends_label(r) for r in rows], fontsize=8)
    ticks = [-100, -30, -10, -3, -2, -1, 0, 1, 2, 3, 10, 30, 100]
    ax.set_xticks(ticks, [str(t) for t in ticks], fontsize=8)
    ax.tick_params(axis="x", top=True, labeltop=True)  # the axis on the first screen too, above the rows
    ax.grid(True, axis="x", alpha=0.25)
    ax.set_xlabel(
        "deciding check: (statistic - threshold) / standard error, signed so that > 0 means the check "
        "holds; bar: its deciding interval",
        fontsize=9,
    )
    ax.set_title(
        "Every claim at a glance: how far its deciding check is from the threshold (standard errors; > 0 holds)",
        fontsize=10,
    )
    seen = [v for v in SHOWN if any(r.get("verdict") == v for r in rows)]
    handles = [Line2D([], [], color=v.colour, marker=v.marker, linewidth=2, label=v.value) for v in seen]
    handles += [
        Line2D([], [], color="0.3", marker="o", markerfacecolor="white", linewidth=0, label="close (open marker)"),
    ]
    depends = any(r.get("depends") for r in rows)
    if depends:
        handles.append(Line2D([], [], linewidth=0, label=f"{DEPENDS_MARK} verdict depends on a reading"))
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    caption = (
        "marker: the verdict, by colour and by shape (legend); bar: the deciding check's interval (95%, or the "
        "--lengthgen-until-decided level), in standard errors; "
        f"one row per claim test; the axis is linear within +-{FOREST_LINEAR:g} standard errors and "
        f"logarithmic beyond, clipped at +-{FOREST_CLIP:g} (marked '> {FOREST_CLIP:g}'); "
        "shaded: within 2 standard errors; "
        "an open marker is a close call (its deciding interval contains the threshold); exact and "
        "interval-free checks sit at the edge of their side"
    )
    if depends:
        caption += (
            f"; {DEPENDS_MARK} after a label: {DEPENDS_NOTE} (the multiverse grid and the claims table say which)"
        )
    return _png(fig, FOREST_PALETTE), caption


def depends_label(row: Mapping[str, Any]) -> str:
    """A forest row's label, with :data:`DEPENDS_MARK` when its verdict depends on a reading."""
    return str(row["label"]) + (f" {DEPENDS_MARK}" if row.get("depends") else "")
