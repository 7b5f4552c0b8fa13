"""The suite's statistics, in one place: every interval a check states and every test that compares two runs.

- :func:`t_interval`: the two-sided t-interval of a mean over seeds (an unbounded quantity); :func:`t_half_width`:
  its half-width for a given spread;
- :func:`bounded_interval`: the t-interval of a mean over seeds of a quantity with bounds (an accuracy, a share,
  an attention weight in [0, 1]), clipped to them: it keeps the t-interval's coverage (the true mean lies inside
  the bounds) and never shows an end outside them. (The seed bootstrap's percentile interval, the other interval
  that stays inside the bounds, is narrower than the t-interval with few seeds and covers less than it states:
  with 3 seeds it is about the range of the values.)
- :func:`seed_bootstrap`: the seed bootstrap's percentile interval of any statistic of per-seed items (a fit, a
  ratio of the seed-mean curve), from the caller's generator; its resamples are :func:`resample_indices` (the one
  random draw of seed indices every bootstrap here takes) and :func:`every_resample` (every distinct resample with
  its probability, where there are few enough to enumerate);
- :func:`clopper_pearson`: the exact (Clopper-Pearson) interval of a share, e.g. the share of seeds that fail a
  check that every seed must pass;
- :func:`paired_t_interval`: the t-interval of the mean difference over the seeds two runs share;
- :func:`mcnemar_exact`: the exact McNemar test of two runs' pass / fail outcomes over the seeds they share;
- :func:`welch_interval`, :func:`fisher_exact`: the same two comparisons for runs that share no seeds (the mean
  difference's Welch t-interval; Fisher's exact test of the two failing counts);
- :func:`student_interval`: Student's two-sample t-interval of a difference of means (repeated timings);
- :func:`t_tail`: the two-sided tail probability of a t statistic;
- :func:`t_quantile`, :func:`normal_quantile`: memoised quantiles (the report asks for the same few thousands of
  times).

numpy and scipy.special at import time of a function that needs them; scipy.stats (half a second to import) only
in the functions that call into it. No torch.
"""

from __future__ import annotations

import functools
import itertools
import math
import statistics
from typing import Any, Callable, Sequence

import numpy as np

LEVEL = 0.95  # the level of every interval a check states (a run under --until-decided states its own too)
BOOTSTRAP_RESAMPLES = 2000  # random resamples a bootstrap draws: a stable 95% percentile interval, cheap for a fit


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


def t_half_width(spread: float | np.ndarray, seeds: int, level: float = LEVEL) -> float | np.ndarray:
    """The half-width at ``level`` of the t-interval of a mean over ``seeds`` values whose standard deviation is
    ``spread`` (a float, or an array of them): t_{(1+level)/2, seeds-1} * spread / sqrt(seeds). The seeds a check
    would need and the stopping rule's simulation ask it for spreads they assume; :func:`t_interval` multiplies
    the quantile by the standard error itself, in the order ``scipy.stats.t.interval`` does."""
    return t_quantile(0.5 + level / 2, seeds - 1) * spread / math.sqrt(seeds)


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


def resample_indices(seeds: int, draws: int, rng: np.random.Generator) -> np.ndarray:
    """``draws`` bootstrap resamples of ``seeds`` seeds, drawn with replacement from ``rng``: (draws, seeds) indices
    into the seeds, each uniform on 0..seeds-1 (the draw ``scipy.stats.bootstrap`` makes). ValueError for fewer
    than one seed or draw."""
    if seeds < 1 or draws < 1:
        raise ValueError(f"{draws!r} resamples of {seeds!r} seeds: need at least one of each")
    return rng.integers(0, seeds, size=(draws, seeds))  # (draws, seeds)


def distinct_resamples(seeds: int) -> int:
    """How many distinct bootstrap resamples ``seeds`` seeds have: the multisets of that size, C(2n-1, n)."""
    return math.comb(2 * seeds - 1, seeds) if seeds > 0 else 1


def every_resample(seeds: int) -> tuple[np.ndarray, np.ndarray]:
    """Every distinct bootstrap resample of ``seeds`` seeds, as sorted indices ((distinct, seeds)), and its
    multinomial probability ((distinct,), summing to 1)."""
    rows = np.array(list(itertools.combinations_with_replacement(range(seeds), seeds)), dtype=int)
    counts = np.stack([(rows == i).sum(axis=1) for i in range(seeds)], axis=1)  # (distinct, seeds)
    log_w = math.lgamma(seeds + 1) - np.sum([[math.lgamma(c + 1) for c in row] for row in counts], axis=1)
    return rows, np.exp(log_w - seeds * math.log(seeds))


def seed_bootstrap(
    items: Sequence[Any],
    statistic: Callable[[Sequence[Any]], float],
    rng: np.random.Generator,
    level: float = LEVEL,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> tuple[float, float] | None:
    """Percentile interval at ``level`` of ``statistic`` over ``resamples`` resamples of the seeds' ``items``
    (:func:`resample_indices` from ``rng``): ``scipy.stats.bootstrap(..., method="percentile")`` with that
    generator, to the bit (``tests/unit/test_stats.py``). None below 2 seeds, or where an end is not finite: a
    resample that makes the statistic undefined (NaN) makes the interval None."""
    items = list(items)
    if len(items) < 2:
        return None
    indices = resample_indices(len(items), resamples, rng)  # (resamples, seeds)
    distribution = np.array([float(statistic([items[int(i)] for i in row])) for row in indices])  # (resamples,)
    low, high = percentile_interval(distribution, level)
    return (low, high) if math.isfinite(low) and math.isfinite(high) else None


def percentile_interval(distribution: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    """The two-sided percentile interval at ``level`` of a bootstrap distribution: its (1 - level)/2 and
    (1 + level)/2 quantiles by ``scipy.stats.quantile`` (linear interpolation; a NaN anywhere gives NaN ends),
    the quantiles ``scipy.stats.bootstrap`` takes."""
    from scipy import stats

    alpha = (1 - level) / 2
    ends = stats.quantile(np.asarray(distribution, dtype=float), np.asarray([alpha, 1 - alpha]))  # (2,)
    return float(ends[0]), float(ends[1])


def t_tail(t: np.ndarray, df: float) -> np.ndarray:
    """The two-sided tail probability of Student's t statistics ``t`` (any shape, >= 0) with ``df`` degrees of
    freedom (``np.inf``: the normal): ``2 * scipy.stats.t.sf(t, df)``."""
    from scipy import stats

    return 2 * stats.t.sf(t, df)


def student_interval(first: Sequence[float], second: Sequence[float], level: float = LEVEL) -> tuple[float, float]:
    """Student's two-sample t-interval of ``mean(first) - mean(second)`` at ``level``: n1 + n2 - 2 degrees of
    freedom, the standard error sqrt(s1^2/n1 + s2^2/n2) (the pooled one where both sides have as many values, as
    repeated timings do). ValueError below two values a side."""
    if len(first) < 2 or len(second) < 2:
        raise ValueError(f"a difference needs 2 values a side, not {len(first)} and {len(second)}")
    mean = statistics.fmean(first) - statistics.fmean(second)
    spread = (statistics.variance(first) / len(first) + statistics.variance(second) / len(second)) ** 0.5
    half = t_quantile(0.5 + level / 2, len(first) + len(second) - 2) * spread
    return mean - half, mean + half


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
