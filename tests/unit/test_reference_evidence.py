"""The recorded reference run (tests/data/claims-reference.json.gz) read by the evidence rules: the number shown is
the one that decides, a flip resting on one seed is within noise, and the robustness map compares each width with
itself."""

from __future__ import annotations

import functools
from pathlib import Path

from lengthgen.analysis.curve import curve
from lengthgen.report.curve import curve_lines
from lengthgen.analysis.outcome import Outcome, relation
from lengthgen.analysis.robustness import spreads
from lengthgen.report.robustness import map_lines
from lengthgen.analysis.run_view import RunView

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "claims-reference.json.gz"


@functools.lru_cache(maxsize=1)
def view() -> RunView:
    return RunView.from_json(REFERENCE)


def test_the_deciding_check_is_the_one_most_seeds_fail_and_shows_its_worst_seed():
    tests = {(r.claim, r.variant): r for r in view().records}
    c13 = tests["C13", "d64"].deciding
    assert c13.name.startswith("RoPE L=48:") and c13.seed_count_text == "3 of 5 seeds at -40", c13
    p1 = tests["P1", ""].deciding
    assert p1.name.startswith("K=1 L=128:") and p1.seed_count_text == "8 of 8 seeds at -101", p1
    c12 = tests["C12", "d64"].deciding
    assert c12.value == min(c12.values) and c12.seed_count_text == "3 of 5 seeds at 0.5218", c12


def test_c16_under_flax_rests_on_one_seed_of_five_and_is_within_noise():
    c = curve(view(), "C16")
    flax = next(p for p in c.points if p.universe == "init=flax")
    assert not flax.reproduces and flax.outcome is Outcome.WITHIN_NOISE and flax.count == "1 of 5 seeds at 550", flax
    assert c.summary().endswith("the 1 other within the seeds' noise"), c.summary()
    shown = "\n".join(curve_lines(c))
    assert "1 of 5 seeds at 550" in shown and "[-71.19, 451.2]" not in shown, shown


def test_the_robustness_map_compares_each_width_with_itself():
    run = view()
    found = spreads(list(run.robustness), list(run.records), run.catalogue)
    for claim in ("C12", "C13"):
        spread = found[claim]
        assert spread.reference.variant == "d96", (claim, spread.reference.variant)
        assert [relation(cell, spread.reference) for _, cell in spread.cells] == [Outcome.HOLDS], spread.text()
    lines = map_lines(list(run.robustness), details=False, catalogue=run.catalogue, records=list(run.records))
    assert "C12: holds at 2 of 2 settings" in lines, lines


def test_a_fresh_seeds_failure_on_one_seed_is_within_noise():
    run = view()
    c3 = spreads(list(run.robustness), list(run.records), run.catalogue)["C3"]
    fresh = dict(c3.cells)["fresh-seeds"]
    assert not fresh.reproduces and relation(fresh, c3.reference) == Outcome.WITHIN_NOISE
