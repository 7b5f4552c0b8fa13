"""The numbers the paper states (each claim's ``stated``, recorded in a run's catalogue) against a run
(lengthgen/report/stated_numbers.py, ``lengthgen multiverse --paper``): one agreement rule, a ranking by likelihood,
and a preference only where it survives the seeds' noise."""

from __future__ import annotations

import gzip
import json

import pytest

from lengthgen.catalogue import Stated
from lengthgen.records import ClaimRecord
from lengthgen.registry import Registry
from lengthgen.report import stated_numbers as sn
from lengthgen.report.run_view import RunView
from tests.helpers import DATA, registry

REFERENCE = DATA / "claims-reference.json.gz"
# how many numbers the paper states per grid column (its claims' "Numbers the paper states"), written out
STATED_PER_COLUMN = {"C3": 1, "C4": 3, "C11": 5, "C13": 2, "C14": 3, "C15": 1, "C17": 1, "C21": 2, "C22": 2}
BASELINE_WIDTHS = {"C4": 64, "C13": 96}  # the untrained baselines: the width d of their 1/d reading


@pytest.fixture(scope="module")
def run() -> dict:
    return json.loads(gzip.decompress(REFERENCE.read_bytes()))


def test_the_claims_state_the_catalogues_numbers_and_the_run_records_them(run):
    found = sn.numbers(registry().catalogue)
    assert {c: [n.column for n in found].count(c) for c in STATED_PER_COLUMN} == STATED_PER_COLUMN
    assert len(found) == sum(STATED_PER_COLUMN.values())
    assert {n.column: n.stated.baseline_width for n in found if n.stated.baseline_width} == BASELINE_WIDTHS
    assert all(n.stated.measures or n.stated.all_checks_pass for n in found)  # each names its measurement
    assert sn.numbers(Registry.from_data(run).catalogue) == found  # the run recorded them as they are
    assert sn.numbers(Registry().catalogue) == []  # a run without a catalogue states none


def test_every_stated_number_has_its_measurement_in_a_paper_scale_run(run):
    found = sn.table(RunView.from_json(run))
    for n in found.numbers:
        m = found.measured(sn.PAPER, n)
        assert m.agrees is not None, f"{n.name}: {m.why_not}"


def number(low: float, high: float | None = None, digits: int = 2, across: bool = False) -> sn.Number:
    measures = ("a", "b") if across else ("a",)
    stated = Stated("q", low, low if high is None else high, digits, "w", measures, across=across)
    return sn.Number("C4", "C4", stated)


def test_agreement_is_the_interval_meeting_the_value_widened_by_its_rounding():
    n = number(0.80)  # the window [0.795, 0.805]
    assert sn.agrees(n, [sn.SettingValues((0.806,))]) is False  # a point 0.001 beyond the rounding
    assert sn.agrees(n, [sn.SettingValues((0.805,))])
    assert sn.agrees(n, [sn.SettingValues((0.79, 0.83, 0.81))])  # its interval [0.760, 0.860] meets the window
    assert not sn.agrees(n, [sn.SettingValues((0.84, 0.85, 0.86))])  # [0.825, 0.875]: clear of it
    r = number(0.67, 0.79, across=True)  # a range across settings: every setting must lie in it
    assert sn.agrees(r, [sn.SettingValues((0.70,)), sn.SettingValues((0.794,))])
    assert not sn.agrees(r, [sn.SettingValues((0.70,)), sn.SettingValues((0.796,))])


def measured(n: sn.Number, universe: str, values: tuple[float, ...]) -> sn.Measured:
    found = (sn.SettingValues(values),)
    return sn.Measured(n, universe, None, found, sn.agrees(n, found))


def planted(paper: tuple[float, ...], **universes: tuple[float, ...]) -> sn.Table:
    """A table of one stated number (0.80) measured at the suite's readings and in each planted universe."""
    n = number(0.80)
    rows = {sn.PAPER: (measured(n, sn.PAPER, paper),)}
    rows.update({u: (measured(n, u, v),) for u, v in universes.items()})
    return sn.Table((n,), tuple(rows), rows)


SUITE = (0.70, 0.72, 0.71, 0.69, 0.70)  # clearly below 0.80: the suite's reading disagrees


def test_a_reading_whose_number_moves_far_beyond_the_noise_is_favoured():
    found = planted(SUITE, far=(0.80, 0.81, 0.79, 0.80, 0.80))
    p = sn.prefer(found, "far")
    assert found.discriminating and p.verdict == "favoured" and p.wins >= sn.FAVOURED
    worse = sn.prefer(planted((0.80, 0.81, 0.79, 0.80, 0.80), **{"init=flax": SUITE}), "init=flax")
    assert worse.verdict == "the suite's reading favoured"
    assert sn.preference_line(worse).startswith(
        "init=flax: the suite's reading favoured, PyTorch's one-layer defaults over Flax's one-layer initialisation ("
    )


def test_a_planted_tiny_difference_is_not_a_preference():
    suite = (0.79, 0.80, 0.81, 0.795, 0.80)
    near = tuple(v + 0.001 for v in suite)  # "other" disagrees, so the number discriminates
    found = planted(suite, near=near, other=SUITE)
    p = sn.prefer(found, "near")
    assert p.verdict == "tie" and p.moved and sn.FAVOURED > p.wins > 1 - sn.FAVOURED, p
    assert "a tie within the seeds' noise" in sn.preference_line(p)
    same = planted(SUITE, same=SUITE, other=(0.80,) * 5)
    assert sn.prefer(same, "same").verdict == "tie"  # it moves no number


def test_a_noisier_universe_is_not_preferred_for_its_width():
    """A count of agreements would reward a wide interval (it meets more values); the likelihood does not."""
    noisy = (0.55, 0.95, 0.60, 0.90, 0.55)  # mean 0.71 like the suite's, an interval that meets 0.80
    found = planted(SUITE, noisy=noisy)
    assert sn.agrees(found.numbers[0], found.measured("noisy", found.numbers[0]).found)  # it "agrees"
    assert sn.prefer(found, "noisy").verdict != "favoured"


def test_the_ranking_is_the_same_on_every_rerun():
    found = planted(SUITE, far=(0.80, 0.81, 0.79, 0.80, 0.80), noisy=(0.55, 0.95, 0.60, 0.90, 0.55))
    assert sn.prefer(found, "noisy") == sn.prefer(found, "noisy")
    assert [r.universe for r in sn.rank(found)][0] == "far"


def test_a_ruled_out_cell_does_not_compare_and_a_universe_that_compares_nothing_is_not_compared():
    n = number(0.80)
    ruled = ClaimRecord.from_dict({"claim": "C4", "verdict": "ruled out", "ruled_out": "x"})
    assert sn.measured_in(n, ruled, "init=gpt2").agrees is None
    assert sn.measured_in(n, None, "init=gpt2").why_not == "no record"
    rows = {
        sn.PAPER: (measured(n, sn.PAPER, SUITE),),
        "far": (measured(n, "far", (0.80,) * 3),),
        "init=gpt2": (sn.measured_in(n, ruled, "init=gpt2"),),
    }
    found = sn.Table((n,), tuple(rows), rows)
    assert sn.prefer(found, "init=gpt2").verdict == "not compared"


def test_the_reference_run_names_its_discriminating_numbers_and_baselines(run):
    found = sn.table(RunView.from_json(run))
    assert found.discriminating and set(found.discriminating).isdisjoint(found.agree_everywhere)
    lines = sn.baseline_lines(found)
    assert any(line.startswith("C4 baseline") and "1/d at d = 64 is 0.0156 (agrees)" in line for line in lines), lines


def test_the_cli_prints_it(tmp_path, capsys, run):
    from lengthgen.cli import main

    path = tmp_path / "claims.json"
    path.write_text(json.dumps(run))
    assert main(["multiverse", "--run", str(path), "--paper"]) == 0
    out = capsys.readouterr().out
    assert "stated numbers, each against the one measurement it names" in out and "the untrained baselines:" in out
    assert "each reading against the suite's" in out


def test_a_combination_reads_each_claim_through_the_readings_that_touch_it():
    """A reading that does not touch a claim leaves its models as they are: a one-layer claim under a combination of
    a one-layer and a two-layer reading is the one-layer reading's cell; a claim none of them touches, the paper's."""
    from lengthgen.readings import CellPlan
    from lengthgen.report.stated_numbers import record_in

    plan = CellPlan(
        (("lengths=per-batch", ("C1", "C12")), ("init=torch", ("C12",))),
        (("lengths=per-batch", "C1"), ("lengths=per-batch", "C12"), ("init=torch", "C12")),
    )
    paper = {"C1": {"at": "paper C1"}, "C4": {"at": "paper C4"}}
    cells = {("lengths=per-batch", "C1"): {"at": "lengths C1"}, ("lengths=per-batch+init=torch", "C12"): {"at": "both"}}
    both = "lengths=per-batch+init=torch"
    catalogue = registry().catalogue
    assert record_in(both, "C1", paper, cells, plan, catalogue) == {"at": "lengths C1"}
    assert record_in(both, "C12", paper, cells, plan, catalogue) == {"at": "both"}
    assert record_in(both, "C4", paper, cells, plan, catalogue) == {"at": "paper C4"}
    assert record_in("init=torch", "C12", paper, cells, plan, catalogue) is None  # planned, not recorded here


def test_the_ranking_calls_a_row_within_the_noise_of_the_first_a_tie():
    suite = (0.79, 0.80, 0.81, 0.795, 0.80)  # agrees with 0.80
    found = planted(suite, near=tuple(v + 0.001 for v in suite), far=SUITE)  # far (0.70) disagrees: discriminating
    ranked = sn.rank(found)
    versus = dict(zip((r.universe for r in ranked), sn.against_first(found, ranked)))
    assert versus[ranked[0].universe] == "the first" and {ranked[0].universe, ranked[1].universe} == {sn.PAPER, "near"}
    assert versus[ranked[1].universe].startswith("a tie (")
    assert versus["far"].startswith("below the first (") and ranked[-1].universe == "far"
