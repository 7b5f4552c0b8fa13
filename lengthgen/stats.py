"""The suite's statistics, in one place: every interval a check states and every test that compares two runs.

- :func:`t_interval`: the two-sided t-interval of a mean over seeds (an unbounded quantity);
- :func:`bounded_interval`: the t-interval of a mean over seeds of a quantity with bounds (an accuracy, a share,
  an attention weight in [0, 1]), clipped to them: it keeps the t-interval's coverage (the true mean lies inside
  the bounds) and never shows an end outside them. (The seed bootstrap's percentile interval, the other interval
  that stays inside the bounds, is narrower than the t-interval with few seeds and covers less than it states:
  with 3 seeds it is about the range of the values.)
- :func:`seed_bootstrap`: the seed bootstrap's percentile interval of any statistic of per-seed items (a fit, a
  ratio of the seed-mean curve), with a fixed generator;
- :func:`clopper_pearson`: the exact (Clopper-Pearson) interval of a share, e.g. the share of seeds that fail a
  check that every seed must pass;
- :func:`paired_t_interval`: the t-interval of the mean difference over the seeds two runs share;
- :func:`mcnemar_exact`: the exact McNemar test of two runs' pass / fail outcomes over the seeds they share;
- :func:`welch_interval`, :func:`fisher_exact`: the same two comparisons for runs that share no seeds (the mean
  difference's Welch t-interval; Fisher's exact test of the two failing counts);
- :func:`t_quantile`, :func:`normal_quantile`: memoised quantiles (the report asks for the same few thousands of
  times).

numpy and scipy.special at import time of a function that needs them; scipy.stats (half a second to import) only
in the functions that call into it. No torch.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable, Sequence

import numpy as np

LEVEL = 0.95  # the level of every interval a check states (a run under --until-decided states its own too)
BOOTSTRAP_RESAMPLES = 2000  # seed_bootstrap's: enough for a stable 95% percentile interval, cheap for a seed-mean fit
BOOTSTRAP_SEED = 20240601  # the bootstrap's own generator: the same interval on every rerun


def _special():
    """``scipy.special``, imported on first use (the quantiles and Clopper-Pearson need only it)."""
    from scipy import special

    return special


@functools.lru_cache(maxsize=None)
def t_quantile(p: float, df: int) -> float:
    """Student's t quantile, ``scipy.stats.t.ppf(p, df)`` for 0 < p < 1, memoised. ``scipy.special.stdtrit`` is
    what ``t.ppf`` calls inside, so the float is the same (``tests/unit/test_stats.py``)."""
    return float(_special().stdtrit(df, p))


@functools.lru_cache(maxsize=None)
def normal_quantile(p: float) -> float:
    """The normal quantile, ``scipy.stats.norm.ppf(p)`` for 0 < p < 1, memoised: ``scipy.special.ndtri(p)``."""
    return float(_special().ndtri(p))


def _finite(values: Sequence[float]) -> np.ndarray | None:
    array = np.asarray([math.nan if v is None else v for v in values], dtype=float)
    return array if array.size and np.all(np.isfinite(array)) else None


def t_interval(values: Sequence[float], level: float = LEVEL) -> tuple[float, float] | None:
    """Two-sided t-interval of the mean at ``level``: ``scipy.stats.t.interval(level, n - 1, mean, sem)`` (None
    below two values or for a value that is not finite; a point for no spread)."""
    array = _finite(values)
    if array is None or array.size < 2:
        return None
    mean = math.fsum(array.tolist()) / array.size
    sem = float(np.std(array, ddof=1)) / math.sqrt(array.size)
    if sem == 0:
        return (mean, mean)
    half = t_quantile(0.5 + level / 2, array.size - 1) * sem
    return (mean - half, mean + half)


def bounded_interval(
    values: Sequence[float], bounds: Sequence[float], level: float = LEVEL
) -> tuple[float, float] | None:
    """The t-interval of the mean of ``values`` at ``level`` clipped to the quantity's ``bounds`` (None below two
    values or for a value that is not finite; ValueError for bounds that are not (low, high) or a value outside
    them). The true mean lies within the bounds, so clipping never drops it: the interval keeps the t-interval's
    coverage, and a threshold inside the bounds is inside the one exactly when it is inside the other."""
    low_bound, high_bound = float(bounds[0]), float(bounds[1])
    if not low_bound < high_bound:
        raise ValueError(f"bounds {tuple(bounds)!r} must be (low, high) with low < high")
    array = _finite(values)
    if array is not None and (np.any(array < low_bound) or np.any(array > high_bound)):
        raise ValueError(f"values {array.tolist()!r} lie outside their bounds {tuple(bounds)!r}")
    return clip(t_interval(values, level), bounds)


def clip(interval: Sequence[float] | None, bounds: Sequence[float]) -> tuple[float, float] | None:
    """``interval`` clipped to ``bounds`` (None stays None): the bounded interval of a t-interval already computed."""
    if interval is None:
        return None
    low, high = float(bounds[0]), float(bounds[1])
    return (min(max(float(interval[0]), low), high), min(max(float(interval[1]), low), high))


def clopper_pearson(successes: int, trials: int, level: float = LEVEL) -> tuple[float, float]:
    """The exact two-sided Clopper-Pearson interval of a share ``successes / trials`` at ``level``: the
    ``scipy.stats.binomtest(successes, trials).proportion_ci(level, "exact")`` interval, from the beta quantiles
    themselves (``scipy.special.betaincinv``: the report computes it for every every-seed check it reads, and
    scipy.stats costs half a second to import)."""
    if not (isinstance(trials, int) and trials >= 1 and isinstance(successes, int) and 0 <= successes <= trials):
        raise ValueError(f"{successes!r} of {trials!r}: need whole numbers 0 <= successes <= trials, trials >= 1")
    alpha = 1 - level
    special = _special()
    low = 0.0 if successes == 0 else float(special.betaincinv(successes, trials - successes + 1, alpha / 2))
    high = 1.0 if successes == trials else float(special.betaincinv(successes + 1, trials - successes, 1 - alpha / 2))
    return low, high


def paired_t_interval(
    first: Sequence[float], second: Sequence[float], level: float = LEVEL
) -> tuple[float, float] | None:
    """The t-interval of the mean of ``first[i] - second[i]`` (two runs' values on the seeds they share, in the
    same order); None below two pairs. ValueError for sequences of different lengths."""
    if len(first) != len(second):
        raise ValueError(f"paired values need equal lengths, got {len(first)} and {len(second)}")
    return t_interval([float(a) - float(b) for a, b in zip(first, second)], level)


def mcnemar_exact(first: Sequence[bool], second: Sequence[bool]) -> float:
    """The two-sided p-value of the exact McNemar test: two runs' outcomes (True: the seed fails) on the seeds they
    share, in the same order. Only the discordant seeds count (fails in one run, not the other); under no change
    each falls either way with probability 1/2: ``scipy.stats.binomtest(b, b + c, 0.5).pvalue``. 1.0 without a
    discordant seed."""
    if len(first) != len(second):
        raise ValueError(f"paired outcomes need equal lengths, got {len(first)} and {len(second)}")
    only_first = sum(1 for a, b in zip(first, second) if a and not b)
    only_second = sum(1 for a, b in zip(first, second) if b and not a)
    if not only_first + only_second:
        return 1.0
    from scipy import stats

    return float(stats.binomtest(only_first, only_first + only_second, 0.5).pvalue)


def seed_bootstrap(
    items: Sequence[Any], statistic: Callable[[Sequence[Any]], float], level: float = LEVEL
) -> tuple[float, float] | None:
    """Percentile interval (95% unless ``level``) of ``statistic`` over seeds resampled with replacement
    (None below 2 seeds). A resample that makes the statistic undefined (a fit through identical rows) is
    dropped by scipy as NaN-producing; the interval is then over the others."""
    from scipy import stats

    items = list(items)
    if len(items) < 2:
        return None

    def over(indices) -> float:
        return float(statistic([items[int(i)] for i in indices]))

    result = stats.bootstrap(
        (np.arange(len(items)),),
        over,
        vectorized=False,
        n_resamples=BOOTSTRAP_RESAMPLES,
        confidence_level=level,
        method="percentile",
        rng=np.random.default_rng(BOOTSTRAP_SEED),
    )
    low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
    return (low, high) if math.isfinite(low) and math.isfinite(high) else None


def welch_interval(first: Sequence[float], second: Sequence[float], level: float = LEVEL) -> tuple[float, float] | None:
    """Welch's t-interval of ``mean(first) - mean(second)`` for two runs on different seeds (None below two values
    on either side or for a value that is not finite; a point for no spread on both)."""
    a, b = _finite(first), _finite(second)
    if a is None or b is None or a.size < 2 or b.size < 2:
        return None
    diff = float(a.mean() - b.mean())
    va, vb = float(np.var(a, ddof=1)) / a.size, float(np.var(b, ddof=1)) / b.size
    if va + vb == 0:
        return (diff, diff)
    df = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
    half = float(_special().stdtrit(df, 0.5 + level / 2)) * math.sqrt(va + vb)
    return (diff - half, diff + half)


def fisher_exact(failing_first: int, seeds_first: int, failing_second: int, seeds_second: int) -> float:
    """The two-sided p-value of Fisher's exact test that two runs on different seeds fail a check at the same
    rate: ``scipy.stats.fisher_exact`` on the 2 x 2 table of failing and passing seeds."""
    for failing, seeds in ((failing_first, seeds_first), (failing_second, seeds_second)):
        if not 0 <= failing <= seeds:
            raise ValueError(f"{failing!r} failing of {seeds!r} seeds: need 0 <= failing <= seeds")
    from scipy import stats

    table = [[failing_first, seeds_first - failing_first], [failing_second, seeds_second - failing_second]]
    return float(stats.fisher_exact(table).pvalue)
