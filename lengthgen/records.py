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
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

from scipy import stats

from lengthgen.catalogue import claim as catalogue_claim

VERDICTS = ("reproduced", "not reproduced", "inconclusive", "failed")
# reproduced: every check passed; not reproduced: a check failed and the test is a strict xfail;
# inconclusive: the test could not decide (skipped, or recorder.inconclusive(reason));
# failed: a check failed in a test not marked xfail, or the test errored (a regression of the suite)

OPS = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    "==": operator.eq,
    "!=": operator.ne,
    "in": lambda value, bounds: bounds[0] <= value <= bounds[1],
}


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
    figures: dict[str, Any] = field(default_factory=dict)  # plain data for the report's figures
    choices: list[str] = field(default_factory=list)  # details the paper leaves open, as decided here
    notes: list[str] = field(default_factory=list)
    inconclusive_reason: str | None = None
    runtime_s: float | None = None
    verdict: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ClaimRecord":
        data = dict(data)
        data["checks"] = [Check(**c) for c in data.get("checks", [])]
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
                statistic = values[passes.index(False)] if not all(passes) else values[0]
            else:
                raise ValueError(f"unknown reduction {reduce!r}")
        if reduce == "all" and values is not None:
            passed = all(OPS[op](v, threshold) for v in values)
        else:
            passed = bool(OPS[op](statistic, threshold))
        if isinstance(threshold, (list, tuple)):
            threshold = (float(threshold[0]), float(threshold[1]))
        check = Check(name, statistic, op, threshold, passed, values, ci, paper)
        self.record.checks.append(check)
        return check

    def measure(self, name: str, values: float | Sequence[float]) -> Summary:
        """Record a headline quantity (mean, 95% interval, per-seed values) without a threshold."""
        summary = Summary.of([values] if isinstance(values, (int, float)) else values)
        self.record.measured[name] = asdict(summary)
        return summary

    def figure(self, name: str, data: Any) -> None:
        self.record.figures[name] = data

    def choice(self, text: str) -> None:
        self.record.choices.append(text)

    def note(self, text: str) -> None:
        self.record.notes.append(text)

    def inconclusive(self, reason: str) -> None:
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
