"""What a claim test fills in: :class:`ClaimRecorder` (the ``claim`` fixture) and :class:`ControlRecorder` (the
``control`` fixture of a negative control). A test records the scale it ran at, one :class:`Check` per
comparison with the catalogue's threshold, its measured quantities, plain data for its figures, the choices the
paper leaves open and its notes; ``verify()`` decides the record's verdict once (``lengthgen.records.verdict``)
and ends the test the way the verdict says: it returns (reproduced, ruled out, inconclusive, a control that
discriminates), raises :class:`NotReproduced` for a declared non-reproduction (the plugin makes it pytest's
xfail), or raises :class:`VerdictFailed` (an ``AssertionError``) for a finding or a check that cannot fail.

scipy's statistics are imported where a summary or an interval is computed, in the process that ran the test.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from lengthgen.catalogue import Entry
from lengthgen.records.basis import label as label_by_rule
from lengthgen.records.check import (
    DECISION_LEVEL,
    OPS,
    THRESHOLD_SOURCES,
    Check,
    Measure,
    bounds_of,
    summarise,
    worst,
)
from lengthgen.records.record import AtSetting, ClaimRecord, Control, Declared, InUniverse
from lengthgen.records.verdict import FAIL, XFAIL, decide
from lengthgen.records.verdicts import Verdict
from lengthgen.stats import seed_bootstrap, t_interval

BOOTSTRAP_SEED = 20240601  # the seed of a bootstrap check's generator, fresh per interval: the same one on every rerun


class NotReproduced(Exception):
    """A declared non-reproduction that failed through exactly its named checks; the pytest plugin turns it
    into an xfail whose reason is ``reason``."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class VerdictFailed(AssertionError):
    """The verdict fails the test: a finding (not reproduced undeclared, unexpectedly reproduced), a control that
    does not discriminate, or a test that cannot be decided (no checks, a declared pattern naming none)."""


@dataclass(frozen=True)
class LookStart:
    """What a record holds when the stopping rule's looks begin (``ClaimRecorder.begin_looks``): every look
    starts from it afresh, so the record keeps the last look's checks only."""

    checks: tuple[Check, ...]  # the checks recorded before the first look
    measured: tuple[Measure, ...]  # the measured quantities, in recorded order
    notes: tuple[str, ...]  # the notes
    choices: tuple[str, ...]  # the choices
    figures: tuple[tuple[str, Any], ...]  # the figures (name, data), in recorded order

    @classmethod
    def of(cls, record: ClaimRecord) -> "LookStart":
        return cls(
            tuple(record.checks),
            tuple(record.measured),
            tuple(record.notes),
            tuple(record.choices),
            tuple(record.figures.items()),
        )

    def restore(self, record: ClaimRecord) -> None:
        """Put ``record``'s looked-at fields back to what they held at the start (fresh containers)."""
        record.checks, record.measured = list(self.checks), list(self.measured)
        record.notes, record.choices, record.figures = list(self.notes), list(self.choices), dict(self.figures)


class ClaimRecorder:
    """What a claim test fills in; see the module docstring."""

    def __init__(self, claim: Entry | str, test: str = ""):
        """``claim``: its catalogue entry (the claims' registry's), or only its id where the registry has none."""
        if isinstance(claim, str):
            self.record = ClaimRecord(claim, test=test)
        else:
            self.record = ClaimRecord(
                claim.id,
                claim.where,
                claim.statement,
                claim.paper_value,
                claim.assertion,
                claim.title,
                claim.prediction,
                test,
                claim.quote,
            )
        self.knows_quote = not isinstance(claim, str)  # its entry's quote decides paper labels (a bare id: none)
        self.decision_level = DECISION_LEVEL  # level of each check's decision_ci (begin_looks raises it)
        self._look_start: LookStart | None = None  # what each look starts from (begin_looks); None: no looks

    def set_scale(self, **scale: Any) -> None:
        self.record.scale.update(scale)

    def set_setting(self, name: str) -> None:
        """The robustness setting this record ran at (``lengthgen.experiments.robustness``)."""
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"robustness setting {name!r} must be a non-empty name")
        self.record.mode = AtSetting(name)

    def set_universe(self, name: str) -> None:
        """The multiverse universe this record ran in (``lengthgen.readings.Universe``'s name)."""
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"multiverse universe {name!r} must be a non-empty name")
        if isinstance(self.record.mode, InUniverse):  # what was declared of the cell before stays
            self.record.mode.universe = name
        else:
            self.record.mode = InUniverse(name)

    def begin_looks(self, level: float) -> None:
        """The stopping rule's looks begin (``lengthgen.sequential.until_decided``): every interval that decides
        closeness is taken at ``level`` from now on, and every look starts from what the record holds now."""
        if not 0 < level < 1:
            raise ValueError(f"decision level {level!r} must lie in (0, 1)")
        self.decision_level = level
        self._look_start = LookStart.of(self.record)

    def new_look(self) -> None:
        """A new look: the checks, measures, notes, choices and figures of the earlier looks go."""
        if self._look_start is None:
            raise ValueError(f"{self.record.claim}: a new look before begin_looks")
        self._look_start.restore(self.record)

    def end_looks(self, sequential: dict[str, Any], added_seeds: bool) -> None:
        """The looks ended: the record's ``looks`` block (the plan, the path, the end); ``added_seeds``: the last
        look had more seeds than the declaration's, so a declared non-reproduction is no longer strict (a pass is
        a finding)."""
        if added_seeds and self.record.declared is not None:
            self.record.declared = replace(self.record.declared, strict=False)
        self.record.looks = sequential

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
        bounds: tuple[float, float] | None = None,
        quoted: str | None = None,
        at: Mapping[str, Any] | None = None,
    ) -> Check:
        """Compare ``value`` (a number, or per-seed values reduced by ``reduce``: mean, min, max, all).

        ``bootstrap=(per_seed, statistic)``: ``value`` is a statistic of the seed-mean curve (a fit, an
        ordering, a ratio); ``statistic(items)`` recomputes it from any list of per-seed items, and the
        check's 95% interval is a seed bootstrap of it (seeds resampled with a fixed generator: a rerun gives
        the same interval). ``exact=True``: an exact computation (no seeds, no interval: the page says "exact").
        ``source``: where the threshold comes from, one of ``THRESHOLD_SOURCES``; ``source_note``: the paper's
        words or number it reads. A check without a source counts as a suite reading. ``bounds``: the measured
        quantity's bounds, e.g. (0, 1) for an accuracy or a share (a mean of it then gets an interval inside them,
        ``lengthgen.stats.bounded_interval``); None: read from the check's name (``check.bounds_of``).
        ``quoted``: for a check labelled the paper's, the token of the claim's quote it reads; the label must be
        the one the rule gives (``lengthgen.records.basis.label``: ValueError naming the check otherwise) wherever
        the recorder knows the claim's entry. ``at``: the coordinates it measures at, the ones its name prints
        (``{"encoding": "rope", "K": 2, "L": 40}``): what a precondition and a check are matched by.
        """
        if op not in OPS:
            raise ValueError(f"unknown comparison {op!r}")
        if source is not None and source not in THRESHOLD_SOURCES:
            raise ValueError(
                f"check {name!r}: unknown threshold source {source!r}; expected one of {', '.join(THRESHOLD_SOURCES)}"
            )
        if self.knows_quote:  # made from the claim's entry: its quote decides which labels are the paper's
            reduced = None if isinstance(value, (int, float)) else reduce  # per-seed values: their reduction
            source = label_by_rule(name, source, self.record.quote, quoted, op, threshold, reduced)
        if bootstrap is not None and not isinstance(value, (int, float)):
            raise ValueError(f"check {name!r}: a bootstrap check takes the statistic itself as its value")
        values = None
        ci = None
        if isinstance(value, (int, float)):
            statistic = float(value)
        else:
            values = tuple(float(v) for v in value)
            mean, ci = summarise(values)
            if reduce == "mean":
                statistic = mean
            elif reduce in ("min", "max"):
                statistic = (min if reduce == "min" else max)(values)
            elif reduce == "all":  # every value must pass; the statistic is the worst one
                statistic = worst(values, op, threshold)
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
            ci, kind = seed_bootstrap(*bootstrap, np.random.default_rng(BOOTSTRAP_SEED)), "bootstrap"
        elif exact:
            kind = "exact"
        decision = None
        raised = self.decision_level != DECISION_LEVEL
        if raised and kind == "bootstrap":
            decision = seed_bootstrap(*bootstrap, np.random.default_rng(BOOTSTRAP_SEED), self.decision_level)
        elif raised and kind == "t":
            decision = t_interval(values, self.decision_level)
        run_seeds = self.record.scale.get("seeds")
        seeds = len(values) if kind == "t" else run_seeds if isinstance(run_seeds, int) and run_seeds > 0 else None
        made = Check(
            name,
            statistic,
            op,
            threshold,
            passed,
            values,
            ci,
            paper,
            reduce if values is not None else None,
            kind,
            decision,
            self.decision_level if decision is not None else DECISION_LEVEL,
            seeds,
            source,
            source_note,
            bounds=bounds if bounds is not None else bounds_of(name),
            quoted=quoted,
            at=at or {},
        )
        self.record.checks.append(made)
        return made

    def precondition(
        self, name: str, value: float | Sequence[float], op: str, threshold: float, **kwargs: Any
    ) -> Check:
        """Record a precondition of the claim (what the paper reports of the models it reads), measured as
        :meth:`check` measures, kept apart from the claim's checks (the cell's ``preconditions``)."""
        if not isinstance(self.record.mode, InUniverse):
            self.record.mode = InUniverse("?")
        made = self.check(name, value, op, threshold, **kwargs)
        self.record.checks.pop()
        self.record.mode.preconditions.append(made)
        return made

    def rule_out(self, reason: str) -> None:
        """The cell is ruled out: a precondition failed (``reason`` names it with its numbers); its checks do
        not run."""
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError(f"a ruled-out cell needs a reason, got {reason!r}")
        if not isinstance(self.record.mode, InUniverse):
            raise ValueError(f"{self.record.claim}: only a multiverse cell can be ruled out")
        self.record.mode.ruled_out = reason

    def expect_ruled_out(self, preconditions: Sequence[str]) -> None:
        """The declarations expect the preconditions named (patterns) to fail: the cell reads ruled out; if they
        hold, the cell is a finding (undeclared or unexpectedly reproduced)."""
        names = list(preconditions)
        if not names or not all(isinstance(p, str) and p for p in names):
            raise ValueError(f"expected ruled-out preconditions {preconditions!r} must be non-empty names")
        if isinstance(self.record.mode, (AtSetting, Control)):
            raise ValueError(f"{self.record.claim}: only a multiverse cell can be declared ruled out")
        if not isinstance(self.record.mode, InUniverse):  # its universe is set as it runs (set_universe)
            self.record.mode = InUniverse("?")
        self.record.mode.expected_ruled_out = tuple(names)

    def measure(self, name: str, values: float | Sequence[float], *, headline: bool = False) -> Measure:
        """Record a measured quantity (mean, 95% interval, per-seed values) without a threshold; ``headline``:
        the quantity to set beside the paper's value (the report shows headline quantities first)."""
        before = self.record.measured_by_name.get(name)
        made = Measure.of(name, values, headline or (before is not None and before.headline))
        if before is None:
            self.record.measured.append(made)
        else:  # measured again: in its place, as the first time
            self.record.measured = [made if m.name == name else m for m in self.record.measured]
        return made

    def figure(self, name: str, data: Any) -> None:
        self.record.figures[name] = data

    def choice(self, text: str) -> None:
        self.record.choices.append(text)

    def note(self, text: str) -> None:
        self.record.notes.append(text)

    def inconclusive(self, reason: str) -> None:
        """Mark the record undecided (verdict "inconclusive" if its checks pass), with the reason."""
        self.record.inconclusive_reason = reason

    def expect_not_reproduced(self, scale: Any, declared: Declared, strict: bool | None = None) -> None:
        """Declare a known non-reproduction at ``scale`` where ``declared.scales`` names it: the checks it names
        (``fnmatch`` patterns) are expected to fail, for its reason. ``strict``: whether a pass of every check
        fails the test (an unexpected pass); None: strict with the paper's seeds, not with other seeds
        (``--lengthgen-seeds``)."""
        if scale.name not in declared.scales:
            return
        if strict is not None and not isinstance(strict, bool):
            raise ValueError(f"strict={strict!r} must be True, False or None")
        self.record.declared = replace(declared, strict=scale.seeds is None if strict is None else strict)

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.record.checks if not c.passed]

    def verify(self) -> None:
        """Decide the verdict (``lengthgen.records.verdict.decide``) and end the test as it says: return, raise
        :class:`NotReproduced` (pytest's xfail), or raise :class:`VerdictFailed` naming every failed check."""
        outcome = decide(self.record)
        if outcome == XFAIL:
            raise NotReproduced(self.record.verdict_reason or "")
        if outcome == FAIL:
            raise VerdictFailed(self._failure_message())

    def _failure_message(self) -> str:
        record = self.record
        failed = self.failed
        declared_ruled_out = getattr(record.mode, "expected_ruled_out", None) is not None
        if record.verdict is Verdict.NOT_REPRODUCED_UNDECLARED and failed and not declared_ruled_out:
            unexpected = [c for c in failed if not c.expected_to_fail]
            head = f"{record.claim} failed: {len(unexpected)} of {len(record.checks)} checks failed" + (
                " that are not among the expected failures" if record.declared else ""
            )
            return "\n".join([head] + [f"  - {c.describe()}" for c in unexpected])
        return record.verdict_reason or f"{record.claim}: {record.verdict}"


class ControlRecorder:
    """The ``control`` fixture: a negative control feeds a counterfactual (built from real models where one
    exists) to the claim's own check function and requires that the checks fail.

    ``run(description, check, counterfactual, *args)`` calls ``check(recorder, counterfactual, *args)`` on a
    fresh :class:`ClaimRecorder` of the claim; ``verify()`` decides it ("discriminates", or "failed" where every
    check passed: a check that cannot fail on this input is no check). The record carries the checks as
    evaluated on the counterfactual, so the report shows which of them failed.
    """

    def __init__(self, claim: Entry | str, test: str = ""):
        self.claim_id = claim if isinstance(claim, str) else claim.id
        self.probe = ClaimRecorder(claim, test)
        self.record = self.probe.record
        self.record.mode = Control("")

    def set_scale(self, **scale: Any) -> None:
        self.record.scale.update(scale)

    def run(self, description: str, check: Any, counterfactual: Any, *args: Any, **kwargs: Any) -> list[Check]:
        """The claim's checks on ``counterfactual``; returns the failed ones."""
        self.record.mode = Control(description)
        check(self.probe, counterfactual, *args, **kwargs)
        return self.probe.failed

    def verify(self) -> None:
        if decide(self.record) == FAIL:
            raise VerdictFailed(self.record.verdict_reason or "")
