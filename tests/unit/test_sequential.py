"""The stopping rule of --until-decided (lengthgen.sequential) and the seed bootstrap, on synthetic seed
streams: the plan, its intervals, the seeds a close check would need, and a simulation showing that with
the true mean exactly at the threshold the rule decides (wrongly) at most at its stated level."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from lengthgen.records import ClaimRecorder, seed_bootstrap
from lengthgen.records.recorder import BOOTSTRAP_SEED
from lengthgen.sequential import (
    ALPHA,
    Plan,
    parse_max,
    seeds_to_decide,
    simulate_wrong_decisions,
    standard_error,
)
from lengthgen.stats import normal_quantile, t_interval, t_quantile

STREAMS = 4000  # synthetic seed streams per simulation: a wrong-decision rate to about +-0.007 (2 s.e.)
SIM_SEED = 15  # the simulations' own generator


def test_the_plan_fixes_its_looks_in_advance():
    plan = Plan(24)
    assert plan.schedule(8) == (8, 12, 16, 20, 24)
    assert plan.schedule(3) == (3, 7, 11, 15, 19, 23, 24)  # the last look at exactly MAX
    assert plan.schedule(24) == (24,) and plan.schedule(30) == (30,)
    assert plan.level(8) == pytest.approx(1 - 0.05 / 5)
    assert plan.level(30) == pytest.approx(0.95)  # one look: the plain 95% interval
    assert plan.describe(8)["looks_planned"] == 5


@pytest.mark.parametrize("bad", ["x", "1", "0", "-4", "10001", "2.5"])
def test_max_is_validated(bad):
    with pytest.raises(ValueError, match=f"--until-decided='{bad}'"):
        parse_max(bad)
    assert parse_max("24") == 24


def test_t_interval_is_scipys_at_any_level():
    values = [0.146, 0.149, 0.147]
    low, high = t_interval(values, 0.99)
    ref = stats.t.interval(0.99, 2, loc=np.mean(values), scale=stats.sem(values))
    assert (low, high) == pytest.approx(ref)
    assert t_interval([0.3], 0.95) is None and t_interval([0.2, 0.2]) == (0.2, 0.2)
    assert standard_error((low, high), 3, "t", 0.99) == pytest.approx(stats.sem(values))


LEVELS = (0.8, 0.9, 0.95, 0.975, 0.99, 0.999)  # every level the suite and --lengthgen-until-decided use, and more


@pytest.mark.parametrize("level", LEVELS)
def test_quantiles_are_scipy_stats_floats_to_the_bit(level):
    # the report's margins take their quantiles from scipy.special (no scipy.stats import): the same floats
    p = 0.5 + level / 2
    assert [t_quantile(p, df) for df in range(1, 130)] == [float(stats.t.ppf(p, df)) for df in range(1, 130)]
    assert normal_quantile(p) == float(stats.norm.ppf(p))
    assert t_quantile(p, 7) != normal_quantile(p)  # a swapped pair of calls would fail here


def test_seeds_to_decide_from_the_observed_spread():
    # mean 0.1473, s.e. 0.00088 from 3 seeds (C9's deciding cell): the spread is 0.00153 per seed
    n = seeds_to_decide(0.0027, 0.00088, 3)
    spread = 0.00088 * math.sqrt(3)
    assert stats.t.ppf(0.975, n - 1) * spread / math.sqrt(n) < 0.0027
    assert stats.t.ppf(0.975, n - 2) * spread / math.sqrt(n - 1) >= 0.0027
    assert n == 4
    assert seeds_to_decide(0.0, 0.01, 8) is None  # on the threshold: no number of seeds decides
    assert seeds_to_decide(0.1, 0.0, 8) == 8
    assert seeds_to_decide(1e-9, 1.0, 8) is None  # more than the cap


def test_seed_bootstrap_is_reproducible_and_covers_the_statistic():
    rng = np.random.default_rng(SIM_SEED)
    items = list(rng.normal(1.0, 0.2, size=8))
    first = seed_bootstrap(items, np.mean, np.random.default_rng(BOOTSTRAP_SEED))
    assert first == seed_bootstrap(items, np.mean, np.random.default_rng(BOOTSTRAP_SEED))  # a seeded generator
    assert first[0] < np.mean(items) < first[1]
    wide = seed_bootstrap(items, np.mean, np.random.default_rng(BOOTSTRAP_SEED), level=0.99)
    assert wide[0] <= first[0] and wide[1] >= first[1]
    assert seed_bootstrap(items[:1], np.mean, np.random.default_rng(BOOTSTRAP_SEED)) is None


def test_seed_bootstrap_coverage_on_synthetic_streams():
    """The percentile bootstrap of a mean over 8 seeds covers the true mean in roughly 95% of streams (it
    is known to undercover at small n, about 0.9; the t-interval is used for plain means). 80 streams: each
    bootstrap is 2000 resamples, so this is the slow test of the file."""
    rng = np.random.default_rng(SIM_SEED)
    streams = 80
    covered = sum(
        low <= 0 <= high
        for low, high in (
            seed_bootstrap(list(rng.standard_normal(8)), np.mean, np.random.default_rng(BOOTSTRAP_SEED))
            for _ in range(streams)
        )
    )
    assert 0.8 <= covered / streams <= 1.0, covered


def test_the_recorder_takes_intervals_at_the_decision_level():
    recorder = ClaimRecorder("C9")
    recorder.decision_level = Plan(24).level(3)
    check = recorder.check("cell", [0.146, 0.149, 0.147], "<=", 0.15)
    assert check.interval == "t"
    assert check.decision_ci == pytest.approx(t_interval(check.values, recorder.decision_level))
    assert check.decision_ci[1] - check.decision_ci[0] > check.ci95[1] - check.ci95[0]
    boot = recorder.check("fit", 0.9, ">=", 0.85, bootstrap=([0.8, 0.9, 0.95, 1.0], np.mean))
    assert boot.interval == "bootstrap" and boot.decision_ci is not None


@pytest.mark.parametrize("first,max_seeds", [(3, 24), (8, 24), (5, 32)])
def test_at_the_threshold_the_rule_decides_wrongly_at_most_at_its_level(first, max_seeds):
    """With the true mean exactly at the threshold any decision is wrong; over a few thousand normal seed
    streams the rule's decided rate stays at or below alpha (Bonferroni: conservative)."""
    plan = Plan(max_seeds)
    rate, _ = simulate_wrong_decisions(plan, first, STREAMS, np.random.default_rng(SIM_SEED))
    margin = 2 * math.sqrt(ALPHA * (1 - ALPHA) / STREAMS)  # two binomial standard errors at the level
    assert rate <= ALPHA + margin, f"wrong-decision rate {rate:.4f} above {ALPHA} (+{margin:.4f})"


def test_naive_repeated_95_percent_looks_would_exceed_the_level():
    """The reason for the split: the same looks at an unadjusted 95% each decide wrongly far more often."""
    naive = Plan(24, alpha=0.05 * len(Plan(24).schedule(3)))  # level 0.95 at each of the 7 looks
    rate, _ = simulate_wrong_decisions(naive, 3, STREAMS, np.random.default_rng(SIM_SEED))
    assert rate > 0.08, rate


def test_away_from_the_threshold_the_rule_decides_and_stops_early():
    rate, seeds = simulate_wrong_decisions(Plan(24), 3, STREAMS, np.random.default_rng(SIM_SEED), offset=1.5)
    assert rate > 0.95 and seeds < 12, (rate, seeds)


def test_the_judge_loop_records_each_look_afresh_and_stops_when_decided():
    """claims.run.run_claim under a plan (lengthgen.sequential.until_decided): the checks (and notes, measures) of
    the last look only, the scale of the last look, the path of every look; a declared non-reproduction is no
    longer strict once seeds were added. Without a plan: one look, no path."""
    from claims.run import run_claim
    from claims.spec import ClaimSpec, Declared
    from lengthgen.experiments.robustness import setting
    from lengthgen.scale import PAPER

    def measure(scale):
        return [0.147 + 0.002 * math.sin(2.1 * seed) for seed in scale.seed_list(3)]

    def check(claim, values):
        claim.check("cell", values, "<=", 0.15)
        claim.measure("cell values", values)
        claim.note(f"{len(values)} seeds")

    spec = ClaimSpec(
        "C9",
        title="a claim",
        where="here",
        statement="a statement",
        assertion="an assertion",
        paper_value="a value",
        paper_seeds=3,
        measure=lambda scale, cache: measure(scale),
        checks=(check,),
        declared=(Declared(("nothing*",), "a declaration that never matches"),),
    )
    claim = ClaimRecorder("C9")
    run_claim(spec, claim, PAPER, None, plan=Plan(12))
    record = claim.record
    assert [look["seeds"] for look in record.looks["path"]] == [3, 7]
    assert [look["close"] for look in record.looks["path"]] == [True, False]
    assert len(record.checks) == 1 and len(record.checks[0].values) == 7 and record.notes == ["7 seeds"]
    assert record.scale["seeds"] == 7 and record.scale["seed_list"] == list(range(7))
    assert record.declared.strict is False
    plain = ClaimRecorder("C9")
    run_claim(spec, plain, PAPER, None)
    assert plain.record.looks is None and plain.record.checks[0].decision_ci is None
    assert len(plain.record.checks[0].values) == 3
    with pytest.raises(ValueError, match="before begin_looks"):
        ClaimRecorder("C9").new_look()
    with pytest.raises(ValueError, match="paper's point"):  # a robustness setting fixes its seeds: no plan there
        run_claim(spec, ClaimRecorder("C9"), PAPER, None, setting=setting("fresh-seeds"), plan=Plan(12))
