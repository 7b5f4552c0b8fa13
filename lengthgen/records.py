"""The structured result of a claim test: one :class:`ClaimRecord` per test, in plain types.

A claim test fills a :class:`ClaimRecorder` (the ``claim`` fixture): the scale it ran at, one
:class:`Check` per comparison against the catalogue's threshold (the measured statistic, the per-seed
values it summarises, the comparison, the paper's value), plain data for the report's figures, and the
choices the paper leaves open. ``verify()`` raises one ``AssertionError`` listing every failed check
with its measured value. The pytest plugin adds the runtime and the verdict from the test's outcome,
and sends ``to_dict()`` through the test report, so under xdist the controller gathers every
worker's records (``reports/claims.json`` and the HTML report are written from them).

scipy's statistics are imported where a summary or an interval is computed, in the process that ran the test:
the xdist controller and the commands that render a recorded run read records and compute none, and skip
that import (about 0.7 s on one core).
"""

from __future__ import annotations

import math
import operator
from fnmatch import fnmatchcase
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Callable, Sequence

from lengthgen.catalogue import Entry

VERDICTS = (
    "reproduced",
    "not reproduced",
    "not reproduced (undeclared)",
    "unexpectedly reproduced",
    "inconclusive",
    "ruled out",
    "failed",
    "error",
    "skipped",
)
CONTROL_VERDICTS = ("discriminates", "failed", "error", "skipped")
# The verdict of a negative control (a test marked ``@pytest.mark.control("Cn")``): discriminates: the
# claim's checks, fed the control's counterfactual, failed as they must; failed: they all passed (the
# checks cannot fail on that input); error: the control raised something else (the test broke); skipped:
# it did not run.
# The verdict of a claim test (decided by ``lengthgen.report.verdict.decide``, from the test's outcome and
# its record):
# reproduced: the test passed (every check passed) and nothing left it undecided;
# not reproduced: the test declared which of its checks a faithful implementation does not reproduce
#   (``recorder.expect_not_reproduced``), and it failed through exactly those checks (every other check
#   passed, nothing raised); the reason lists this run's measured values of the failing checks;
# not reproduced (undeclared): the test ran to its verdict (``verify()`` raised its AssertionError listing
#   failed checks) and some failing check is not declared: a finding, off the catalogue's point (a
#   robustness setting, a reading of an open choice, more or other seeds through --seeds or
#   --until-decided) or at it; the reason says where it ran and lists the failing checks with their
#   measured values. Not an error; the exit status stays a gate (pytest reports the test as failed);
# unexpectedly reproduced: a declared non-reproduction (strict: the paper's seeds) whose checks all passed;
# inconclusive: the test could not decide: ``recorder.inconclusive(reason)``, or the run used fewer seeds
#   than the paper's protocol and a deciding check is a mean over seeds whose 95% interval contains the
#   threshold (or has no interval: one seed);
# failed: the test failed in a way no verdict above accounts for: an assertion outside the recorder (a
#   plain ``assert``, ``verify()`` with no checks or with a declared pattern that names no check), or an
#   xfail that is not the recorder's declared finding (a bare ``pytest.xfail``, or one with no failing
#   or with undeclared failing checks); the reason is pytest's message;
# error: the test raised something other than an AssertionError, or its setup failed: the test broke
#   (the error's last line);
# skipped: the test did not run at this scale (pytest.skip), with the reason;
# ruled out: a multiverse cell whose reading the paper's own results rule out: a precondition of the claim
#   (what the paper reports of the models it reads, e.g. "the heads fit the task in range") failed on the
#   universe's models (``recorder.precondition``), so the claim's checks did not run. Neither reproduced nor
#   not: the reading is not one the paper can have used (``claims/preconditions.py``).
# Every verdict but error, failed and skipped rests on the record's checks; each check says where its
# threshold comes from (``THRESHOLD_SOURCES``), and the record's ``threshold_basis`` whether its deciding
# checks are the paper's numbers or the suite's readings.

THRESHOLD_SOURCES = ("paper-number", "paper-range", "suite-reading", "catalogue-prediction")
# Where a check's threshold comes from (``Check.threshold_source``):
# paper-number: the paper states it: a number (C15's 0.67 / 0.75 / 0.79 within rounding) or an exact
#   condition (the selected offset is -K, the bound <= a*, c > 0, c falls with d);
# paper-range: the paper's own range, unwidened;
# suite-reading: the suite's reading of the paper's words or numbers: a qualitative word ("near-perfect"
#   as >= 0.95, "near chance" as <= 1/m + 0.10, "a few hundred steps" as before step 1000), a margin
#   around a number the paper states (C11's 0.96 read as >= 0.85), or the paper's range widened (C4's,
#   C17's 0.72-0.86 read as [0.65, 0.95] / [0.6, 0.95]);
# catalogue-prediction: a prediction's threshold (P1-P6), fixed by the catalogue before its test was written;
#   the paper states none.
PAPER_SOURCES = ("paper-number", "paper-range")  # the sources that are the paper's own
THRESHOLD_BASES = ("paper", "suite reading", "catalogue prediction")
# A record's ``threshold_basis`` (``threshold_basis``), over its deciding checks (the failed checks when
# some failed, else every check): paper: every one's threshold is the paper's; catalogue prediction:
# every one is a prediction's; suite reading: some is the suite's reading (or states no source).
VERIFIED = ("held", "not reproduced", "undeclared failures", "unexpected pass", "ruled out", "undeclared ruled out")
# What ``ClaimRecorder.verify`` concluded (``ClaimRecord.verified``; None: it did not reach a conclusion):
# every check held; the declared checks failed and only they; some undeclared check failed; a strict
# declaration passed every check; a precondition failed and the declarations expect it (the cell is ruled out);
# a precondition failed where the declarations expect the cell admissible.

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
            from scipy import stats  # here, not at import: the report's readers never summarise (module docstring)

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
    expected_to_fail: bool = False  # named by the test's declared non-reproduction (its pattern matches)
    interval: str | None = (
        None  # how ``ci95`` was computed: "t" (mean over seeds), "bootstrap" (seeds resampled), "exact"
    )
    decision_ci: tuple[float, float] | None = None  # the same interval at the run's decision level (--until-decided:
    # 1 - 0.05/looks, lengthgen.sequential); None: ci95 decides whether the check is close
    threshold_source: str | None = None  # where the threshold comes from: one of THRESHOLD_SOURCES (None: not stated)
    threshold_note: str | None = None  # the paper's words or number the threshold reads, e.g. '"near-perfect"'

    def describe(self) -> str:
        threshold = f"[{self.threshold[0]}, {self.threshold[1]}]" if self.op == "in" else f"{self.threshold}"
        text = f"{self.name}: measured {self.value:.4g} {self.op} {threshold}"
        if self.values is not None and len(self.values) > 1:
            text += f" (per seed {', '.join(f'{v:.3g}' for v in self.values)})"
        return text

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Check":
        """The check of ``asdict`` (JSON lists back to tuples; fields unknown to this version ignored)."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k in known})


def threshold_basis(checks: Sequence[Check]) -> str | None:
    """The record's ``threshold_basis`` (see ``THRESHOLD_BASES``); None without checks."""
    failed = [c for c in checks if not c.passed]
    deciding = failed or list(checks)
    if not deciding:
        return None
    sources = {c.threshold_source for c in deciding}
    if sources <= set(PAPER_SOURCES):
        return "paper"
    if sources == {"catalogue-prediction"}:
        return "catalogue prediction"
    return "suite reading"


def suite_reading_note(checks: Sequence[Check]) -> str:
    """A sentence for a verdict that turns only on the suite's readings (every check in ``checks`` is one),
    else ""."""
    if not checks or any(c.threshold_source != "suite-reading" for c in checks):
        return ""
    return (
        "; every failing check's threshold is the suite's reading of the paper, not a number the paper "
        "states (threshold_basis: suite reading)"
    )


@dataclass
class ClaimRecord:
    claim: str  # catalogue id
    where: str  # place in the paper
    statement: str  # the paper's claim
    paper_value: str  # what the paper reports
    assertion: str  # the catalogue's check at paper scale
    test: str = ""  # pytest node id
    title: str = ""  # the claim in a few words
    prediction: bool = False  # a prediction beyond the paper, not one of its claims
    scale: dict[str, Any] = field(default_factory=dict)  # name, seeds, steps, sequences, ...
    checks: list[Check] = field(default_factory=list)
    measured: dict[str, Any] = field(default_factory=dict)  # headline quantities: name -> Summary as dict
    headlines: list[str] = field(default_factory=list)  # names in ``measured`` that the report shows first
    figures: dict[str, Any] = field(default_factory=dict)  # plain data for the report's figures
    choices: list[str] = field(default_factory=list)  # details the paper leaves open, as decided here
    notes: list[str] = field(default_factory=list)
    inconclusive_reason: str | None = None
    runtime_s: float | None = None  # setup + call of the test, seconds (shared experiments count once)
    models_trained: int | None = None  # models its process trained during it (a model two tests share counts in
    # the one that trained it; None: a record of an older version)
    verdict: str | None = None  # one of VERDICTS, set by the pytest plugin after the test
    verdict_reason: str | None = None  # why, for every verdict but reproduced (xfail reason, failure, ...)
    outcome: str | None = None  # pytest's outcome: passed, failed, skipped, xfailed, error
    kind: str = "claim"  # "claim" (a claim test) or "control" (its negative control)
    expected_failures: dict[str, Any] | None = None  # {"patterns", "why", "strict"}: a declared non-reproduction
    counterfactual: str | None = None  # a control's input: what replaced the real result, and why it must fail
    setting: str | None = None  # the robustness setting (lengthgen.experiments.robustness) it ran at (set_setting);
    # None: the paper's point
    reading: str | None = None  # the multiverse universe (lengthgen.readings) it ran under (set_reading); None: the
    # suite's readings
    close: bool = False  # a deciding check's interval contains its threshold (lengthgen.report.verdict.close_checks)
    close_checks: list[str] = field(default_factory=list)  # the names of those checks
    seeds_to_decide: dict[str, Any] = field(default_factory=dict)  # close check -> about how many seeds would decide it
    sequential: dict[str, Any] | None = None  # --until-decided: the plan, the path (seeds, intervals per look), the end
    verified: str | None = None  # what verify() concluded: one of VERIFIED; None: it raised before a conclusion
    threshold_basis: str | None = None  # paper / suite reading / catalogue prediction (THRESHOLD_BASES), computed
    # from the checks by to_dict()
    preconditions: list[Check] = field(default_factory=list)  # what the paper reports of the models the claim
    # reads, measured on the universe's models before its checks (a multiverse cell; claims/preconditions.py)
    ruled_out: str | None = None  # why a precondition ruled the cell out (None: admissible, or not a cell)
    expected_ruled_out: list[str] | None = None  # the preconditions the declarations expect to fail (None: none)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["threshold_basis"] = threshold_basis(self.checks)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ClaimRecord":
        """The record of ``to_dict()`` (fields unknown to this version are ignored, missing ones defaulted)."""
        known = {f.name for f in fields(cls)}
        data = {k: v for k, v in data.items() if k in known}
        data["checks"] = [Check.from_dict(c) for c in data.get("checks", [])]
        data["preconditions"] = [Check.from_dict(c) for c in data.get("preconditions", [])]
        return cls(**data)


@dataclass(frozen=True)
class LookStart:
    """What a record holds when the stopping rule's looks begin (``ClaimRecorder.begin_looks``): every look
    starts from it afresh, so the record keeps the last look's checks only."""

    checks: tuple[Check, ...]  # the checks recorded before the first look
    measured: tuple[tuple[str, Any], ...]  # the measured quantities (name, summary), in recorded order
    headlines: tuple[str, ...]  # the headline quantities' names
    notes: tuple[str, ...]  # the notes
    choices: tuple[str, ...]  # the choices
    figures: tuple[tuple[str, Any], ...]  # the figures (name, data), in recorded order

    @classmethod
    def of(cls, record: "ClaimRecord") -> "LookStart":
        return cls(
            tuple(record.checks),
            tuple(record.measured.items()),
            tuple(record.headlines),
            tuple(record.notes),
            tuple(record.choices),
            tuple(record.figures.items()),
        )

    def restore(self, record: "ClaimRecord") -> None:
        """Put ``record``'s six looked-at fields back to what they held at the start (fresh containers)."""
        record.checks, record.measured, record.headlines = list(self.checks), dict(self.measured), list(self.headlines)
        record.notes, record.choices, record.figures = list(self.notes), list(self.choices), dict(self.figures)


class ClaimRecorder:
    """What a claim test fills in; see the module docstring."""

    def __init__(self, claim: Entry | str, test: str = ""):
        """``claim``: its catalogue entry (the claims' registry's), or only its id where the registry has none."""
        if isinstance(claim, str):
            self.record = ClaimRecord(claim, "", "", "", "", test)
        else:
            self.record = ClaimRecord(
                claim.id,
                claim.where,
                claim.statement,
                claim.paper_value,
                claim.assertion,
                test,
                title=claim.title,
                prediction=claim.prediction,
            )
        self.decision_level = DECISION_LEVEL  # level of each check's decision_ci (begin_looks raises it)
        self._look_start: LookStart | None = None  # what each look starts from (begin_looks); None: no looks

    def set_scale(self, **scale: Any) -> None:
        self.record.scale.update(scale)

    def set_setting(self, name: str) -> None:
        """The robustness setting this record ran at (``lengthgen.experiments.robustness``)."""
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"robustness setting {name!r} must be a non-empty name")
        self.record.setting = name

    def set_reading(self, name: str) -> None:
        """The multiverse universe this record ran under (``lengthgen.readings``)."""
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"multiverse reading {name!r} must be a non-empty name")
        self.record.reading = name

    def begin_looks(self, level: float) -> None:
        """The stopping rule's looks begin (``lengthgen.sequential.until_decided``): every interval that decides
        closeness is taken at ``level`` from now on, and every look starts from what the record holds now."""
        if not 0 < level < 1:
            raise ValueError(f"decision level {level!r} must lie in (0, 1)")
        self.decision_level = level
        self._look_start = LookStart.of(self.record)

    def new_look(self) -> None:
        """A new look: the checks, measures, headlines, notes, choices and figures of the earlier looks go."""
        if self._look_start is None:
            raise ValueError(f"{self.record.claim}: a new look before begin_looks")
        self._look_start.restore(self.record)

    def end_looks(self, sequential: dict[str, Any], added_seeds: bool) -> None:
        """The looks ended: the record's ``sequential`` block (the plan, the path, the end); ``added_seeds``:
        the last look had more seeds than the declaration's, so a declared non-reproduction is no longer
        strict (a pass is a finding)."""
        if added_seeds and self.record.expected_failures is not None:
            self.record.expected_failures["strict"] = False
        self.record.sequential = sequential

    def check(
        self,
        name: str,
        value: float | Sequence[float],
        op: str,
        threshold: float | tuple[float, float],
        *,
        paper: str | None = None,
        reduce: str = "mean",
        bootstrap: tuple[Sequence[Any], Callable[[Sequence[Any]], float]] | None = None,
        exact: bool = False,
        source: str | None = None,
        source_note: str | None = None,
    ) -> Check:
        """Compare ``value`` (a number, or per-seed values reduced by ``reduce``: mean, min, max, all).

        ``bootstrap=(per_seed, statistic)``: ``value`` is a statistic of the seed-mean curve (a fit, an
        ordering, a ratio); ``statistic(items)`` recomputes it from any list of per-seed items, and the
        check's 95% interval is a seed bootstrap of it (``scipy.stats.bootstrap``, seeds resampled with a
        fixed generator: a rerun gives the same interval). ``exact=True``: an exact computation (no
        seeds, no interval: the page says "exact").

        ``source``: where the threshold comes from, one of ``THRESHOLD_SOURCES``; ``source_note``: the
        paper's words or number it reads. Every claim module passes ``source`` (tests/test_threshold_sources.py
        checks each call); a check without one counts as a suite reading in ``threshold_basis``.
        """
        if op not in OPS:
            raise ValueError(f"unknown comparison {op!r}")
        if source is not None and source not in THRESHOLD_SOURCES:
            raise ValueError(
                f"check {name!r}: unknown threshold source {source!r}; expected one of {', '.join(THRESHOLD_SOURCES)}"
            )
        if bootstrap is not None and not isinstance(value, (int, float)):
            raise ValueError(f"check {name!r}: a bootstrap check takes the statistic itself as its value")
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
        kind = "t" if ci is not None else None
        if bootstrap is not None:
            ci, kind = seed_bootstrap(*bootstrap), "bootstrap"
        elif exact:
            kind = "exact"
        decision = None
        if self.decision_level != DECISION_LEVEL and kind == "bootstrap":
            decision = seed_bootstrap(*bootstrap, level=self.decision_level)
        elif self.decision_level != DECISION_LEVEL and kind == "t":
            from lengthgen.sequential import t_interval

            decision = t_interval(values, self.decision_level)
        check = Check(
            name,
            statistic,
            op,
            threshold,
            passed,
            values,
            ci,
            paper,
            reduce if values is not None else None,
            interval=kind,
            decision_ci=decision,
            threshold_source=source,
            threshold_note=source_note,
        )
        self.record.checks.append(check)
        return check

    def precondition(
        self, name: str, value: float | Sequence[float], op: str, threshold: float, **kwargs: Any
    ) -> Check:
        """Record a precondition of the claim (what the paper reports of the models it reads), measured as
        :meth:`check` measures, kept apart from the claim's checks (``record.preconditions``)."""
        made = self.check(name, value, op, threshold, **kwargs)
        self.record.checks.pop()
        self.record.preconditions.append(made)
        return made

    def rule_out(self, reason: str) -> None:
        """The cell is ruled out: a precondition failed (``reason`` names it with its numbers); its checks do
        not run."""
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError(f"a ruled-out cell needs a reason, got {reason!r}")
        self.record.ruled_out = reason

    def expect_ruled_out(self, preconditions: Sequence[str]) -> None:
        """The declarations expect the preconditions named (patterns, as ``expect_not_reproduced``) to fail:
        the cell reads ruled out; if they hold, the cell is a finding (undeclared or unexpectedly reproduced)."""
        names = list(preconditions)
        if not names or not all(isinstance(p, str) and p for p in names):
            raise ValueError(f"expected ruled-out preconditions {preconditions!r} must be non-empty names")
        self.record.expected_ruled_out = names

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

    def expect_not_reproduced(
        self,
        scale: Any,
        checks: str | Sequence[str],
        why: str,
        scales: Sequence[str] = ("paper",),
        strict: bool | None = None,
    ) -> None:
        """Declare a known non-reproduction at ``scales``: the checks whose names match ``checks``
        (``fnmatch`` patterns, e.g. ``"K=1 L=4[08]: accuracy*"``) are expected to fail, for the reason
        ``why`` (what the finding is, without numbers: the verdict's reason adds this run's measured values).

        ``verify()`` then says "not reproduced" only when the failed checks are exactly among those named
        (each other check must pass). A strict declaration fails the test if every check passes (an unexpected
        pass); a non-strict one reads a pass as reproduced. ``strict``: said by the caller (the robustness map,
        the multiverse); None: strict with the paper's seeds, not with other seeds (``--lengthgen-seeds``).
        """
        if scale.name not in scales:
            return
        patterns = [checks] if isinstance(checks, str) else list(checks)
        if not patterns or not all(isinstance(p, str) and p for p in patterns):
            raise ValueError(f"expected-failure patterns {checks!r} must be non-empty strings")
        if strict is not None and not isinstance(strict, bool):
            raise ValueError(f"strict={strict!r} must be True, False or None")
        strict = scale.seeds is None if strict is None else strict
        self.record.expected_failures = {"patterns": patterns, "why": why, "strict": strict}

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.record.checks if not c.passed]

    def verify(self) -> None:
        """Raise ``AssertionError`` naming every failed check and its measured value; or, for a declared
        non-reproduction that failed through exactly its named checks, :class:`NotReproduced` with
        those checks' measured values (see ``expect_not_reproduced``)."""
        if self.record.ruled_out is not None:
            self._verify_ruled_out()
            return
        if not self.record.checks:
            raise AssertionError(f"{self.record.claim}: the test recorded no checks")
        if self.record.expected_ruled_out is not None:
            self._verify_admissible()
        expected = self.record.expected_failures
        if expected is not None:
            for c in self.record.checks:
                c.expected_to_fail = matches(c.name, expected["patterns"])
            unmatched = [p for p in expected["patterns"] if not any(fnmatchcase(c.name, p) for c in self.record.checks)]
            if unmatched:
                raise AssertionError(f"{self.record.claim}: expected-failure pattern(s) {unmatched} match no check")
        failed = self.failed
        unexpected = [c for c in failed if not c.expected_to_fail]
        self.record.verified = (
            "undeclared failures"
            if unexpected
            else "not reproduced"
            if failed
            else "unexpected pass"
            if expected is not None and expected["strict"]
            else "held"
        )
        if unexpected:
            lines = [
                f"{self.record.claim} failed: {len(unexpected)} of {len(self.record.checks)} checks failed"
                + (" that are not among the expected failures" if expected else "")
            ]
            lines += [f"  - {c.describe()}" for c in unexpected]
            raise AssertionError("\n".join(lines))
        if expected is None:
            return
        if failed:
            raise NotReproduced(
                not_reproduced_reason(self.record.claim, failed, len(self.record.checks), expected["why"])
            )
        if expected["strict"]:
            raise AssertionError(
                f"{self.record.claim}: unexpected pass: declared not reproduced ({expected['why']}; checks "
                f"{expected['patterns']}), but every one of {len(self.record.checks)} checks passed"
            )

    def _verify_ruled_out(self) -> None:
        """A ruled-out cell: as declared, or a finding (its preconditions failed where none is expected)."""
        expected = self.record.expected_ruled_out or []
        failed = [c.name for c in self.record.preconditions if not c.passed]
        if expected and all(any(fnmatchcase(name, p) for p in expected) for name in failed):
            self.record.verified = "ruled out"
            return
        self.record.verified = "undeclared ruled out"
        raise AssertionError(
            f"{self.record.claim}: ruled out ({self.record.ruled_out}), which the declarations do not expect"
            + (f" (they expect {expected})" if expected else "")
        )

    def _verify_admissible(self) -> None:
        """Declared ruled out, but every precondition held: the checks ran, and whatever they say is a finding."""
        failed = self.failed
        self.record.verified = "undeclared failures" if failed else "unexpected pass"
        lines = [
            f"{self.record.claim}: declared ruled out by {self.record.expected_ruled_out}, but every precondition "
            f"held; {len(failed)} of {len(self.record.checks)} checks failed"
        ]
        lines += [f"  - {c.describe()}" for c in failed]
        raise AssertionError("\n".join(lines))


BOOTSTRAP_RESAMPLES = 2000  # enough for a stable 95% percentile interval, and cheap for a seed-mean fit
BOOTSTRAP_SEED = 20240601  # the bootstrap's own generator: the same interval on every rerun
DECISION_LEVEL = 0.95  # the level of ci95; --until-decided raises a run's decision level (lengthgen.sequential)


def seed_bootstrap(
    items: Sequence[Any], statistic: Callable[[Sequence[Any]], float], level: float = DECISION_LEVEL
) -> tuple[float, float] | None:
    """Percentile interval (95% unless ``level``) of ``statistic`` over seeds resampled with replacement
    (None below 2 seeds).

    A resample that makes the statistic undefined (e.g. a fit through identical rows) is dropped by
    scipy as NaN-producing; the interval is then over the others."""
    import numpy as np
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


REASON_CHECKS = 4  # failing checks whose measured values the reason spells out (the rest are counted)


def matches(name: str, patterns: Sequence[str]) -> bool:
    return any(fnmatchcase(name, p) for p in patterns)


def not_reproduced_reason(claim: str, failed: Sequence[Check], total: int, why: str) -> str:
    """The verdict's reason, from this run's measured values of the failing checks."""
    shown = "; ".join(c.describe() for c in failed[:REASON_CHECKS])
    more = f"; and {len(failed) - REASON_CHECKS} more" if len(failed) > REASON_CHECKS else ""
    return (
        f"{claim}: {len(failed)} of {total} checks fail as expected ({why}): {shown}{more}; "
        f"the other {total - len(failed)} checks hold{suite_reading_note(failed)}"
    )


class NotReproduced(Exception):
    """Raised by ``ClaimRecorder.verify`` for a declared non-reproduction that failed through exactly its
    named checks; the pytest plugin turns it into an xfail whose reason is ``reason``."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class ControlRecorder:
    """The ``control`` fixture: a negative control feeds a counterfactual (built from real models where
    one exists) to the claim's own check function and requires that the checks fail.

    ``run(description, check, counterfactual, *args)`` calls ``check(recorder, counterfactual, *args)``
    on a fresh :class:`ClaimRecorder` of the claim; ``verify()`` raises ``AssertionError`` if every check
    passed (a check that cannot fail on this input is no check). The record (kind "control") carries the
    checks as evaluated on the counterfactual, so the report shows which of them failed.
    """

    def __init__(self, claim: Entry | str, test: str = ""):
        self.claim_id = claim if isinstance(claim, str) else claim.id
        self.probe = ClaimRecorder(claim, test)
        self.record = self.probe.record
        self.record.kind = "control"

    def set_scale(self, **scale: Any) -> None:
        self.record.scale.update(scale)

    def run(self, description: str, check: Any, counterfactual: Any, *args: Any, **kwargs: Any) -> list[Check]:
        """The claim's checks on ``counterfactual``; returns the failed ones."""
        self.record.counterfactual = description
        check(self.probe, counterfactual, *args, **kwargs)
        return self.probe.failed

    def verify(self) -> None:
        if not self.record.checks:
            raise AssertionError(f"control of {self.claim_id}: the counterfactual recorded no checks")
        failed = self.probe.failed
        if not failed:
            raise AssertionError(
                f"control of {self.claim_id} does not discriminate: all {len(self.record.checks)} checks passed on "
                f"the counterfactual ({self.record.counterfactual})"
            )
