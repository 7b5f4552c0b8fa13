"""The multiverse in the report: claims as rows, readings as columns (the suite's own reading first, for
reference), a verdict in each cell; and per claim test, what the other readings do to its verdict.

Its cells are the records of ``claims/test_multiverse.py`` (a claim record with ``reading`` set); in
``claims.json`` they sit under ``"multiverse"`` (``lengthgen.report.data.assemble``; a multiverse-only run
keeps the rest of the ``claims.json`` it finds, ``lengthgen.report.data.carry_over``). Everything here
reads the typed view of the run (``run_view.RunView`` / ``ClaimRecord``) and the one verdict display table
(``run_view.VERDICT_STYLES``); the grid machinery is the robustness map's (``lengthgen.report.grid``); the
readings and the cells the registry runs are the plain registry's (``lengthgen.readings``,
``lengthgen.multiverse_cells``: no torch, unlike the engine's part, ``lengthgen.experiments.multiverse``).

- :func:`universe_grid`: the grid as views: the registry's readings, its rows (claims; C12/C13 per width),
  the recorded cells, the cells the registry runs, and each row's verdict at the paper's point;
- :func:`build_grid` / :func:`grid_lines`: the grid as plain data (``lengthgen multiverse --out PATH``) and as
  text (``lengthgen multiverse``, the terminal summary);
- :func:`outcomes` / :func:`outcome_for`: per row, "holds under every reading", the readings under which
  the verdict changes with the deciding numbers, or "not run in the multiverse" (the claims tables'
  column "under other readings": page, markdown);
- :func:`grid_view`: the coloured grid on the page, each cell linked to its checks.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from lengthgen.catalogue import Catalogue
from lengthgen.multiverse_cells import left_out
from lengthgen.readings import READINGS, universe
from lengthgen.registry import EMPTY as NO_REGISTRY
from lengthgen.registry import Registry
from lengthgen.report import text
from lengthgen.report.data import claim_number
from lengthgen.report.outcome import (
    OTHER_WAY,
    RULED_OUT,
    WITHIN_NOISE,
    Spread,
    column_of,
    reference,
    relation,
    row_of,
    shared_text,
)
from lengthgen.report.grid import (
    MISSING,
    NOT_APPLICABLE,
    Grid,
    GridCell,
    Slot,
    block,
    counts_line,
    failed_check,
    failed_lines,
    grid_cell,
    run_line,
    shown,
    table_lines,
)
from lengthgen.records import ClaimRecord
from lengthgen.records.check import fit_text
from lengthgen.report.run_view import RunView, record_of

PAPER = "paper"  # the reference column: the suite's own reading of every open choice (the claims table's verdict)
PAPER_WHAT = "the suite's reading of every open choice: the claims table's verdict"
GRID_ID = "multiverse-grid"  # the page table's id
NUMBERS_SHOWN = 1  # failed checks spelled out per changed reading in the claims tables (the rest are counted)
HOLDS, NOISE, CHANGES, NOT_RUN = "holds", "noise", "changes", "not-run"  # an outcome's states
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

    def slot(self, reading: str, row: str) -> Slot:
        planned = (reading, row) in self.planned or (reading, row) in self.cells
        return Slot(self.cells.get((reading, row)), planned, cell_id(reading, row))

    def relation(self, reading: str, row: str) -> str | None:
        """How the cell stands against the row's verdict at the paper's point (``outcome.relation``: holds,
        decided the other way, within noise, ruled out); None without a recorded cell."""
        cell = self.cells.get((reading, row))
        return relation(cell, self.paper.get(row)) if cell is not None else None

    def changed(self, reading: str, row: str) -> bool:
        """The cell lands on the other side of the paper's point's verdict (decided or within noise)."""
        return self.relation(reading, row) in (OTHER_WAY, WITHIN_NOISE)


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


def build_grid(
    cells: Sequence[ClaimRecord | Mapping[str, Any]],
    records: Sequence[ClaimRecord | Mapping[str, Any]] = (),
    registry: Registry = NO_REGISTRY,
) -> dict[str, Any]:
    """The grid as plain data: the readings, the rows ("columns": claims, C12/C13 per width) with their
    verdict at the paper's point, and per cell the registry runs its verdict (``"missing"`` without a
    record), label, whether it differs from the paper's point, reason, seeds and failed checks."""
    g = universe_grid(cells, records, registry)
    out = []
    for reading, _ in g.readings:
        for row in g.rows:
            slot = g.slot(reading, row)
            if not slot.planned:
                continue
            c = slot.view
            if c is None:
                out.append({"reading": reading, "column": row, "verdict": "missing"})
                continue
            passed, total = c.checks_passed
            out.append(
                {
                    "reading": reading,
                    "column": row,
                    "claim": c.claim,
                    "verdict": c.verdict,
                    "label": c.label,
                    "changed": g.changed(reading, row),
                    "reason": c.verdict_reason,
                    "test": c.test,
                    "checks_passed": passed,
                    "checks": total,
                    "seeds": c.scale.get("seed_list"),
                    "failed_checks": [failed_check(k) for k in c.failed_checks],
                    "runtime_s": c.runtime_s,
                }
            )
    return {
        "readings": [{"name": n, "what": what, "claims": list(registry.plan.claims_of(n))} for n, what in g.readings],
        "columns": list(g.rows),
        "paper": {row: (v.label if v is not None else None) for row, v in g.paper.items()},
        "cells": out,
        "left_out": [{"reading": u, "claim": c, "why": why} for u, c, why in g.left_out],
    }


def grid_lines(
    cells: Sequence[ClaimRecord | Mapping[str, Any]],
    details: bool = True,
    records: Sequence[ClaimRecord | Mapping[str, Any]] = (),
    registry: Registry = NO_REGISTRY,
) -> list[str]:
    """The grid as text: one row per claim, the suite's reading first, then one column per reading; then
    each cell whose verdict differs from the paper's point, with its failed checks' numbers."""
    g = universe_grid(cells, records, registry)
    data = build_grid(cells, records, registry)
    names = [n for n, _ in g.readings]
    rows = []
    for row in g.rows:
        base = g.paper.get(row)
        shown_row = [shown(base) if base is not None else MISSING if records else NOT_APPLICABLE]
        for reading in names:
            slot = g.slot(reading, row)
            shown_row.append(NOT_APPLICABLE if not slot.planned else MISSING if slot.view is None else shown(slot.view))
        rows.append((row, shown_row))
    first = max([len("claim")] + [len(r) for r in g.rows]) + 1
    lines = [
        f"multiverse (paper scale; verdict per claim x reading; {PAPER}: the suite's reading; ~ close call; "
        f"- not run under that reading; ? no record)"
    ] + table_lines("claim", first, [PAPER] + names, rows)
    lines.append(counts_line(data["cells"]))
    lines += left_out_line(g)
    lines += [f"ruled out: {line}" for line in ruled_out_lines(g)]
    if details:
        for c in data["cells"]:
            if c["verdict"] == "missing" or not c["changed"]:
                continue
            base = g.paper.get(c["column"])
            was = f" (at the paper's point: {base.label})" if base is not None else ""
            lines.append(
                f"{c['column']} under {c['reading']}: {c['label']}{was} ({c['checks_passed']}/{c['checks']} "
                f"checks)" + (f": {c['reason'].splitlines()[0]}" if c.get("reason") else "")
            )
            lines += failed_lines(c["failed_checks"])
    return lines


# ----------------------------------------------------------------------------------------------- outcomes


@dataclass(frozen=True)
class OtherSide:
    universe: str  # the universe under which the cell lands on the other side of the paper's point's verdict
    view: ClaimRecord  # the cell
    anchor: str  # its checks on the page
    numbers: str  # the deciding (failed) check with its numbers, or the reason's first line


@dataclass(frozen=True)
class Outcome:
    """What the other readings do to a row's verdict, by the one rule of ``lengthgen.report.outcome``."""

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
        return self.spread.where(RULED_OUT)

    @property
    def admissible(self) -> tuple[str, ...]:
        """The universes with a recorded cell that no precondition ruled out."""
        return tuple(r for r in self.readings if r not in self.ruled_out)

    @property
    def state(self) -> str:
        """``changes`` (decided the other way somewhere), ``noise`` (on the other side only within noise),
        ``holds`` or ``not-run`` (no recorded cell)."""
        if not self.readings:
            return NOT_RUN
        return CHANGES if self.changes else NOISE if self.noise else HOLDS

    @property
    def held(self) -> tuple[int, int]:
        """(N, M): the paper's point's verdict holds in N of M admissible universes (the paper's point among them)."""
        return self.spread.count

    def short(self) -> str:
        """The README's column: ``Spread.text`` ("holds in 12 of 16 admissible universes; decided the other way
        under none; within noise under lengths=per-batch (3 more)"), or "not run in the multiverse"."""
        if self.state == NOT_RUN:
            return NOT_RUN_TEXT
        missing = f"; {len(self.missing)} without a record" if self.missing else ""
        return self.spread.text() + shared_text(self.spread, most=0) + missing

    def text(self) -> str:
        """The short line, then each universe on the other side with the numbers that put it there."""
        if self.state == NOT_RUN:
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
            f"{c.name}: {text.num(c.value, 4)}, needs {text.threshold_text(c.op, c.threshold)}"
            for c in failed[:NUMBERS_SHOWN]
        ]
        more = f"; {len(failed) - NUMBERS_SHOWN} more failed" if len(failed) > NUMBERS_SHOWN else ""
        return "; ".join(shown_checks) + more
    if cell.deciding is not None and cell.verdict not in ("error", "failed", "skipped"):
        d = cell.deciding
        return f"{d.name}: {text.num(d.value, 4)} {text.threshold_text(d.op, d.threshold)}"
    return (cell.verdict_reason or "").splitlines()[0] if cell.verdict_reason else ""


def outcomes(grid: UniverseGrid) -> dict[str, Outcome]:
    """Per grid row, what the other readings do to its verdict."""
    out = {}
    for row in grid.rows:
        recorded = tuple((n, grid.cells[n, row]) for n, _ in grid.readings if (n, row) in grid.cells)
        spread = Spread(row, grid.paper.get(row), recorded)

        def changes(state: str) -> tuple[OtherSide, ...]:
            return tuple(
                OtherSide(n, grid.cells[n, row], cell_id(n, row), numbers(grid.cells[n, row]))
                for n in spread.where(state)
            )

        missing = tuple(n for n, _ in grid.readings if (n, row) in grid.planned and (n, row) not in grid.cells)
        out[row] = Outcome(row, grid.paper.get(row), spread, changes(OTHER_WAY), changes(WITHIN_NOISE), missing)
    return out


def left_out_line(grid: UniverseGrid) -> list[str]:
    """One line naming the cells left to the extended run (``-m multiverse_extended``) that this run's selection
    could have held: of the rows it recorded a cell of, the left-out cells it did not record; none without such."""
    rows = {row for _, row in grid.cells}
    left = sorted((u, row) for u, row in grid.extended if row in rows and (u, row) not in grid.cells)
    if not left:
        return []
    shown = ", ".join(sorted(dict.fromkeys(row for _, row in left), key=grid.catalogue.column_order))
    return [
        f"left to the extended run (-m multiverse_extended): {len(left)} cell{'s' if len(left) != 1 else ''} of {shown}"
    ]


def ruled_out_lines(grid: UniverseGrid) -> list[str]:
    """Per reading alone that rules cells out, which models fail its preconditions and which fit, with their
    numbers (over its ruled-out cells): "init=gpt2 (24 cells): the RoPE models do not fit in range (0.54-0.60);
    APE fits (1.00)"."""
    lines = []
    for reading, _ in grid.readings:
        if "+" in reading:
            continue
        cells = [c for (u, _), c in grid.cells.items() if u == reading and c.ruled_out is not None]
        if not cells:
            continue
        checks = {p.name: p for c in cells for p in c.preconditions}
        lines.append(f"{reading} ({len(cells)} cell{'s' * (len(cells) != 1)}): {fit_text(list(checks.values()))}")
    return lines


def view_grid(view: RunView) -> UniverseGrid | None:
    """The run's multiverse (None when the run has no multiverse part)."""
    return universe_grid(view.multiverse, view.records, view.registry) if view.multiverse else None


def outcome_for(
    grid: UniverseGrid | None,
    claim: ClaimRecord,
    cache: dict[str, Outcome] | None = None,
    catalogue: Catalogue | None = None,
) -> Outcome | None:
    """What the other readings do to ``claim`` (a claim test at the paper's point): None when the run has
    no multiverse part (``grid`` None); an outcome in state ``not-run`` when no cell checks it."""
    if grid is None:
        return None
    row = row_of(claim, catalogue if catalogue is not None else grid.catalogue)
    found = (cache if cache is not None else outcomes(grid)).get(row) if row is not None else None
    return found or Outcome(row or claim.claim, claim, Spread(row or claim.claim, claim, ()), (), (), ())


def claim_summary(
    records: Sequence[ClaimRecord | Mapping[str, Any]],
    cells: Sequence[ClaimRecord | Mapping[str, Any]],
    registry: Registry = NO_REGISTRY,
) -> dict[str, str]:
    """Per grid row with a recorded cell: its outcome's text (``Outcome.text``)."""
    paper = [r for r in (record_of(r) for r in records) if not r.universe and not r.setting]
    grid = universe_grid(cells, paper, registry)
    return {row: o.text() for row, o in outcomes(grid).items() if o.readings}


CONSEQUENTIAL_MARK = "\u25c6"  # after a cell's word: the claim hinges on this reading (its main effect excludes 0)


def marked(cell: GridCell, hinges: bool) -> GridCell:
    """``cell`` with the consequential mark and its tooltip, where the row's claim ``hinges`` on its reading."""
    if not hinges:
        return cell
    why = "the claim hinges on this reading: its main effect on the curve's check excludes 0"
    return dataclasses.replace(cell, label=f"{cell.label} {CONSEQUENTIAL_MARK}", title=f"{why}; {cell.title}")


def grid_view(
    view: RunView, anchors: Mapping[str, str] | None = None, consequential: frozenset[tuple[str, str]] = frozenset()
) -> Grid | None:
    """The multiverse on the page (None without cells): claims as rows, the suite's reading first (linked to
    the claim's section: ``anchors``, test id -> anchor), then a column per reading, each cell coloured by its
    verdict with its short word and linked to its checks below the grid; a cell of ``consequential`` ((reading,
    row) pairs: the row's claim hinges on the reading, ``specification.CurveView.hinges_on``) is marked."""
    g = view_grid(view)
    if g is None:
        return None
    anchors = anchors or {}
    rows = []
    for row in g.rows:
        base = g.paper.get(row)
        paper = grid_cell(
            Slot(base, True, anchors.get(base.test, "") if base is not None else ""),
            shown(base) if base is not None else "",
        )
        cells = [
            marked(grid_cell(slot, shown(slot.view) if slot.view else ""), (n, row) in consequential)
            for n, slot in ((n, g.slot(n, row)) for n, _ in g.readings)
        ]
        rows.append((row, (paper, *cells)))
    blocks = tuple(
        block(g.cells[n, row], cell_id(n, row), row, f"under {n}")
        for n, _ in g.readings
        for row in g.rows
        if (n, row) in g.cells
    )
    return Grid(
        GRID_ID,
        "claim",
        ((PAPER, PAPER_WHAT),) + g.readings,
        tuple(rows),
        blocks,
        run_line(view.multiverse_environment),
    )
