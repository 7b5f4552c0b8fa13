"""The multiverse as data: claims as rows, readings as columns (the suite's own reading first, for
reference), a recorded cell in each; and per claim test, what the other readings do to its verdict.

Its cells are the records of ``claims/test_multiverse.py`` (a claim record with ``reading`` set); in
``claims.json`` they sit under ``"multiverse"`` (``lengthgen.analysis.data.assemble``; a multiverse-only run
keeps the rest of the ``claims.json`` it finds, ``lengthgen.analysis.data.carry_over``). Everything here
reads the typed view of the run (``run_view.RunView`` / ``ClaimRecord``); the readings and the cells the
registry runs are the plain registry's (``lengthgen.readings``, ``lengthgen.multiverse_cells``: no torch, unlike
the engine's part, ``lengthgen.experiments.multiverse``). The grid drawn (text, plain data, the page's coloured
grid) is ``lengthgen.report.multiverse``.

- :func:`universe_grid`: the grid: the registry's readings, its rows (claims; C12/C13 per width),
  the recorded cells, the cells the registry runs, and each row's verdict at the paper's point;
- :func:`outcomes` / :func:`outcome_for`: per row, its :class:`RowOutcome`: "holds under every reading", the
  readings under which the verdict changes with the deciding numbers, or "not run in the multiverse" (the claims
  tables' column "under other readings": page, markdown).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from lengthgen.catalogue import Catalogue
from lengthgen.multiverse_cells import left_out
from lengthgen.readings import READINGS, universe
from lengthgen.registry import EMPTY as NO_REGISTRY
from lengthgen.registry import Registry
from lengthgen.analysis.data import claim_number
from lengthgen.analysis.formats import num, threshold_text
from lengthgen.analysis.outcome import (
    Outcome,
    Spread,
    column_of,
    reference,
    relation,
    row_of,
    shared_text,
)
from lengthgen.records import ClaimRecord
from lengthgen.records.verdicts import BROKEN
from lengthgen.analysis.run_view import RunView, record_of

PAPER = "paper"  # the reference column: the suite's own reading of every open choice (the claims table's verdict)
PAPER_WHAT = "the suite's reading of every open choice: the claims table's verdict"
NUMBERS_SHOWN = 1  # failed checks spelled out per changed reading in the claims tables (the rest are counted)
NOT_RUN_TEXT = "not run in the multiverse"


def cell_id(reading: str, row: str) -> str:
    """The page anchor of a cell's checks."""
    return f"multiverse-{reading}-{row}"


@dataclass(frozen=True)
class UniverseGrid:
    readings: tuple[tuple[str, str], ...]  # (name, what it changes) per column: the registry's universes with
    # a cell, then readings recorded that the registry lacks
    rows: tuple[str, ...]  # claims ("C12-d64" for a width), by number
    cells: Mapping[tuple[str, str], ClaimRecord]  # (reading, row) -> the recorded cell
    planned: frozenset[tuple[str, str]]  # the (reading, row) cells the registry runs
    paper: Mapping[str, ClaimRecord | None]  # row -> its claim test at the paper's point (``reference``)
    left_out: tuple[tuple[str, str, str], ...]  # (reading, claim, why) the registry does not run
    catalogue: Catalogue = field(default_factory=Catalogue)  # the run's catalogue: each row's claim and columns
    extended: frozenset[tuple[str, str]] = frozenset()  # the (universe, row) cells the extended run holds

    def relation(self, reading: str, row: str) -> Outcome | None:
        """How the cell stands against the row's verdict at the paper's point (``outcome.relation``: holds,
        decided the other way, within noise, ruled out); None without a recorded cell."""
        cell = self.cells.get((reading, row))
        return relation(cell, self.paper.get(row)) if cell is not None else None

    def changed(self, reading: str, row: str) -> bool:
        """The cell lands on the other side of the paper's point's verdict (decided or within noise)."""
        return self.relation(reading, row) in (Outcome.OTHER_WAY, Outcome.WITHIN_NOISE)


def universe_grid(
    cells: Sequence[ClaimRecord | Mapping[str, Any]],
    records: Sequence[ClaimRecord | Mapping[str, Any]] = (),
    registry: Registry = NO_REGISTRY,
) -> UniverseGrid:
    """The multiverse as views: ``cells`` (records with a reading) against the registry
    (``lengthgen.readings``, ``lengthgen.multiverse_cells``), with ``records`` (the claim tests at the
    paper's point) as each row's reference."""
    catalogue = registry.catalogue
    cells = [record_of(c) for c in cells]
    records = [record_of(r) for r in records]
    by_cell = {(c.universe or "?", column_of(c, catalogue)): c for c in cells}
    planned = frozenset(registry.plan.default_cells())
    rows = sorted(  # the catalogue's order; rows it lacks by number (a run that recorded no catalogue)
        {r for _, r in planned} | {r for _, r in by_cell},
        key=lambda r: (catalogue.column_order(r), claim_number(r.partition("-")[0]), r),
    )
    with_cell = {n for n, _ in planned | set(by_cell)}
    names = sorted(with_cell, key=registry_order)  # the same order in every process, with or without a plan
    readings = tuple((n, _describe(n)) for n in names)
    return UniverseGrid(
        readings,
        tuple(rows),
        by_cell,
        planned,
        {row: reference(records, row, catalogue) for row in rows},
        tuple(left_out(registry.plan, catalogue)),
        catalogue,
        frozenset(registry.plan.extended_cells()),
    )


def registry_order(name: str) -> tuple:
    """A universe's place in the registry's order: each reading alone (in ``READINGS``' order), then the
    combinations, smallest first, each by its readings' places; a name the registry does not know last."""
    order = {r.name: i for i, r in enumerate(READINGS)}
    parts = name.split("+")
    if not all(p in order for p in parts):
        return (1, 0, [], name)
    return (0, len(parts), [order[p] for p in parts], name)


def _describe(name: str) -> str:
    """What the universe ``name`` changes, or that this version's registry does not know it."""
    try:
        return universe(name).describe()
    except ValueError:
        return "a reading this version's registry does not know"


# ----------------------------------------------------------------------------------------------- outcomes


@dataclass(frozen=True)
class OtherSide:
    universe: str  # the universe under which the cell lands on the other side of the paper's point's verdict
    view: ClaimRecord  # the cell
    anchor: str  # its checks on the page
    numbers: str  # the deciding (failed) check with its numbers, or the reason's first line


@dataclass(frozen=True)
class RowOutcome:
    """What the other readings do to a row's verdict, by the one rule of ``lengthgen.analysis.outcome``."""

    row: str  # the grid row (a claim, or "<id>-<variant>")
    paper: ClaimRecord | None  # its claim test at the paper's point (the reference)
    spread: Spread  # its recorded cells against the reference: holds, decided the other way, within noise, ruled out
    changes: tuple[OtherSide, ...]  # the universes under which the verdict is decided the other way, with the numbers
    noise: tuple[OtherSide, ...]  # the universes under which it lands on the other side within the seeds' noise
    missing: tuple[str, ...]  # universes the registry runs for it without a record in this report

    @property
    def readings(self) -> tuple[str, ...]:
        """The universes with a recorded cell."""
        return tuple(c for c, _ in self.spread.cells)

    @property
    def ruled_out(self) -> tuple[str, ...]:
        return self.spread.where(Outcome.RULED_OUT)

    @property
    def admissible(self) -> tuple[str, ...]:
        """The universes with a recorded cell that no precondition ruled out."""
        return tuple(r for r in self.readings if r not in self.ruled_out)

    @property
    def state(self) -> Outcome | None:
        """The row's outcome over its universes: other way (decided the other way under some universe), within noise
        (on the other side only within noise), holds (every admissible universe holds, or none is admissible);
        None for a row without a recorded cell."""
        if not self.readings:
            return None
        return Outcome.OTHER_WAY if self.changes else Outcome.WITHIN_NOISE if self.noise else Outcome.HOLDS

    @property
    def held(self) -> tuple[int, int]:
        """(N, M): the paper's point's verdict holds in N of M admissible universes (the paper's point among them)."""
        return self.spread.count

    def short(self) -> str:
        """The README's column: ``Spread.text`` ("holds in 12 of 16 admissible universes; decided the other way
        under none; within noise under lengths=per-batch (3 more)"), or "not run in the multiverse"."""
        if self.state is None:
            return NOT_RUN_TEXT
        missing = f"; {len(self.missing)} without a record" if self.missing else ""
        return self.spread.text() + shared_text(self.spread, most=0) + missing

    def text(self) -> str:
        """The short line, then each universe on the other side with the numbers that put it there."""
        if self.state is None:
            return NOT_RUN_TEXT
        parts = [f"{c.universe}: {c.view.label}" + (f" ({c.numbers})" if c.numbers else "") for c in self.changes]
        parts += [
            f"{c.universe}: {c.view.label}, within noise" + (f" ({c.numbers})" if c.numbers else "") for c in self.noise
        ]
        return "; ".join([self.spread.text() + shared_text(self.spread)] + parts)


def numbers(cell: ClaimRecord) -> str:
    """Why a cell's verdict differs, with its numbers: its first undeclared failed check (else its first
    failed check), "value, needs op threshold", and how many more failed; for a cell that passed, its
    deciding check; else the reason's first line."""
    failed = [c for c in cell.failed_checks if not c.expected_to_fail] or list(cell.failed_checks)
    if failed:
        shown_checks = [
            f"{c.name}: {num(c.value, 4)}, needs {threshold_text(c.op, c.threshold)}" for c in failed[:NUMBERS_SHOWN]
        ]
        more = f"; {len(failed) - NUMBERS_SHOWN} more failed" if len(failed) > NUMBERS_SHOWN else ""
        return "; ".join(shown_checks) + more
    if cell.deciding is not None and cell.verdict not in BROKEN:
        d = cell.deciding
        return f"{d.name}: {num(d.value, 4)} {threshold_text(d.op, d.threshold)}"
    return (cell.verdict_reason or "").splitlines()[0] if cell.verdict_reason else ""


def outcomes(grid: UniverseGrid) -> dict[str, RowOutcome]:
    """Per grid row, what the other readings do to its verdict."""
    out = {}
    for row in grid.rows:
        recorded = tuple((n, grid.cells[n, row]) for n, _ in grid.readings if (n, row) in grid.cells)
        spread = Spread(row, grid.paper.get(row), recorded)

        def changes(state: Outcome) -> tuple[OtherSide, ...]:
            return tuple(
                OtherSide(n, grid.cells[n, row], cell_id(n, row), numbers(grid.cells[n, row]))
                for n in spread.where(state)
            )

        missing = tuple(n for n, _ in grid.readings if (n, row) in grid.planned and (n, row) not in grid.cells)
        out[row] = RowOutcome(
            row, grid.paper.get(row), spread, changes(Outcome.OTHER_WAY), changes(Outcome.WITHIN_NOISE), missing
        )
    return out


def view_grid(view: RunView) -> UniverseGrid | None:
    """The run's multiverse (None when the run has no multiverse part)."""
    return universe_grid(view.multiverse, view.records, view.registry) if view.multiverse else None


def outcome_for(
    grid: UniverseGrid | None,
    claim: ClaimRecord,
    cache: dict[str, RowOutcome] | None = None,
    catalogue: Catalogue | None = None,
) -> RowOutcome | None:
    """What the other readings do to ``claim`` (a claim test at the paper's point): None when the run has
    no multiverse part (``grid`` None); an outcome of state None when no cell checks it."""
    if grid is None:
        return None
    row = row_of(claim, catalogue if catalogue is not None else grid.catalogue)
    found = (cache if cache is not None else outcomes(grid)).get(row) if row is not None else None
    return found or RowOutcome(row or claim.claim, claim, Spread(row or claim.claim, claim, ()), (), (), ())


def claim_summary(
    records: Sequence[ClaimRecord | Mapping[str, Any]],
    cells: Sequence[ClaimRecord | Mapping[str, Any]],
    registry: Registry = NO_REGISTRY,
) -> dict[str, str]:
    """Per grid row with a recorded cell: its outcome's text (``RowOutcome.text``)."""
    paper = [r for r in (record_of(r) for r in records) if not r.universe and not r.setting]
    grid = universe_grid(cells, paper, registry)
    return {row: o.text() for row, o in outcomes(grid).items() if o.readings}
