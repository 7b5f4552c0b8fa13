"""The robustness map as data: per setting, the claims that run at it, and per claim, where its cells (the records
of ``claims/test_robustness.py``, a claim record with ``setting`` set) stand against the same variant's verdict at
the paper's point. The map drawn (plain data, text, the page's grid) is ``lengthgen.report.robustness``.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from lengthgen.catalogue import EMPTY, ROBUSTNESS, Catalogue
from lengthgen.analysis.data import claim_number
from lengthgen.records import ClaimRecord
from lengthgen.analysis.outcome import Spread, column_of, reference
from lengthgen.analysis.run_view import record_of


def views(cells: Sequence[ClaimRecord | Mapping[str, Any]]) -> list[ClaimRecord]:
    """The cells' views (records are parsed: ``ClaimRecord.parse``)."""
    return [record_of(c) for c in cells]


def runs_at(catalogue: Catalogue, cells: Sequence[ClaimRecord]) -> dict[str, tuple[str, ...]]:
    """Per setting, the claims that run at it: those whose entry names it, and any with a recorded cell there."""
    recorded = {(r.setting, r.claim) for r in cells}
    return {
        s.name: tuple(
            dict.fromkeys(
                [e.id for e in catalogue if s.name in e.settings] + [c for n, c in sorted(recorded) if n == s.name]
            )
        )
        for s in ROBUSTNESS
    }


def spreads(
    cells: Sequence[ClaimRecord], records: Sequence[ClaimRecord], catalogue: Catalogue = EMPTY
) -> dict[str, Spread]:
    """Per claim of the map, where its cells stand against the same variant's verdict at the paper's point, by the
    one rule of ``lengthgen.analysis.outcome``: a cell runs its claim's default variant (C12 and C13: the width the
    suite chose), so it is compared with the claim tests of that variant's grid row (``outcome.column_of``; of
    several, the one whose verdict ranks worst), never with a variant it did not run (``records``: the claim tests
    at the paper's point)."""
    claims = sorted({c.claim for c in cells}, key=lambda c: (catalogue.order(c), claim_number(c)))
    out = {}
    for claim in claims:
        mine = tuple((c.setting, c) for c in cells if c.claim == claim)
        row = column_of(mine[0][1], catalogue)
        paper = reference(records, row, catalogue)
        if paper is None:  # a run without the catalogue's columns: the claim's tests, the worst verdict
            paper = reference([r for r in records if r.claim == claim], claim, EMPTY) if records else None
        out[claim] = Spread(claim, paper, mine, "settings", "at", "at")
    return out
