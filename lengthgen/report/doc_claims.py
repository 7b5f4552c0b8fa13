"""The documents' values from a run's claim tests and controls: each test with its id as a table shows it, the
ones that do not reproduce and what their failure rests on, the negative controls at the paper's scale, and the seed
paths of a run with seeds added. The words are the templates' (``report/templates/docs/``). No torch.
"""

from __future__ import annotations

from typing import Any, Mapping, NamedTuple, Sequence

from lengthgen.records import ClaimRecord, Verdict
from lengthgen.analysis import multiverse as mv
from lengthgen.analysis.answer import failure_basis
from lengthgen.report.markdown import test_ids
from lengthgen.analysis.run_view import RunView


class Shown(NamedTuple):
    """A claim test (or control) with the id a table shows for it."""

    id: str  # the claim and its variant (``markdown.test_ids``); a control's parameters beyond its scale
    record: ClaimRecord


class VerdictRow(NamedTuple):
    """A claim test at the paper's point, with what its failure rests on and what the other readings do."""

    id: str
    record: ClaimRecord
    basis: str | None  # what its failure rests on (``answer.failure_basis``); None: it holds
    outcome: mv.RowOutcome | None  # None when the run has no multiverse


def shown(views: Sequence[ClaimRecord]) -> list[Shown]:
    return [Shown(i, c) for c, i in zip(views, test_ids(views))]


def failing(views: Sequence[ClaimRecord]) -> list[Shown]:
    """The tests of ``views`` that do not reproduce through some failing check (ids among all of ``views``)."""
    return [s for s in shown(views) if s.record.verdict is not Verdict.REPRODUCED and s.record.failed_checks]


def tests(records: Sequence[ClaimRecord], grid: mv.UniverseGrid | None) -> list[VerdictRow]:
    found = mv.outcomes(grid) if grid is not None else {}
    return [
        VerdictRow(s.id, s.record, failure_basis(s.record), mv.outcome_for(grid, s.record, found))
        for s in shown(records)
    ]


def controls(views: Sequence[ClaimRecord]) -> list[Shown]:
    """The negative controls at the paper's scale, each named by its claim and its parameters beyond the scale
    (C12 per width)."""

    def label(v: ClaimRecord) -> str:
        params = v.test_name.split("[", 1)[1].rstrip("]") if "[" in v.test_name else ""
        return f"{v.claim} {'-'.join(p for p in params.split('-') if p not in ('paper', 'quick'))}".strip()

    return [Shown(label(v), v) for v in views if v.scale.get("name", "?") in ("paper", "?")]


class SeedPath(NamedTuple):
    """A claim test that took more than its own seeds: its looks, and the check followed along them."""

    id: str
    record: ClaimRecord
    first: Mapping[str, Any]  # its first look (seeds, close, its close or deciding checks)
    last: Mapping[str, Any]  # where it stopped
    check: Mapping[str, Any] | None  # the followed check at the last look: its first close check, else deciding
    level: float  # the looks' confidence level
    path: list[tuple[int, Mapping[str, Any]]]  # (seeds, the followed check) at each look that shows it


def _at(look: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A look's close checks, else its deciding check."""
    return list(look.get("close_checks") or ([look["deciding"]] if look.get("deciding") else []))


class SeedsAdded(NamedTuple):
    """A run with seeds added until decided (``--lengthgen-until-decided``)."""

    run: RunView
    paths: list[SeedPath]  # its tests that took more than their own seeds
    first_look: list[str]  # the ids of those decided at their first look
    most: int  # the most seeds a test could take


def seeds_added(run: RunView) -> SeedsAdded:
    views = list(run.claims) + list(run.predictions)
    moved, first_look = [], []
    for s in shown(views):
        looks = (s.record.looks or {}).get("path")
        if not looks:
            continue
        if len(looks) == 1:
            first_look.append(s.id)
            continue
        check = (_at(looks[-1]) or _at(looks[0]) or [None])[0]
        name = check.get("name") if check else None
        steps = [(look["seeds"], next((c for c in _at(look) if c.get("name") == name), None)) for look in looks]
        path = [(n, c) for n, c in steps if c is not None]
        level = float(s.record.looks.get("level", 0.95))
        moved.append(SeedPath(s.id, s.record, looks[0], looks[-1], check if name else None, level, path))
    most = max((int(c.looks.get("max_seeds", 0)) for c in views if c.looks), default=0)
    return SeedsAdded(run, moved, first_look, most)
