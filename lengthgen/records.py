"""The structured result of a claim test: one :class:`ClaimRecord` per test, in plain types.

A claim test fills a :class:`ClaimRecorder` (the ``claim`` fixture): the scale it ran at, one
:class:`Check` per comparison against the catalogue's threshold (the measured statistic, the per-seed
values it summarises, the comparison, the paper's value), plain data for the report's figures, and the
choices the paper leaves open. ``verify()`` raises one ``AssertionError`` listing every failed check
with its measured value. The pytest plugin adds the runtime and the verdict from the test's outcome,
and sends ``to_dict()`` through the test report, so under xdist the controller gathers every
worker's records (``reports/claims.json`` and the HTML report are written from them).
"""

from __future__ import annotations

import math
import operator
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Sequence

from scipy import stats

from lengthgen.catalogue import claim as catalogue_claim

VERDICTS = ("reproduced", "not reproduced", "inconclusive", "failed", "skipped")
# The verdict of a claim test (decided by ``lengthgen.report.verdict.decide``, from the test's outcome and
# its record):
# reproduced: the test passed (every check passed) and nothing left it undecided;
# not reproduced: the test is a strict xfail (a faithful implementation does not reproduce the claim);
# inconclusive: the test could not decide: ``recorder.inconclusive(reason)``, or the run used fewer seeds
#   than the paper's protocol and a deciding check is a mean over seeds whose 95% interval contains the
#   threshold (or has no interval: one seed);
# failed: a check failed in a test not marked xfail, a strict xfail passed, or the test errored;
# skipped: the test did not run at this scale (pytest.skip), with the reason.

OPS = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    "==": operator.eq,
    "!=": operator.ne,
    "in": lambda value, bounds: bounds[0] <= value <= bounds[1],
}


def _closest(values: Sequence[float], op: str, threshold: float | Sequence[float]) -> float:
    """Of values that all pass ``op threshold``, the one nearest to failing (the worst seed)."""
    if op in (">=", ">"):
        return min(values)
    if op in ("<=", "<"):
        return max(values)
    if op == "in":
        return min(values, key=lambda v: min(v - threshold[0], threshold[1] - v))
    if op == "!=":
        return min(values, key=lambda v: abs(v - threshold))
    return values[0]  # "==": every value equals the threshold


@dataclass(frozen=True)
class Summary:
    """Mean over seeds with a two-sided 95% t-interval (``None`` with fewer than two values)."""

    mean: float
    ci95: tuple[float, float] | None
    values: tuple[float, ...]

    @classmethod
    def of(cls, values: Sequence[float]) -> "Summary":
        values = tuple(float(v) for v in values)
        if not values:
            raise ValueError("cannot summarise an empty list of values")
        mean = math.fsum(values) / len(values)
        ci = None
        if len(values) >= 2:
            sem = stats.sem(values)
            if sem == 0 or not math.isfinite(sem):
                ci = (mean, mean)
            else:
                low, high = stats.t.interval(0.95, len(values) - 1, loc=mean, scale=sem)
                ci = (float(low), float(high))
        return cls(mean, ci, values)


@dataclass
class Check:
    """One comparison of a measured statistic with a threshold."""

    name: str  # what is compared, e.g. "RoPE K=2, L=40: accuracy (mean over seeds)"
    value: float  # the statistic compared with the threshold
    op: str  # one of OPS
    threshold: float | tuple[float, float]  # a number, or (low, high) for "in"
    passed: bool
    values: tuple[float, ...] | None = None  # the per-seed (or per-cell) values the statistic summarises
    ci95: tuple[float, float] | None = None  # 95% interval of the mean over ``values``
    paper: str | None = None  # the paper's value for this quantity, as the paper states it
    reduce: str | None = None  # how ``values`` became ``value``: mean, min, max, all (None: a single number)

    def describe(self) -> str:
        threshold = f"[{self.threshold[0]}, {self.threshold[1]}]" if self.op == "in" else f"{self.threshold}"
        text = f"{self.name}: measured {self.value:.4g} {self.op} {threshold}"
        if self.values is not None and len(self.values) > 1:
            text += f" (per seed {', '.join(f'{v:.3g}' for v in self.values)})"
        return text


@dataclass
class ClaimRecord:
    claim: str  # catalogue id
    where: str  # place in the paper
    statement: str  # the paper's claim
    paper_value: str  # what the paper reports
    assertion: str  # the catalogue's check at paper scale
    test: str = ""  # pytest node id
    scale: dict[str, Any] = field(default_factory=dict)  # name, seeds, steps, sequences, ...
    checks: list[Check] = field(default_factory=list)
    measured: dict[str, Any] = field(default_factory=dict)  # headline quantities: name -> Summary as dict
    headlines: list[str] = field(default_factory=list)  # names in ``measured`` that the report shows first
    figures: dict[str, Any] = field(default_factory=dict)  # plain data for the report's figures
    choices: list[str] = field(default_factory=list)  # details the paper leaves open, as decided here
    notes: list[str] = field(default_factory=list)
    inconclusive_reason: str | None = None
    runtime_s: float | None = None  # setup + call of the test, seconds (shared experiments count once)
    verdict: str | None = None  # one of VERDICTS, set by the pytest plugin after the test
    verdict_reason: str | None = None  # why, for every verdict but reproduced (xfail reason, failure, ...)
    outcome: str | None = None  # pytest's outcome: passed, failed, skipped, xfailed, error

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ClaimRecord":
        """The record of ``to_dict()`` (fields unknown to this version are ignored, missing ones defaulted)."""
        known = {f.name for f in fields(cls)}
        data = {k: v for k, v in data.items() if k in known}
        check_fields = {f.name for f in fields(Check)}
        data["checks"] = [  # JSON lists back to the tuples of ``values``, ``ci95`` and an "in" threshold
            Check(**{k: tuple(v) if isinstance(v, list) else v for k, v in c.items() if k in check_fields})
            for c in data.get("checks", [])
        ]
        return cls(**data)


class ClaimRecorder:
    """What a claim test fills in; see the module docstring."""

    def __init__(self, claim_id: str, test: str = ""):
        entry = catalogue_claim(claim_id)
        self.record = ClaimRecord(entry.id, entry.where, entry.statement, entry.paper_value, entry.assertion, test)

    def set_scale(self, **scale: Any) -> None:
        self.record.scale.update(scale)

    def check(
        self,
        name: str,
        value: float | Sequence[float],
        op: str,
        threshold: float | tuple[float, float],
        *,
        paper: str | None = None,
        reduce: str = "mean",
    ) -> Check:
        """Compare ``value`` (a number, or per-seed values reduced by ``reduce``: mean, min, max, all)."""
        if op not in OPS:
            raise ValueError(f"unknown comparison {op!r}")
        values = None
        ci = None
        if isinstance(value, (int, float)):
            statistic = float(value)
        else:
            values = tuple(float(v) for v in value)
            summary = Summary.of(values)
            ci = summary.ci95
            if reduce == "mean":
                statistic = summary.mean
            elif reduce in ("min", "max"):
                statistic = (min if reduce == "min" else max)(values)
            elif reduce == "all":  # every value must pass; the statistic is the worst one
                passes = [OPS[op](v, threshold) for v in values]
                statistic = values[passes.index(False)] if not all(passes) else _closest(values, op, threshold)
            else:
                raise ValueError(f"unknown reduction {reduce!r}")
        if reduce == "all" and values is not None:
            passed = all(OPS[op](v, threshold) for v in values)
        else:
            passed = bool(OPS[op](statistic, threshold))
        if isinstance(threshold, (list, tuple)):
            threshold = (float(threshold[0]), float(threshold[1]))
        check = Check(name, statistic, op, threshold, passed, values, ci, paper, reduce if values is not None else None)
        self.record.checks.append(check)
        return check

    def measure(self, name: str, values: float | Sequence[float], *, headline: bool = False) -> Summary:
        """Record a measured quantity (mean, 95% interval, per-seed values) without a threshold.

        ``headline=True``: the quantity to set beside the paper's value; the report's table and the
        terminal summary show headline quantities first (without any, the quantities in recorded order).
        """
        summary = Summary.of([values] if isinstance(values, (int, float)) else values)
        self.record.measured[name] = asdict(summary)
        if headline and name not in self.record.headlines:
            self.record.headlines.append(name)
        return summary

    def figure(self, name: str, data: Any) -> None:
        self.record.figures[name] = data

    def choice(self, text: str) -> None:
        self.record.choices.append(text)

    def note(self, text: str) -> None:
        self.record.notes.append(text)

    def inconclusive(self, reason: str) -> None:
        """Mark the record undecided (verdict "inconclusive" if the test passes), with the reason."""
        self.record.inconclusive_reason = reason

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.record.checks if not c.passed]

    def verify(self) -> None:
        """Raise ``AssertionError`` naming every failed check and its measured value."""
        if not self.record.checks:
            raise AssertionError(f"{self.record.claim}: the test recorded no checks")
        failed = self.failed
        if failed:
            lines = [f"{self.record.claim} not reproduced: {len(failed)} of {len(self.record.checks)} checks failed"]
            lines += [f"  - {c.describe()}" for c in failed]
            raise AssertionError("\n".join(lines))
