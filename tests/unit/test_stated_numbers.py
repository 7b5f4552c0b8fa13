"""The numbers the paper states (each claim's ``stated``, recorded in a run's catalogue) against a run
(lengthgen/analysis/stated_numbers.py, ``lengthgen multiverse --paper``): one probability that two runs differ by what
is seen (the paper's seeds and rounding counted), a bounded ranking, paired resamples, and a preference only where
it survives the seeds' noise on the numbers of two claims."""

from __future__ import annotations

import gzip
import json
import math

import numpy as np

import pytest

from lengthgen.catalogue import Stated
from lengthgen.records import ClaimRecord
from lengthgen.registry import Registry
from lengthgen.analysis import data
from lengthgen.analysis import stated_numbers as sn
from lengthgen.analysis.run_view import RunView
from lengthgen.stats import BOOTSTRAP_RESAMPLES, distinct_resamples
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


def number(
    low: float, high: float | None = None, digits: int = 2, across: bool = False, claim: str = "C4", seeds: int = 0
) -> sn.Number:
    measures = ("a", "b") if across else ("a",)
    stated = Stated("q", low, low if high is None else high, digits, "w", measures, across=across)
    return sn.Number(claim, claim, stated, seeds)


def test_the_probability_that_two_runs_differ_by_what_is_seen_by_hand():
    # two seeds 0.82, 0.84 against the paper's 0.80 over 8 seeds: s^2 = 0.0002, the gap's variance
    # 0.0002/2 + 0.0002/8 + 0.01^2/12 = 1.3333e-4, z = 0.03 / 0.011547 = 2.598; Student's t with 1 degree of
    # freedom is Cauchy: P(|T| >= z) = 1 - 2 atan(z) / pi = 0.2339
    z = 0.03 / math.sqrt(0.0002 / 2 + 0.0002 / 8 + 0.01**2 / 12)
    assert float(sn.probability(number(0.80, seeds=8), np.array([0.82, 0.84]))) == pytest.approx(
        1 - 2 * math.atan(z) / math.pi, rel=1e-9
    )
    assert 1 - 2 * math.atan(z) / math.pi == pytest.approx(0.2339, abs=1e-4)
    # an exact computation 0.806 against 0.80: the rounding alone, a uniform over [0.795, 0.805], variance
    # 0.01^2/12; normal: P(|Z| >= 0.006 / 0.0028868) = erfc(2.0785 / sqrt 2) = 0.0377
    exact = float(sn.probability(number(0.80), np.array([0.806])))
    assert exact == pytest.approx(math.erfc(0.006 / math.sqrt(0.01**2 / 12) / math.sqrt(2)), rel=1e-9)
    assert exact == pytest.approx(0.0377, abs=1e-4)
    # more paper seeds, less noise on the paper's side: the same gap is less likely
    many, few = (float(sn.probability(number(0.80, seeds=k), np.array([0.82, 0.84]))) for k in (100, 2))
    assert many < few


def test_agreement_is_the_probability_reaching_its_level_in_every_setting():
    n = number(0.80)
    assert not sn.agrees(n, [sn.SettingValues((0.806,))])  # 0.0377 < AGREE_P (above)
    assert sn.agrees(n, [sn.SettingValues((0.804,))])  # z = 1.386: 0.166
    assert sn.agrees(n, [sn.SettingValues((0.79, 0.83, 0.81))])
    assert not sn.agrees(n, [sn.SettingValues((0.84, 0.85, 0.86))])  # gap 0.05, s = 0.01: z = 5.5 on 2 df
    r = number(0.67, 0.79, across=True)  # a range across settings (widened to [0.665, 0.795]): every setting in it
    assert sn.agrees(r, [sn.SettingValues((0.70,)), sn.SettingValues((0.794,))])
    assert not sn.agrees(r, [sn.SettingValues((0.70,)), sn.SettingValues((0.796,))])  # a point 0.001 outside


def test_no_number_outweighs_the_rest():
    n = number(0.80)
    assert float(sn.log_score(n, [np.array([0.10])])) == pytest.approx(math.log(sn.LEAST_P))
    spans = number(0.67, 0.79, across=True)  # one number however many settings it spans
    far = [np.array([0.10])] * 9
    assert float(sn.log_score(spans, far)) == pytest.approx(math.log(sn.LEAST_P))


def test_with_few_seeds_every_distinct_resample_is_enumerated_with_its_weight():
    assert distinct_resamples(5) == 126 and distinct_resamples(8) == 6435
    plan = sn.paired_resamples([5, 1])  # one value has nothing to resample
    assert plan.enumerated and plan.size == plan.distinct == 126 and set(plan.indices) == {5}
    assert plan.weights.sum() == pytest.approx(1.0)
    weight = {tuple(row): w for row, w in zip(plan.indices[5], plan.weights)}
    assert weight[(0, 1, 2, 3, 4)] == pytest.approx(120 / 5**5)  # 5! orderings of 5^5
    assert weight[(0, 0, 0, 0, 0)] == pytest.approx(1 / 5**5)
    joint = sn.paired_resamples([5, 8])  # 126 x 6435 joint resamples: too many, drawn at random and said so
    assert not joint.enumerated and joint.distinct == 126 * 6435 and joint.size == BOOTSTRAP_RESAMPLES
    assert "random paired resamples of 810810 distinct" in joint.text()
    assert sn.paired_resamples([5, 8]).indices[8].tolist() == joint.indices[8].tolist()  # seeded: the same


def measured(n: sn.Number, universe: str, values: tuple[float, ...]) -> sn.Measured:
    found = (sn.SettingValues(values),)
    return sn.Measured(n, universe, None, found, sn.agrees(n, found))


def planted_numbers(found: tuple[sn.Number, ...], paper: tuple, **universes: tuple) -> sn.Table:
    """A table of ``found`` measured at the suite's readings and in each planted universe (values per number)."""
    rows = {sn.PAPER: tuple(measured(n, sn.PAPER, v) for n, v in zip(found, paper))}
    rows.update({u: tuple(measured(n, u, v) for n, v in zip(found, vs)) for u, vs in universes.items()})
    return sn.Table(found, tuple(rows), rows)


def planted(paper: tuple[float, ...], **universes: tuple[float, ...]) -> sn.Table:
    """A table of one stated number (0.80) measured at the suite's readings and in each planted universe."""
    return planted_numbers((number(0.80),), (paper,), **{u: (v,) for u, v in universes.items()})


SUITE = (0.70, 0.72, 0.71, 0.69, 0.70)  # clearly below 0.80: the suite's reading disagrees
FAR = (0.80, 0.81, 0.79, 0.80, 0.80)  # at 0.80


def test_a_preference_resting_on_one_claim_says_so():
    found = planted(SUITE, far=FAR)
    p = sn.prefer(found, "far")
    assert found.discriminating and p.wins >= sn.FAVOURED and p.verdict == sn.ONE_CLAIM and p.claims == ("C4",)
    line = sn.preference_line(p)
    assert "not favoured" in line and "rests on one number: C4's 0.80" in line, line
    # two numbers of one claim moving the same way still rest on one claim
    two = (number(0.80), number(0.50))
    found = planted_numbers(two, (SUITE, (0.40, 0.41, 0.39, 0.40, 0.40)), far=(FAR, (0.50, 0.51, 0.49, 0.5, 0.5)))
    p = sn.prefer(found, "far")
    assert p.verdict == sn.ONE_CLAIM and "rests on one claim's numbers: C4's 0.80, 0.50" in sn.preference_line(p)
    assert sn.sentence(found) == ""  # "far" is no reading of the registry: nothing to say of the open choices


def test_two_claims_moving_the_same_way_favour():
    two = (number(0.80, claim="C4"), number(0.50, claim="C11"))
    suite = (SUITE, (0.40, 0.41, 0.39, 0.40, 0.40))
    found = planted_numbers(two, suite, far=(FAR, (0.50, 0.51, 0.49, 0.5, 0.5)))
    p = sn.prefer(found, "far")
    assert p.verdict == sn.FAVOURED_VERDICT and p.claims == ("C4", "C11") and p.wins == pytest.approx(1.0)
    assert "numbers of 2 claims (C4, C11) move its way" in sn.preference_line(p)
    worse = sn.prefer(planted_numbers(two, (FAR, (0.50, 0.51, 0.49, 0.5, 0.5)), **{"init=flax": suite}), "init=flax")
    assert worse.verdict == sn.SUITE_FAVOURED
    assert sn.preference_line(worse).startswith(
        "init=flax: the suite's reading favoured, PyTorch's one-layer defaults over Flax's one-layer initialisation:"
    )
    # one claim moves its way, the other against it: no preference on two claims
    split = planted_numbers(two, suite, far=(FAR, (0.30, 0.31, 0.29, 0.30, 0.30)))
    assert sn.prefer(split, "far").verdict != sn.FAVOURED_VERDICT


def test_paired_resampling_shares_the_seeds_between_universes():
    """The same shift in every seed moves the mean by the same amount in every paired resample, so a universe a
    constant step closer to the paper's number wins (almost) every one; resampled independently it would not."""
    suite = (0.74, 0.78, 0.76, 0.72, 0.80)
    closer = tuple(v + 0.01 for v in suite)
    found = planted(suite, closer=closer, other=SUITE)  # "other" disagrees: the number discriminates
    plan = sn.resample_plan(found)
    assert plan.enumerated and plan.size == 126
    mine, theirs = (found.measured(u, found.numbers[0]) for u in ("closer", sn.PAPER))
    # the same seed indices: the resampled means differ by exactly the shift in every resample
    means = [np.asarray(m.found[0].values)[plan.indices[5]].mean(axis=1) for m in (mine, theirs)]
    assert np.allclose(means[0] - means[1], 0.01)
    wins = sn.win_share(sn.resampled(mine, plan), sn.resampled(theirs, plan), plan.weights)
    # it loses only where the resample's mean lies within 0.005 of 0.80 or above (five 0.80s; four and a 0.78:
    # 6 of 3125 by weight) and ties where both lie beyond the bound (a few resamples of one repeated value)
    assert 0.99 < wins < 1 - 6 / 5**5
    independent = np.random.default_rng(0).integers(0, 5, size=(2000, 5))
    shuffled = sn.Resamples({5: independent}, np.full(2000, 1 / 2000), 126, False)
    other = sn.Resamples({5: np.random.default_rng(1).integers(0, 5, size=(2000, 5))}, shuffled.weights, 126, False)
    unpaired = sn.win_share(sn.resampled(mine, shuffled), sn.resampled(theirs, other), shuffled.weights)
    assert unpaired < sn.FAVOURED  # independent resamples drown the step in the seeds' noise


def test_a_planted_tiny_difference_is_not_a_preference():
    suite = (0.78, 0.82, 0.80, 0.76, 0.84)
    near = (0.785, 0.815, 0.80, 0.765, 0.835)  # a little tighter, no closer in mean: within the noise
    found = planted(suite, near=near, other=SUITE)
    p = sn.prefer(found, "near")
    assert p.verdict == sn.TIE and p.moved and sn.FAVOURED > p.wins > 1 - sn.FAVOURED, p
    assert "a tie within the seeds' noise" in sn.preference_line(p)
    same = planted(SUITE, same=SUITE, other=(0.80,) * 5)
    assert sn.prefer(same, "same").verdict == sn.TIE  # it moves no number


def test_a_noisier_universe_is_not_preferred_for_its_width():
    """A count of agreements would reward a wide spread (it meets more values); the score does not favour it."""
    noisy = (0.55, 0.95, 0.60, 0.90, 0.55)  # mean 0.71 like the suite's, a spread that meets 0.80
    found = planted(SUITE, noisy=noisy)
    assert sn.agrees(found.numbers[0], found.measured("noisy", found.numbers[0]).found)  # it "agrees"
    assert sn.prefer(found, "noisy").verdict != sn.FAVOURED_VERDICT


def test_the_ranking_is_the_same_on_every_rerun():
    found = planted(SUITE, far=FAR, noisy=(0.55, 0.95, 0.60, 0.90, 0.55))
    assert sn.prefer(found, "noisy") == sn.prefer(found, "noisy")
    assert [r.universe for r in sn.rank(found)][0] == "far"


def test_a_claim_at_several_widths_is_compared_at_each_width_named():
    catalogue = registry().catalogue
    found = sn.numbers(catalogue, {"C13": 5, "C13-d64": 5}, {"C13": "d96", "C13-d64": "d64"})
    carrier = [n for n in found if n.claim == "C13" and n.stated.quantity.endswith("carrier")]
    assert [(n.column, n.width, n.paper_seeds) for n in carrier] == [("C13", "d96", 5), ("C13-d64", "d64", 5)]
    assert carrier[1].name.startswith("C13 d64 ") and carrier[0].short == "C13's 0.98"


def test_the_reference_run_rests_its_two_layer_lead_on_one_number():
    joined = data.with_cells_of(data.read(REFERENCE), data.read(DATA / "claims-extended.json.gz"))
    found = sn.table(RunView.from_data(joined))  # the whole factorial, as the documents read it
    prefs = {p.universe: p for p in sn.preferences(found)}
    assert prefs["init=torch"].verdict == sn.ONE_CLAIM, prefs["init=torch"]
    assert "rests on one number: C13's 0.98, at d96 and d64" in sn.preference_line(prefs["init=torch"])
    assert prefs["init=flax"].verdict == sn.SUITE_FAVOURED and len(prefs["init=flax"].claims) >= sn.SAME_WAY_CLAIMS
    assert "all 126 distinct paired resamples" in sn.preference_line(prefs["init=flax"])


def test_a_lean_that_no_one_number_carries_says_so():
    """The sum of the moves may lean a side's way while no number moves beyond its own noise (the extended cells
    alone, without the reference's default cells, do): the line and the sentence say that, naming no claim."""
    lone = sn.Preference("init=torch", ((number(0.80), "0.79", "0.78"),), 0.99, sn.ONE_CLAIM, (), "init=torch")
    line = sn.preference_line(lone)
    assert "not favoured" in line and f"rests on {sn.NO_NUMBER}" in line and "other claim" not in line, line
    assert sn.rests_on(()) == sn.NO_NUMBER
    found = sn.table(RunView.from_data(data.read(DATA / "claims-extended.json.gz")))
    prefs = sn.preferences(found)
    assert any(p.verdict == sn.ONE_CLAIM and not p.toward for p in prefs), prefs  # the case occurs in a recorded run
    assert all(sn.preference_line(p) for p in prefs) and sn.sentence(found, detail=False)


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
    from lengthgen.analysis.stated_numbers import record_in

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
    found = planted(suite, near=(0.785, 0.795, 0.81, 0.79, 0.80), far=SUITE)  # far (0.70) disagrees: discriminating
    ranked = sn.rank(found)
    versus = dict(zip((r.universe for r in ranked), sn.against_first(found, ranked)))
    assert versus[ranked[0].universe] == "the first" and {ranked[0].universe, ranked[1].universe} == {sn.PAPER, "near"}
    assert versus[ranked[1].universe].startswith("a tie (")
    assert versus["far"].startswith("below the first (") and ranked[-1].universe == "far"


def test_the_sentence_names_leans_on_one_claim_apart_from_preferences():
    joined = data.with_cells_of(data.read(REFERENCE), data.read(DATA / "claims-extended.json.gz"))
    found = sn.table(RunView.from_data(joined))
    full = sn.sentence(found)
    assert "PyTorch's two-layer initialisation is not favoured: its lead rests on one number: C13's 0.98" in full
    assert sn.sentence(found, detail=False).endswith("; other leans rest on C13 alone.")
    # the shortest form says the preferences alone: a lean on one claim is none
    assert sn.sentence(found, detail=False, leans=False) == (
        "The paper's numbers favour PyTorch's one-layer defaults over Flax's."
    )
