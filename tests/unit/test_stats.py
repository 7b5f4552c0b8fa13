"""The suite's statistics (lengthgen.stats) against scipy's and textbook numbers, and every check of the recorded
reference run with its uncertainty statement (lengthgen.records.check)."""

from __future__ import annotations

import ast
import gzip
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from lengthgen.records import Check, ClaimRecorder
from lengthgen.records.check import bounds_of
from lengthgen.stats import (
    bounded_interval,
    clip,
    clopper_pearson,
    distinct_resamples,
    every_resample,
    fisher_exact,
    mcnemar_exact,
    normal_quantile,
    paired_t_interval,
    percentile_interval,
    resample_indices,
    seed_bootstrap,
    student_interval,
    t_interval,
    t_quantile,
    t_tail,
    welch_interval,
)

DATA = Path(__file__).resolve().parents[1] / "data"
C1_K3_L32 = [1.0, 0.801513671875, 1.0, 0.98046875, 1.0, 0.945068359375, 1.0, 1.0]  # C1's RoPE K=3 L=32 seeds


def test_t_interval_is_scipys():
    low, high = t_interval(C1_K3_L32)
    ref = stats.t.interval(0.95, 7, loc=np.mean(C1_K3_L32), scale=stats.sem(C1_K3_L32))
    assert (low, high) == pytest.approx(ref, rel=1e-12)
    assert high > 1  # the t-interval passes the accuracy's bound
    assert t_interval([0.3]) is None and t_interval([0.2, 0.2]) == (0.2, 0.2) and t_interval([0.1, None]) is None


def test_quantiles_are_scipys_to_the_bit():
    assert t_quantile(0.975, 4) == float(stats.t.ppf(0.975, 4)) and round(t_quantile(0.975, 4), 3) == 2.776
    assert normal_quantile(0.975) == float(stats.norm.ppf(0.975)) and round(normal_quantile(0.975), 2) == 1.96


def test_a_bounded_interval_lies_inside_its_bounds_and_keeps_the_t_intervals_other_end():
    low, high = bounded_interval(C1_K3_L32, (0, 1))
    t_low, _ = t_interval(C1_K3_L32)
    assert (low, high) == (pytest.approx(t_low), 1.0), (low, high)
    assert bounded_interval([0.1, 0.12, 0.11], (0, 1)) == pytest.approx(t_interval([0.1, 0.12, 0.11]))  # inside
    assert bounded_interval([0.5], (0, 1)) is None
    assert clip((-0.2, 1.3), (0, 1)) == (0.0, 1.0) and clip(None, (0, 1)) is None
    with pytest.raises(ValueError, match=r"bounds \(1, 0\)"):
        bounded_interval([0.5, 0.6], (1, 0))
    with pytest.raises(ValueError, match="outside their bounds"):
        bounded_interval([0.5, 1.6], (0, 1))


@pytest.mark.parametrize("failing, seeds", [(0, 5), (1, 5), (3, 5), (5, 5), (2, 8), (8, 8), (7, 24)])
def test_clopper_pearson_is_scipys_exact_interval(failing, seeds):
    ref = stats.binomtest(failing, seeds).proportion_ci(confidence_level=0.95, method="exact")
    assert clopper_pearson(failing, seeds) == pytest.approx((ref.low, ref.high), abs=1e-12)


def test_clopper_pearson_textbook_numbers():
    # 0 of n: the upper end is 1 - (alpha/2)^(1/n) (the "rule of three" is its one-sided cousin)
    assert clopper_pearson(0, 5)[1] == pytest.approx(1 - 0.025 ** (1 / 5))
    assert clopper_pearson(5, 5)[0] == pytest.approx(0.025 ** (1 / 5))
    with pytest.raises(ValueError, match="6 of 5"):
        clopper_pearson(6, 5)


def test_paired_t_interval_is_the_t_interval_of_the_differences():
    first, second = [0.77, 0.78, 0.84, 0.81, 0.86], [0.58, 0.66, 0.80, 0.52, 0.75]
    diffs = np.subtract(first, second)
    ref = stats.t.interval(0.95, 4, loc=diffs.mean(), scale=stats.sem(diffs))
    assert paired_t_interval(first, second) == pytest.approx(ref)
    result = stats.ttest_rel(first, second)  # the interval excludes 0 exactly when the paired t-test rejects
    assert (result.pvalue < 0.05) == (paired_t_interval(first, second)[0] > 0)
    with pytest.raises(ValueError, match="equal lengths"):
        paired_t_interval([1.0], [1.0, 2.0])


def test_welch_interval_matches_scipys_welch_test():
    first, second = [0.41, 0.38, 0.44, 0.40, 0.39], [0.29, 0.31, 0.27, 0.33, 0.30, 0.28]
    low, high = welch_interval(first, second)
    result = stats.ttest_ind(first, second, equal_var=False)
    ref = result.confidence_interval(0.95)
    assert (low, high) == pytest.approx((ref.low, ref.high))


def test_mcnemar_exact_counts_only_the_discordant_seeds():
    # one seed of five fails in one run only: no evidence of a change
    assert mcnemar_exact([False, True, False, False, False], [False] * 5) == 1.0
    # five of five discordant, all one way: 2 * (1/2)^5, not below 0.05 with five seeds
    assert mcnemar_exact([True] * 5, [False] * 5) == pytest.approx(2 / 32)
    # eight of eight: 2 / 256
    assert mcnemar_exact([True] * 8, [False] * 8) == pytest.approx(2 / 256)
    assert mcnemar_exact([True, True], [True, True]) == 1.0  # concordant seeds say nothing
    ref = stats.binomtest(1, 6, 0.5).pvalue
    assert mcnemar_exact([True] * 5 + [False] * 3, [False] * 5 + [True, False, False]) == pytest.approx(ref)


def test_fisher_exact_is_scipys():
    assert fisher_exact(1, 5, 0, 5) == pytest.approx(stats.fisher_exact([[1, 4], [0, 5]]).pvalue) == 1.0
    assert fisher_exact(5, 5, 0, 5) == pytest.approx(2 / 252)


def test_seed_bootstrap_is_deterministic():
    items = [0.1, 0.4, 0.2, 0.3, 0.5]
    first = seed_bootstrap(items, lambda xs: sum(xs) / len(xs), np.random.default_rng(7))
    assert first == seed_bootstrap(items, lambda xs: sum(xs) / len(xs), np.random.default_rng(7))
    assert first[0] < 0.3 < first[1]
    assert seed_bootstrap([0.1], lambda xs: xs[0], np.random.default_rng(7)) is None


def _undefined_for_one_seed(xs) -> float:
    return math.nan if len(set(xs)) == 1 else float(np.mean(xs))  # a fit through identical rows: undefined


@pytest.mark.parametrize("level", [0.95, 0.99, 1 - 0.05 / 7])
@pytest.mark.parametrize(
    "statistic", [np.mean, lambda xs: float(np.median(xs)), lambda xs: max(xs) - min(xs), _undefined_for_one_seed]
)
@pytest.mark.parametrize("seeds", [2, 3, 5, 8])
def test_seed_bootstrap_is_scipys_percentile_bootstrap_to_the_bit(seeds, statistic, level):
    items = [round(float(v), 3) for v in np.random.default_rng(seeds).normal(0.6, 0.2, seeds)]

    def over(indices) -> float:
        return float(statistic([items[int(i)] for i in indices]))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns where a NaN resample leaves no interval
        ref = stats.bootstrap(
            (np.arange(seeds),),
            over,
            vectorized=False,
            n_resamples=2000,
            confidence_level=level,
            method="percentile",
            rng=np.random.default_rng(20240601),
        ).confidence_interval
    expected = (float(ref.low), float(ref.high)) if np.isfinite([ref.low, ref.high]).all() else None
    assert seed_bootstrap(items, statistic, np.random.default_rng(20240601), level) == expected


def test_resample_indices_are_scipys_draw_and_every_resample_its_distribution():
    draw = resample_indices(5, 300, np.random.default_rng(3))
    assert draw.shape == (300, 5) and draw.tolist() == np.random.default_rng(3).integers(0, 5, (300, 5)).tolist()
    rows, weights = every_resample(4)
    assert len(rows) == distinct_resamples(4) == 35 and weights.sum() == pytest.approx(1.0)
    for row, w in zip(rows.tolist(), weights):  # each multiset's multinomial probability, from scipy
        counts = np.bincount(row, minlength=4)
        assert w == pytest.approx(stats.multinomial.pmf(counts, 4, [0.25] * 4), rel=1e-12)
    with pytest.raises(ValueError, match="0 resamples of 5 seeds"):
        resample_indices(5, 0, np.random.default_rng(3))


def test_percentile_interval_is_scipys_quantiles():
    distribution = np.random.default_rng(4).standard_normal(2000)
    expected = np.percentile(distribution, [2.5, 97.5])
    assert percentile_interval(distribution) == pytest.approx(tuple(expected), rel=1e-12)


def test_t_tail_is_scipys_two_sided_p_value():
    values = np.array([0.41, 0.38, 0.44, 0.40, 0.39])
    result = stats.ttest_1samp(values, 0.35)
    assert float(t_tail(np.array(abs(result.statistic)), 4)) == pytest.approx(result.pvalue, rel=1e-12)
    assert float(t_tail(np.array(1.959963984540054), np.inf)) == pytest.approx(0.05, rel=1e-12)  # the normal


def test_student_interval_is_scipys_pooled_two_sample_interval():
    first, second = [2.31, 2.28, 2.40, 2.35, 2.30], [2.10, 2.15, 2.08, 2.20, 2.12]  # as many repeats a side
    ref = stats.ttest_ind(first, second, equal_var=True).confidence_interval(0.95)
    assert student_interval(first, second) == pytest.approx((ref.low, ref.high), rel=1e-12)
    with pytest.raises(ValueError, match="2 values a side"):
        student_interval([1.0], [1.0, 2.0])


# scipy.stats' interval, test, bootstrap and quantile functions, and numpy's quantiles: lengthgen.stats alone
# calls them (the rest of the package takes its statistics from there)
STATISTICS = {
    "bootstrap",
    "binomtest",
    "proportion_ci",
    "interval",
    "ppf",
    "sf",
    "cdf",
    "isf",
    "quantile",
    "percentile",
    "nanquantile",
    "nanpercentile",
    "sem",
    "ttest_ind",
    "ttest_rel",
    "ttest_1samp",
    "fisher_exact",
    "stdtrit",
    "stdtr",
    "ndtri",
    "betaincinv",
    "t",
    "norm",
    "beta",
    "binom",
}
PACKAGE = Path(__file__).resolve().parents[2] / "lengthgen"
SCIPY_STATS_ELSEWHERE = {"probes/dilution.py"}  # imports scipy.stats for linregress, a least-squares fit


def _imports_scipy_stats(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.startswith("scipy.stats") for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("scipy"):
            if node.module.startswith("scipy.stats") or any(a.name == "stats" for a in node.names):
                return True
    return False


def _statistics_called(tree: ast.AST) -> set[str]:
    """The names of STATISTICS a module reaches through scipy (its imports, then attributes of what they bind)
    or numpy (np.quantile, np.percentile)."""
    bound: dict[str, str] = {}  # a local name -> the scipy or numpy module it stands for
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in ("scipy", "numpy"):
                    bound[alias.asname or alias.name.split(".")[0]] = alias.name
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "scipy":
            for alias in node.names:
                if alias.name in STATISTICS:
                    found.add(alias.name)
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in STATISTICS:
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in bound:
                module = bound[root.id]
                if module.startswith("scipy") or node.attr in (
                    "quantile",
                    "percentile",
                    "nanquantile",
                    "nanpercentile",
                ):
                    found.add(f"{module}.{node.attr}")
    return found


def test_no_module_but_lengthgen_stats_computes_an_interval_a_bootstrap_or_a_quantile():
    offenders = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "stats.py":
            continue
        tree, name = ast.parse(path.read_text(), str(path)), path.relative_to(PACKAGE).as_posix()
        called = _statistics_called(tree)
        if called:
            offenders[name] = sorted(called)
        if _imports_scipy_stats(tree) and name not in SCIPY_STATS_ELSEWHERE:
            offenders.setdefault(name, []).append("imports scipy.stats")
    assert not offenders, offenders
    assert _statistics_called(ast.parse("from scipy import stats\nstats.t.interval(0.95, 3)")) == {
        "scipy.stats.t",
        "scipy.stats.interval",
    }
    assert _statistics_called(ast.parse("import numpy as np\nnp.quantile(x, 0.5)")) == {"numpy.quantile"}
    assert _statistics_called(ast.parse("from scipy.stats import bootstrap")) == {"bootstrap"}
    assert not _statistics_called(ast.parse("from scipy import stats\nstats.linregress(x, y)"))
    assert _imports_scipy_stats(ast.parse("def f():\n    from scipy import stats\n    return stats"))
    assert not _imports_scipy_stats(ast.parse("from scipy import special"))


# ----------------------------------------------------------------------------------------------- checks


def test_a_bounded_mean_check_shows_an_interval_inside_its_bounds():
    recorder = ClaimRecorder("C1")
    check = recorder.check("RoPE K=3 L=32: accuracy", C1_K3_L32, ">=", 0.95)
    assert check.bounds == (0.0, 1.0) and check.interval == "bounded" and check.ci95[1] == 1.0
    assert check.close  # the threshold 0.95 lies inside it, as it lies inside the t-interval
    assert check.uncertainty.startswith("95% t-interval within [0, 1] [0.908"), check.uncertainty
    loose = recorder.check("a rate", [1.0, 0.8, 1.0], ">=", 0.5)  # a name without a bounded quantity
    assert loose.bounds is None and loose.interval == "t"
    explicit = recorder.check("a rate", [1.0, 0.8, 1.0], ">=", 0.5, bounds=(0, 1))
    assert explicit.interval == "bounded" and explicit.ci95[1] == 1.0
    again = Check.from_dict(json.loads(json.dumps(check.to_dict())))
    assert (again.ci95, again.interval, again.bounds, again.close) == (check.ci95, "bounded", (0.0, 1.0), True)
    assert again.standard_error == pytest.approx(stats.sem(C1_K3_L32))  # from the unclipped t-interval


@pytest.mark.parametrize(
    "name, bounds",
    [
        ("RoPE K=3 L=32: accuracy", (0.0, 1.0)),
        ("K=2: key carrier fraction (mean over seeds)", (0.0, 1.0)),
        ("share of seed x K x L cells peaking at an absolute position < 16", (0.0, 1.0)),
        ("RoPE minus APE accuracy beyond the training range (positions >= 16), every seed", None),
        ("K=1 L=20 (longest selecting -K): seed-mean accuracy scaled - unscaled", None),
        ("K=1: cos(m_Q, R_-K m_K) (mean over seeds)", None),
    ],
)
def test_the_bounds_of_a_check_that_states_none_are_read_from_its_quantity(name, bounds):
    assert bounds_of(name) == bounds


def test_an_every_seed_check_counts_its_failing_seeds_and_shows_the_worst():
    recorder = ClaimRecorder("C12")
    values = [0.5836868286132812, 0.6626510620117188, 0.79864501953125, 0.52178955078125, 0.7508697509765625]
    check = recorder.check("RoPE minus APE, every seed", values, ">=", 0.7, reduce="all")
    assert check.value == 0.52178955078125  # the worst seed, not the first failing one
    assert check.failing == 3 and check.seed_count_text == "3 of 5 seeds at 0.5218"
    ref = stats.binomtest(3, 5).proportion_ci(method="exact")
    assert check.failing_ci == pytest.approx((ref.low, ref.high))
    assert check.uncertainty == "3 of 5 seeds fail (failing share 95% exact interval [0.15, 0.95], Clopper-Pearson)"
    assert not check.has_interval and not check.close
    held = recorder.check("held, every seed", [0.8, 0.75, 0.9], ">=", 0.7, reduce="all")
    assert (held.value, held.failing, held.seed_count_text) == (0.75, 0, "0 of 3 seeds fail")
    offsets = recorder.check("offset, every seed", [-2, -21, -2, -40], "==", -2, reduce="all")
    assert (offsets.value, offsets.failing) == (-40, 2)
    not_k = recorder.check("offset is not -K, every seed", [-2, -5, -2], "!=", -2, reduce="all")
    assert (not_k.value, not_k.failing) == (-2, 2)
    floor = recorder.check("lowest seed", [0.8, 0.6, 0.9], ">=", 0.7, reduce="min")  # every seed above 0.7
    assert floor.counted and (floor.value, floor.failing) == (0.6, 1)
    some = recorder.check("some seed", [0.8, 0.6, 0.9], "<=", 0.7, reduce="min")  # one seed under 0.7 suffices
    assert not some.counted and some.failing is None and some.passed


def test_an_older_record_shows_the_worst_seed_at_read_time():
    data = {
        "name": "RoPE minus APE, every seed",
        "value": 0.5836868286132812,  # an older recorder's first failing seed
        "op": ">=",
        "threshold": 0.7,
        "passed": False,
        "values": [0.5836868286132812, 0.6626510620117188, 0.79864501953125, 0.52178955078125, 0.75086975097],
        "reduce": "all",
        "interval": "t",
        "ci95": [0.52, 0.81],
    }
    check = Check.from_dict(data)
    assert check.value == 0.52178955078125 and check.failing == 3 and check.passed is False


def _reference_checks():
    data = json.loads(gzip.decompress((DATA / "claims-reference.json.gz").read_bytes()))
    for part in ("records", "robustness", "multiverse", "controls"):
        for record in data.get(part) or []:
            for check in record["checks"]:
                yield record["claim"], Check.from_dict(check, record.get("scale", {}).get("seeds"))


def test_every_check_of_the_reference_run_states_its_uncertainty():
    kinds = set()
    for claim, check in _reference_checks():
        said = check.uncertainty
        stated = ("95% t-interval", "95% seed bootstrap", "exact", "a single number", "one seed")
        assert said.startswith(stated) or " seeds fail (failing share 95% exact interval" in said, (claim, said)
        if check.counted:
            assert check.failing is not None and check.failing_ci is not None, (claim, check.name)
            assert check.seed_count_text.startswith(f"{check.failing} of {len(check.values)} seeds"), check.name
            assert check.passed == (check.failing == 0), (claim, check.name, check.failing)
        if check.interval == "bounded":
            low, high = check.ci95
            assert check.bounds[0] <= low <= high <= check.bounds[1], (claim, check.name, check.ci95)
        if check.bounds is not None and check.reduce == "mean" and check.ci95 is not None:
            assert check.bounds[0] <= check.ci95[0] and check.ci95[1] <= check.bounds[1], (claim, check.name)
        kinds.add(check.interval if not check.counted else "counted")
    assert {"counted", "bounded", "t", "bootstrap", "exact"} <= kinds, kinds


def test_a_mean_shown_beside_its_interval_lies_inside_it():
    for claim, check in _reference_checks():
        if check.reduce == "mean" and check.ci95 is not None and check.value is not None:
            low, high = check.ci95
            assert low - 1e-12 <= check.value <= high + 1e-12 or math.isnan(low), (claim, check.name, check.ci95)
