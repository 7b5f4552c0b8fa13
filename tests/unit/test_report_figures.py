"""Figure specs of every kind drawn as PNG; malformed specs give a named error, never a crash."""

from __future__ import annotations

import base64
import io

import numpy as np
import pytest
from matplotlib import image

from lengthgen.report import figure_specs as figures
from lengthgen.report.figures import FigureError, render, render_record


def pixels(png: bytes) -> np.ndarray:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return image.imread(io.BytesIO(png), format="png")


def distinct_colours(png: bytes) -> int:
    rgb = (pixels(png)[..., :3] * 255).astype(np.uint8).reshape(-1, 3)
    return len(np.unique(rgb, axis=0))


SPECS = {
    "lines_per_seed": figures.lines(
        "accuracy",
        "L",
        "acc",
        [
            figures.series("RoPE", [12, 16, 20], per_seed=[[1, 1, 0.9], [1, 0.98, 0.8]]),
            figures.series("APE", [12, 16, 20], y=[1, 1, 0.05], style="dashed"),
        ],
        hlines=[(0.05, "chance")],
        vlines=[(16, "Lmax")],
        note="a caption",
    ),
    "lines_log": figures.lines(
        "1/a*",
        "L-1",
        "1/a*",
        [figures.series("fit", [1, 10, 100], y=[1, 2, 30], style="points")],
        xscale="log",
        yscale="log",
    ),
    "many_series": figures.lines("many", "x", "y", [figures.series(f"s{i}", [0, 1], y=[i, i + 1]) for i in range(40)]),
    "bars": figures.bars(
        "fractions",
        "f",
        ["K=2", "K=3"],
        [{"label": "keys", "per_seed": [[0.8, 0.82], [0.7, 0.75]]}, {"label": "base", "values": [0.02, 0.02]}],
        hlines=[(0.65, "threshold")],
    ),
    "heatmap": figures.heatmap("grid", "L", "seed", [20, 24], [0, 1, 2], [[1, 2], [3, float("nan")], [5, 6]]),
}


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_kind_draws_a_non_blank_png(name):
    png, caption = render(SPECS[name])
    assert distinct_colours(png) >= 8  # a small palette (figures.PALETTE), not a blank image
    if name == "lines_per_seed":
        assert caption.startswith("a caption") and "min to max over seeds" in caption
    if name == "many_series":
        assert "grey: the other 40 series" in caption  # more series than a legend can name: grey, one entry
    if name == "bars":
        assert "one per seed" in caption


@pytest.mark.parametrize("name", sorted(SPECS))
def test_a_figure_is_drawn_once_and_as_tight_layout_leaves_it(name, monkeypatch):
    """render() lays the figure out with tight_layout and then drops the layout engine, so that savefig draws
    once (not a layout pass and a draw): the PNG equals the one savefig writes with the engine left in place."""
    import functools

    from matplotlib.figure import Figure

    png, _ = render(SPECS[name])
    draws = []
    draw, set_engine = Figure.draw, Figure.set_layout_engine

    @functools.wraps(draw)
    def counted(fig, renderer):
        draws.append(1)
        return draw(fig, renderer)

    def kept(fig, layout=None, **kwargs):  # every engine but None: tight_layout's placeholder stays
        return None if layout is None else set_engine(fig, layout, **kwargs)

    monkeypatch.setattr(Figure, "draw", counted)
    render(SPECS[name])
    assert len(draws) == 1
    monkeypatch.setattr(Figure, "draw", draw)
    monkeypatch.setattr(Figure, "set_layout_engine", kept)
    assert render(SPECS[name])[0] == png


def coloured(png: bytes) -> int:
    """Pixels of a saturated colour: the series' line (the axes and text are grey)."""
    rgb = pixels(png)[..., :3]
    return int(((rgb.max(-1) - rgb.min(-1)) > 0.2).sum())


def test_none_values_draw_as_gaps():
    """claims.json stores NaN as null: the line breaks around it (drawn as 0 it would be as long as the rest)."""

    def drawn(y) -> int:
        spec = figures.lines("gaps", "x", "y", [figures.series("s", [0, 1, 2, 3], y=[0, 1, 2, 3])])
        spec["series"][0]["y"] = y
        return coloured(render(spec)[0])

    whole, gap, zero = drawn([0, 1, 2, 3]), drawn([0, None, 2, 3]), drawn([0, 0, 2, 3])
    assert gap < 0.6 * whole and zero > 0.9 * whole, (gap, whole, zero)  # two of three segments missing


@pytest.mark.parametrize(
    "spec, message",
    [
        ({"kind": "pie"}, "unknown figure kind 'pie'"),
        ("not a dict", "got str"),
        ({"kind": "lines", "series": [{"label": "a", "x": [1, 2]}]}, "neither y nor per_seed"),
        ({"kind": "lines", "series": [{"label": "a", "x": [1, 2], "y": [1]}]}, "1 y values for 2 x values"),
        ({"kind": "lines", "series": [{"label": "a", "x": [1, 2], "per_seed": [[1, 2], [1]]}]}, "per_seed"),
        ({"kind": "lines", "series": [{"label": "a", "x": [1], "y": [1], "style": "wavy"}]}, "unknown style 'wavy'"),
        ({"kind": "bars", "groups": ["a"], "series": [{"label": "b", "values": [1, 2]}]}, "2 values for 1 groups"),
        ({"kind": "heatmap", "x": [1, 2], "y": [1], "values": [[1]]}, "shape"),
        ({"kind": "lines", "series": [{"label": "a", "x": ["one"], "y": [1]}]}, "not numbers"),
    ],
)
def test_malformed_specs_name_the_problem(spec, message):
    with pytest.raises(FigureError, match=message.replace("(", r"\(")):
        render(spec)


def test_render_record_keeps_going_past_a_broken_spec():
    out = render_record({"bad": {"kind": "pie", "title": "Pie"}, "good": SPECS["lines_log"]})
    assert [r.name for r in out] == ["bad", "good"]
    assert out[0].png_base64 is None and "pie" in out[0].error and out[0].title == "Pie"
    assert out[1].error is None and distinct_colours(base64.b64decode(out[1].png_base64)) >= 8


def test_drawings_are_reused_and_pruned(tmp_path, monkeypatch):
    from lengthgen.report import figure_specs as specs
    from lengthgen.report import figures as drawing

    first = specs.lines("a", "x", "y", [specs.series("s", [1, 2], y=[0.1, 0.2])])
    second = specs.lines("b", "x", "y", [specs.series("s", [1, 2], y=[0.3, 0.2])])
    drawn = drawing.render_record({"one": first, "two": second}, tmp_path)
    assert all(r.png_base64 for r in drawn) and len(list(tmp_path.glob("*.json"))) == 2

    def refuse(spec):
        raise AssertionError("a kept drawing was drawn again")

    monkeypatch.setattr(drawing, "render", refuse)
    again = drawing.render_record({"one": first, "two": second}, tmp_path)
    assert [r.png_base64 for r in again] == [r.png_base64 for r in drawn]
    drawing.prune_drawings(tmp_path, {drawing.spec_key(first)})
    assert [p.stem for p in tmp_path.glob("*.json")] == [drawing.spec_key(first)]
