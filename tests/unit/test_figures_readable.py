"""Figures and texts a reader can read: per-seed lines grey with the stray seed named, a legend of at most
figures.LEGEND_MAX entries, reference labels outside the axes, and numbers printed as numbers."""

from __future__ import annotations

import pytest

from lengthgen.report import figure_specs as specs
from lengthgen.report import figures
from lengthgen.analysis.strays import strays
from lengthgen.analysis.formats import plain_numbers, value_text
from lengthgen.records import Verdict
from lengthgen.report.page import claim_chips, counted, linked_answer, terms


def peak_spec() -> dict:
    """24 per-seed series as C8 records them; one seed (K=3 seed=4) peaks at 44 at L = 48."""
    out = []
    for k in (1, 2, 3):
        for seed in range(8):
            y = [10.0 + seed % 3, 12.0, 9.0, 11.0, 44.0 if (k, seed) == (3, 4) else 12.0]
            out.append(specs.series(f"K={k} seed={seed}", [20, 24, 32, 40, 48], y=y, style="points"))
    return specs.lines("peaks", "L", "position", out, hlines=[(16, "Lmax")])


def drawn_axes(spec: dict, monkeypatch):
    """The matplotlib axes render() drew (kept from its figure before it is saved)."""
    from matplotlib.figure import Figure

    kept = []
    add = Figure.add_subplot

    def keep(fig, *args, **kwargs):
        kept.append(add(fig, *args, **kwargs))
        return kept[-1]

    monkeypatch.setattr(Figure, "add_subplot", keep)
    _, caption = figures.render(spec)
    return kept[0], caption


def test_the_stray_seed_is_named_and_the_rest_grey(monkeypatch):
    ax, caption = drawn_axes(peak_spec(), monkeypatch)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert len(labels) <= figures.LEGEND_MAX, labels
    assert labels == ["K=1", "K=2", "K=3", "K=3 seed=4"]
    from matplotlib.colors import to_rgba

    lines = {line.get_label(): line for line in ax.get_lines()}
    assert to_rgba(lines["K=3 seed=4"].get_color()) != to_rgba(figures.GREY)
    greys = [line for line in ax.get_lines() if to_rgba(line.get_color()) == to_rgba(figures.GREY)]
    assert len(greys) == 23, len(greys)
    assert any(t.get_text() == "K=3 seed=4: 44" for t in ax.texts)  # named beside its point
    assert "K=3 seed=4, the series that stray" in caption


def test_no_stray_among_alike_seeds():
    series = [{"label": f"s{i}", "x": [0, 1], "y": [1.0 + 0.01 * i, 2.0]} for i in range(12)]
    assert strays(series) == []
    series[5] = {"label": "s5", "x": [0, 1], "y": [9.0, 2.0]}
    assert strays(series) == [5]


def test_reference_labels_sit_outside_the_axes(monkeypatch):
    spec = specs.lines(
        "acc",
        "L",
        "a",
        [specs.series("RoPE", [12, 16, 20], y=[1, 1, 0.9])],
        hlines=[(0.05, "chance")],
        vlines=[(16, "longest training length")],
    )
    ax, _ = drawn_axes(spec, monkeypatch)
    chance = next(t for t in ax.texts if t.get_text() == "chance")
    longest = next(t for t in ax.texts if t.get_text() == "longest training length")
    assert chance.xy[0] == 1 and chance.get_ha() == "left"  # right of the axes
    assert longest.xy[1] == 1 and longest.get_va() == "bottom"  # above the axes
    legend = ax.get_legend()
    assert legend is not None and legend.get_bbox_to_anchor().y0 < ax.get_window_extent().y0  # below the axes


@pytest.mark.parametrize(
    "value, shown",
    [
        ({"0": [0, 1, 2, 3, 4, 5, 6, 7], "0.0001": [0, 1, 2, 3, 4]}, "(0: 0-7; 0.0001: 0-4)"),
        ([3, 5, 8], "3, 5, 8"),
        (-3.0, "-3"),
        (0.000123456, "0.0001235"),
        ("flax", "flax"),
    ],
)
def test_values_print_as_numbers_never_a_repr(value, shown):
    assert value_text(value) == shown


def test_whole_numbers_read_alike_in_recorded_sentences():
    assert plain_numbers("measured -3 != -3.0 (per seed -37, -3)") == "measured -3 != -3 (per seed -37, -3)"
    assert plain_numbers("measured 44 < 16.0; 0.0001 and 3.11.0 stay") == "measured 44 < 16; 0.0001 and 3.11.0 stay"


def test_counts_agree_with_their_nouns():
    assert counted(1, "prediction", "reproduces", "reproduce") == "1 prediction reproduces"
    assert counted(3, "claim", "reproduces", "reproduce") == "3 claims reproduce"
    assert claim_chips([], "claim") == ()


def test_the_answer_links_its_terms():
    html = str(linked_answer("Open choices decide 6 verdicts; 4 differ within noise; init=gpt2 is ruled out & <b>"))
    assert 'Open choices<a class="term" href="#g-open-choice"' in html
    assert 'within noise<a class="term" href="#g-within-noise"' in html and "init=gpt2 is ruled out<a" in html
    assert "&amp; &lt;b&gt;" in html


def test_the_glossary_names_the_ruled_out_verdict_by_its_word():
    assert Verdict.RULED_OUT.value in {t.term for t in terms()}  # the term the answer links is the verdict's own word
