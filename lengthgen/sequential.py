"""How many seeds decide a claim: intervals at a chosen level, the seeds a close check would need, and
the stopping rule of pytest's ``--lengthgen-until-decided[=MAX]`` and of ``lengthgen run CLAIM
--until-decided[=MAX]``.

The rule (a group-sequential design with a Bonferroni split, fixed before the first look):

- A claim starts at its own seed count n0 (the paper's, or ``--lengthgen-seeds``). The looks are at
  n0, n0 + 4, n0 + 8, ... seeds, the last one at exactly MAX (default 32): ``Plan.schedule(n0)``. Their
  number K is known before any seed is trained.
- At every look each interval that decides closeness is a two-sided interval at level 1 - alpha/K
  (alpha = 0.05): the t-interval of a mean over seeds, or the seed bootstrap of a curve statistic at that
  level. A check is close when that interval contains its threshold.
- The claim stops at the first look where no deciding check is close, or at MAX (then it stays close).
- Why the level holds under repeated looks: if a check's true value sits exactly at its threshold, a
  look "decides" (wrongly: neither side is true) only when its interval misses the threshold, which has
  probability alpha/K at each look; by Bonferroni's inequality the chance that any of the K looks does
  so is at most alpha. Bonferroni needs no assumption about how the looks depend on each other, so it
  holds for the nested seed sets here; it is conservative (``simulate_wrong_decisions`` measures it on
  normal seed streams with the true mean on the threshold, and ``tests/unit/test_sequential.py`` checks that
  the rate stays at most alpha while the same looks each at an unadjusted 95% exceed it). Away from the
  threshold it stops early. The simulated rates and seed counts are in docs/statistics.md.
- Without ``--lengthgen-until-decided`` there is one look (K = 1): the plain 95% intervals.

The loop itself is :func:`until_decided` (the claims' one runner, ``claims/run.py``, calls it). The rule in
force is a :class:`Plan` handed over explicitly: the pytest plugin keeps the option's in its ``config.stash`` and
gives it to the claim tests through its ``until_decided`` fixture, which pass it to ``run_claim(..., plan=...)``;
``lengthgen run`` passes its own. Nothing here holds a process-wide rule.

The t-interval assumes per-seed values roughly normal; the percentile bootstrap over few seeds is an
approximation (with 3 seeds it has 10 distinct resamples). Both are stated on the page.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from lengthgen.stats import normal_quantile, t_half_width, t_quantile

ALPHA = 0.05  # the error level of a decision, split over the looks
BATCH = 4  # seeds added at each look
DEFAULT_MAX = 32  # --until-decided without a value
MAX_LIMIT = 10_000  # the largest MAX accepted (the seed-spec cap of lengthgen.config)
SEEDS_CAP = 100_000  # seeds_to_decide answers None ("more than this") beyond it


@dataclass(frozen=True)
class Plan:
    """The stopping rule of ``--until-decided=MAX`` (see the module docstring)."""

    max_seeds: int  # MAX: the most seeds a claim may end with
    batch: int = BATCH  # seeds added per look
    alpha: float = ALPHA  # the error level over all looks together

    def __post_init__(self) -> None:
        whole = isinstance(self.max_seeds, int) and not isinstance(self.max_seeds, bool)
        if not whole or not 2 <= self.max_seeds <= MAX_LIMIT:
            raise ValueError(f"--until-decided={self.max_seeds!r}: MAX must be an integer in 2..{MAX_LIMIT}")
        if not isinstance(self.batch, int) or self.batch < 1:
            raise ValueError(f"batch={self.batch!r} must be a positive integer")
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha={self.alpha!r} must lie in (0, 1)")

    def schedule(self, first: int) -> tuple[int, ...]:
        """Seed counts at the looks: ``first``, then ``batch`` more each time, the last one at MAX
        (a claim that starts at or above MAX has the one look at ``first``)."""
        if first < 1:
            raise ValueError(f"a claim starts with {first} seeds; it needs at least 1")
        looks = [first]
        while looks[-1] < self.max_seeds:
            looks.append(min(looks[-1] + self.batch, self.max_seeds))
        return tuple(looks)

    def level(self, first: int) -> float:
        """The confidence level of every interval at every look: 1 - alpha / K."""
        return 1.0 - self.alpha / len(self.schedule(first))

    def describe(self, first: int) -> dict:
        looks = self.schedule(first)
        return {
            "rule": "Bonferroni",
            "max_seeds": self.max_seeds,
            "batch": self.batch,
            "alpha": self.alpha,
            "looks_planned": len(looks),
            "schedule": list(looks),
            "level": self.level(first),
        }


def parse_max(text: str | int, option: str = "--until-decided") -> int:
    """The value of ``--until-decided=MAX`` (``lengthgen run``'s; pytest's is ``--lengthgen-until-decided``, the
    ``option`` its message names): an integer in 2..10000, else ValueError naming it."""
    try:
        value = int(str(text).strip())
    except ValueError:
        raise ValueError(f"{option}={text!r}: MAX must be an integer (seeds), e.g. {option}=24") from None
    if not 2 <= value <= MAX_LIMIT:
        raise ValueError(f"{option}={text!r}: MAX must be an integer in 2..{MAX_LIMIT}")
    return value


def until_decided(
    recorder: Any,
    plan: Plan,
    first: tuple[int, ...],
    look: Callable[[tuple[int, ...] | None], Any],
    close_checks: Callable[[Any], Sequence[Any]],
    deciding_check: Callable[[Any], Any],
) -> Any:
    """The stopping rule's loop for one claim; returns the last look's result.

    ``first``: the claim's own seeds (the first look's). ``look(seeds)`` measures the claim at ``seeds`` (None at
    the first look: the claim's own scale; then ``first`` and the next seeds, ``plan.batch`` more at each look)
    and records its checks on ``recorder`` (a ``ClaimRecorder``), whose ``new_look`` starts each look afresh.
    ``close_checks`` / ``deciding_check`` (``lengthgen.records.verdict``'s, handed in by the caller: the rule sits
    above this module) read the record after a look: the claim stops at the first look with no close check, or at
    the plan's last look. The record's ``sequential`` block holds the plan and the path (seeds and close
    intervals at each look)."""
    if not first:
        raise ValueError("a claim without seeds has nothing to add (an exact computation takes one look)")
    looks = plan.schedule(len(first))
    recorder.begin_looks(plan.level(len(first)))
    path: list[dict[str, Any]] = []
    result = None
    for n in looks:
        more = tuple(range(max(first) + 1, max(first) + 1 + n - len(first)))
        recorder.new_look()
        result = look(None if n == len(first) else first + more)
        close = close_checks(recorder.record)
        decider = deciding_check(recorder.record)
        path.append(
            {
                "seeds": n,
                "close": bool(close),
                "close_checks": [interval_of(c) for c in close],
                "deciding": interval_of(decider) if decider is not None else None,
            }
        )
        if not close:
            break
    end = (
        "decided"
        if not path[-1]["close"]
        else "at the maximum"
        if path[-1]["seeds"] >= plan.max_seeds
        else "no further look"
    )
    recorder.end_looks(
        {**plan.describe(len(first)), "path": path, "seeds_final": path[-1]["seeds"], "stopped": end},
        added_seeds=len(path) > 1,
    )
    return result


def interval_of(check: Any) -> dict[str, Any]:
    """A check (``lengthgen.records.Check``) at one look: its statistic and the interval that decides whether it
    is close, as plain data for the record's path."""
    interval = check.decision_ci or check.ci95
    return {
        "name": check.name,
        "value": check.value,
        "op": check.op,
        "threshold": list(check.threshold) if isinstance(check.threshold, tuple) else check.threshold,
        "interval": list(interval) if interval is not None else None,
        "ci95": list(check.ci95) if check.ci95 is not None else None,
    }


def standard_error(ci: Sequence[float], seeds: int, kind: str, level: float = 0.95) -> float | None:
    """The standard error an interval implies: its half-width over the t quantile (t-interval, ``seeds`` - 1
    degrees of freedom) or the normal quantile (bootstrap); None without a usable interval."""
    if ci is None or kind not in ("t", "bootstrap"):
        return None
    low, high = float(ci[0]), float(ci[1])
    if not (math.isfinite(low) and math.isfinite(high)):
        return None
    if kind == "t" and seeds >= 2:
        quantile = t_quantile(0.5 + level / 2, seeds - 1)
    else:
        quantile = normal_quantile(0.5 + level / 2)
    return (high - low) / (2 * quantile)


def seeds_to_decide(distance: float, se: float, seeds: int, level: float = 0.95) -> int | None:
    """About how many seeds would put the threshold outside the interval, from the observed spread.

    ``distance``: |statistic - threshold|; ``se``: the statistic's standard error with ``seeds`` seeds. The
    per-seed spread s = se * sqrt(seeds) is taken as it was measured and the statistic as it stands; the
    answer is the smallest n with t_{(1+level)/2, n-1} * s / sqrt(n) < distance (the t-interval of n seeds
    then excludes the threshold). None when no n up to SEEDS_CAP does (the estimate sits on the threshold).
    """
    if not (math.isfinite(distance) and math.isfinite(se)) or se < 0 or seeds < 1:
        return None
    if se == 0:
        return max(seeds, 2) if distance > 0 else None
    if distance <= 0:
        return None
    spread = se * math.sqrt(seeds)
    quantile = normal_quantile(0.5 + level / 2)
    guess = max(2, int(math.ceil((quantile * spread / distance) ** 2)))  # the normal answer, a lower bound
    if guess > SEEDS_CAP:
        return None
    n = guess
    while n <= SEEDS_CAP:
        if t_half_width(spread, n, level) < distance:
            return n
        n = n + 1 if n < 64 else int(n * 1.01) + 1
    return None


def simulate_wrong_decisions(
    plan: Plan, first: int, streams: int, rng: np.random.Generator, offset: float = 0.0
) -> tuple[float, float]:
    """Run the rule on ``streams`` synthetic seed streams (per-seed values normal, sd 1, true mean
    ``offset`` above the threshold 0); returns ``(decided_rate, mean_seeds_used)``.

    With ``offset = 0`` every decision is wrong (the truth sits on the threshold), so the decided rate is
    the rule's wrong-decision rate, which must be at most ``plan.alpha``.
    """
    looks = plan.schedule(first)
    values = rng.standard_normal((streams, looks[-1])) + offset  # (streams, max seeds)
    level = plan.level(first)
    decided = np.zeros(streams, dtype=bool)
    used = np.full(streams, looks[-1])
    for n in looks:
        if n < 2:
            continue
        prefix = values[:, :n]  # (streams, n)
        mean = prefix.mean(axis=1)
        half = t_half_width(prefix.std(axis=1, ddof=1), n, level)  # (streams,)
        now = ~decided & (np.abs(mean) > half)
        used[now] = n
        decided |= now
    return float(decided.mean()), float(used.mean())
