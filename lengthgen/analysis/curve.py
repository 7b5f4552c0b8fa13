"""A specification curve per claim for the multiverse (Simonsohn, Simmons & Nelson 2020, "Specification curve
analysis", Nature Human Behaviour 4): one claim's deciding check across every universe it ran in, sorted by
value, above the matrix of readings each universe takes; the count of admissible universes that reproduce it.

It reads a recorded run (``claims.json``, through :mod:`lengthgen.analysis.run_view`) and nothing else: no
torch, no matplotlib (the figure is ``lengthgen.report.curve``). The cells are the multiverse's (records with
``reading`` set; a claim's row is :func:`lengthgen.analysis.outcome.column_of`), the paper's point is the row's
claim test at the suite's own reading (:func:`lengthgen.analysis.outcome.reference`; universe ``"paper"``). A
universe is a reading's name ("init=gpt2"), several joined by "+" ("lengths=per-batch+ape-rows=zero"), or, in a
file of an earlier registry, ``all-alternatives`` (every reading of :data:`lengthgen.readings.READINGS`).

- :func:`deciding_check_name`: the check the curve plots (a display choice: see its docstring);
- :func:`curve`: the :class:`Curve` of one row ("C8", "C12-d64") of a run;
- :func:`main_effects`: per reading, how far it moves the plotted check against the universes that differ by it
  alone;
- the curve as text and as a figure: ``lengthgen.report.curve``.

A universe whose verdict is "ruled out" (a precondition the paper's own results state failed there, so the
claim's checks did not run) is shown greyed and left out of the count: it is not a reading the paper can have
used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from lengthgen.catalogue import EMPTY, Catalogue
from lengthgen.readings import CHOICES, READINGS
from lengthgen.analysis.multiverse import PAPER
from lengthgen.analysis.outcome import Outcome, column_of, reference, relation
from lengthgen.records import Check, ClaimRecord, Verdict
from lengthgen.analysis.run_view import RunView, record_of

SUITE_MARK = "·"  # the matrix's mark for the suite's reading of a choice
JOIN = "+"  # joins the readings of a combination ("lengths=per-batch+ape-rows=zero"; lengthgen.readings)
ALL_ALTERNATIVES = "all-alternatives"  # an earlier registry's universe: every reading at once
GREEN, ORANGE = Verdict.REPRODUCED.colour, Verdict.NOT_REPRODUCED.colour  # reproducing, any other verdict
GREY = "#8c959f"  # ruled out


def universe_readings(universe: str) -> tuple[str, ...]:
    """The reading names in force in ``universe``: () for the paper's point, every reading for
    ``all-alternatives``, else its "+"-joined parts."""
    if universe == PAPER:
        return ()
    if universe == ALL_ALTERNATIVES:
        return tuple(r.name for r in READINGS)
    return tuple(part for part in universe.split(JOIN) if part)


def _check(cell: ClaimRecord, name: str) -> Check | None:
    return next((c for c in cell.checks if c.name == name), None)


def deciding_check_name(cells: Sequence[ClaimRecord | Mapping[str, Any]]) -> str:
    """The check a claim's curve plots, from ``cells``: the claim's records, its multiverse cells (``reading``
    set) and its claim test at the paper's point (no ``reading``).

    A display choice, not part of the verdict rule (``lengthgen.records.verdict.deciding_check`` picks each
    record's own deciding check, the paper's point's among them): the curve needs one check that every universe
    measured (the paper's point's deciding check may be named by what it measured there, as P6's "longest L
    selecting -K" is, and so be absent elsewhere), and shows the one the cells' verdicts turn on. Of the checks
    present in every cell that recorded checks (a ruled-out cell runs none), the one that fails in the most cells,
    then the one with the smallest relative margin (``Check.relative_margin``, the verdict rule's own: negative for
    a failed check) at the paper's point, a failed check before a passed one at the same margin; without a paper's
    point with checks, the smallest margin over the cells. Ties, and checks without a margin (sorted last), go by
    name.
    ValueError when no check is common to the cells."""
    views = [record_of(c) for c in cells]
    measured = [v for v in views if v.checks]
    if not measured:
        raise ValueError(f"{_claims(views)}: no cell recorded a check")  # (every one ruled out)
    names = [c.name for c in measured[0].checks]
    common = [n for n in dict.fromkeys(names) if all(_check(v, n) is not None for v in measured)]
    if not common:
        raise ValueError(f"{_claims(views)}: no check is recorded in every cell")
    paper = next((v for v in measured if not v.universe), None)

    def margin(name: str) -> tuple[float, bool]:
        at = [paper] if paper is not None else measured
        checks = [c for v in at if (c := _check(v, name)) is not None]
        return min((math.inf if c.relative_margin is None else c.relative_margin, c.passed) for c in checks)

    def failures(name: str) -> int:
        return sum(1 for v in measured if not _check(v, name).passed)

    return min(common, key=lambda n: (-failures(n), *margin(n), n))


def _claims(views: Sequence[ClaimRecord]) -> str:
    return ", ".join(dict.fromkeys(v.claim for v in views)) or "no cells"


@dataclass(frozen=True)
class CurvePoint:
    """One universe on the curve: the deciding check's value there."""

    universe: str  # "paper", a reading's name, "+"-joined names, or "all-alternatives"
    readings: tuple[str, ...]  # the reading names in force (:func:`universe_readings`)
    value: float | None  # the check's value (None: not measured there, e.g. a ruled-out cell)
    ci95: tuple[float, float] | None  # its 95% interval
    passed: bool  # the check held there (False when it was not measured)
    verdict: Verdict | None  # the cell's verdict as recorded (None without one)
    reproduces: bool  # its verdict reproduces the claim (``ClaimRecord.reproduces``; never where ruled out)
    outcome: Outcome | None = None  # how it stands against the paper's point (``outcome.relation``); None: the
    # paper's point itself
    close: bool = False  # a deciding check's interval contains its threshold (the cell's close call)
    count: str | None = None  # a check every seed must pass: its failing seeds and worst value, "3 of 5 seeds at -40"

    @property
    def ruled_out(self) -> bool:
        """A precondition failed there: greyed, left out of the count."""
        return self.outcome is Outcome.RULED_OUT

    @property
    def colour(self) -> str:
        return GREY if self.ruled_out else GREEN if self.reproduces else ORANGE


@dataclass(frozen=True)
class Curve:
    """A claim's specification curve: its deciding check across the universes it ran in."""

    column: str  # the multiverse's row: the claim, or "<id>-<variant>" for a variant run apart
    claim: str  # the catalogue id
    check: str  # the deciding check's name (:func:`deciding_check_name`)
    op: str  # its comparison
    threshold: Any  # a number, or (low, high) for "in"
    points: tuple[CurvePoint, ...]  # by value ascending (unmeasured last), the paper's point among them

    @property
    def admissible(self) -> int:
        """Universes not ruled out, the paper's point included."""
        return sum(1 for p in self.points if not p.ruled_out)

    @property
    def reproduced(self) -> int:
        """Admissible universes whose verdict is reproduced or unexpectedly reproduced."""
        return sum(1 for p in self.points if p.reproduces)

    def where(self, outcome: Outcome) -> int:
        """How many universes stand so against the paper's point (``lengthgen.analysis.outcome.relation``)."""
        return sum(1 for p in self.points if p.outcome is outcome)

    @property
    def changes(self) -> bool:
        """Some admissible universe reproduces the claim and another does not: the answer depends on the reading."""
        return len({p.reproduces for p in self.points if not p.ruled_out}) > 1

    @property
    def paper_reproduces(self) -> bool:
        """The paper's point reproduces the claim (a curve without it: as if it did)."""
        return next((p.reproduces for p in self.points if p.universe == PAPER), True)

    def summary(self) -> str:
        """ "reproduced in 4 of 5 admissible universes; the 1 other within the seeds' noise" (the one rule of
        ``lengthgen.analysis.outcome``: a cell on the other side of the paper's point decides nothing where its
        deciding interval contains its threshold or its deciding quantity does not differ from the paper's point
        beyond the seeds' noise); where the paper's point does not reproduce, the universes that do are the ones
        on the other side."""
        said = f"reproduced in {self.reproduced} of {self.admissible} admissible universes"
        side, gone = (Verdict.NOT_REPRODUCED, "other") if self.paper_reproduces else (Verdict.REPRODUCED, "reproducing")
        decided, noise = self.where(Outcome.OTHER_WAY), self.where(Outcome.WITHIN_NOISE)
        flipped = decided + noise
        if not flipped:
            return said
        if not decided:
            plural = "s" if flipped > 1 and gone == "other" else ""
            return said + f"; the {flipped} {gone}{plural} within the seeds' noise"
        if not noise:
            return said + f"; {side}, decided, in {decided}"
        return said + f"; {side} in {flipped}: {decided} decided, {noise} within the seeds' noise"


def _parts(source: RunView | Mapping[str, Any] | Sequence[ClaimRecord | Mapping[str, Any]], catalogue: Catalogue):
    """(claim tests at the paper's point, multiverse cells, the catalogue) of a view, a claims.json's data or
    records (with ``catalogue``)."""
    if isinstance(source, Mapping):
        source = RunView.from_json(source)
    if isinstance(source, RunView):
        return list(source.records), list(source.multiverse), source.catalogue
    views = [record_of(r) for r in source]
    return [v for v in views if not v.universe and not v.setting], [v for v in views if v.universe], catalogue


def curve(
    view_or_records: RunView | Mapping[str, Any] | Sequence[ClaimRecord | Mapping[str, Any]],
    column: str,
    catalogue: Catalogue = EMPTY,
) -> Curve:
    """The specification curve of ``column`` (a claim, or "<id>-<variant>" run apart) in a run (its view, its
    claims.json's data, or its records with their ``catalogue``); ValueError naming the column when it is unknown
    or has no multiverse cells."""
    records, multiverse, catalogue = _parts(view_or_records, catalogue)
    cells = {c.universe: c for c in multiverse if column_of(c, catalogue) == column}  # a universe's last record wins
    if not cells:
        have = ", ".join(dict.fromkeys(column_of(c, catalogue) for c in multiverse)) or "none"
        if len(catalogue) and catalogue.claim_of(column) not in catalogue:
            raise ValueError(f"unknown claim {column!r} (claims with multiverse cells here: {have})")
        raise ValueError(f"{column} has no multiverse cells in this run (claims with cells: {have})")
    paper = reference(records, column, catalogue)
    universes = ([(PAPER, paper)] if paper is not None else []) + list(cells.items())
    name = deciding_check_name([view for _, view in universes])
    shape = next(c for _, v in universes if (c := _check(v, name)) is not None)
    points = []
    for universe, view in universes:
        check = _check(view, name)
        outcome = relation(view, paper) if universe != PAPER else None
        counted = check is not None and check.counted
        points.append(
            CurvePoint(
                universe,
                universe_readings(universe),
                check.value if check is not None else None,
                check.ci95 if check is not None and not counted else None,
                bool(check is not None and check.passed),
                view.verdict,
                view.reproduces and outcome is not Outcome.RULED_OUT,
                outcome,
                view.close,
                check.seed_count_text if counted else None,
            )
        )
    points.sort(key=lambda p: (p.value is None, p.value if p.value is not None else 0.0, p.universe != PAPER))
    return Curve(column, cells[next(iter(cells))].claim, name, shape.op, shape.threshold, tuple(points))


# ----------------------------------------------------------------------------------------------- the matrix


def _choice_of(reading: str) -> str:
    return reading.split("=", 1)[0]


def matrix_rows(points: Sequence[CurvePoint]) -> list[tuple[str, list[str]]]:
    """Per choice (:data:`lengthgen.readings.CHOICES`, then any other recorded), the reading each point takes:
    the part after "=" of its reading's name ("+"-joined when it takes several), :data:`SUITE_MARK` for the
    suite's reading."""
    choices = [c.name for c in CHOICES]
    choices += list(dict.fromkeys(_choice_of(r) for p in points for r in p.readings if _choice_of(r) not in choices))
    rows = []
    for name in choices:
        marks = []
        for p in points:
            taken = [r.split("=", 1)[-1] for r in p.readings if _choice_of(r) == name]
            marks.append(JOIN.join(taken) or SUITE_MARK)
        rows.append((name, marks))
    return rows


@dataclass(frozen=True)
class Effect:
    """The main effect of one reading on the curve's value: against the suite's reading of its choice, over
    matched pairs of admissible universes (the universe with the reading, and the same universe without it)."""

    reading: str  # the reading's name
    pairs: int  # matched pairs of admissible universes with a value on both sides
    mean: float  # the mean of (value with the reading - value without it) over the pairs
    half: float  # the interval's half-width: the pairs' seed intervals combined, sqrt(mean(h_with^2 + h_without^2))
    spread: tuple[float, float]  # the smallest and largest pair difference

    @property
    def consequential(self) -> bool:
        """The interval excludes 0: the reading moves the value beyond its seeds' noise (never for a check every
        seed must pass: its worst seeds have no interval; its failing seeds are compared by the cells' outcome)."""
        return math.isfinite(self.half) and abs(self.mean) > self.half


def _half(p: CurvePoint) -> float:
    """The half-width of a point's interval: 0 without one (an exact number), NaN for a worst seed (no interval)."""
    if p.count is not None:
        return math.nan
    return (p.ci95[1] - p.ci95[0]) / 2 if p.ci95 is not None else 0.0


def main_effects(curve: Curve) -> list[Effect]:
    """Per reading that an admissible universe of the curve takes, its main effect (:class:`Effect`). The
    interval is the pairs' seed intervals combined (not shrunk across pairs: the universes share seeds)."""
    by = {frozenset(p.readings): p for p in curve.points if not p.ruled_out and p.value is not None}
    names = sorted(
        {r for key in by for r in key},
        key=lambda n: [r.name for r in READINGS].index(n) if n in [r.name for r in READINGS] else 99,
    )
    out = []
    for name in names:
        diffs, halves = [], []
        for key, point in by.items():
            if name in key and (key - {name}) in by:
                other = by[key - {name}]
                diffs.append(point.value - other.value)
                halves.append(_half(point) ** 2 + _half(other) ** 2)
        if diffs:
            mean = sum(diffs) / len(diffs)
            out.append(Effect(name, len(diffs), mean, (sum(halves) / len(halves)) ** 0.5, (min(diffs), max(diffs))))
    return out
