"""A verdict grid, shared by the robustness map (settings as columns) and the multiverse (readings as
columns): claims as rows, a verdict in each cell, as text (the terminal, ``lengthgen robustness`` /
``lengthgen multiverse``) and as the page's view-model (laid out by ``templates/robustness.html.j2``),
each cell linked to its checks.

A grid is built from :class:`Slot` s: per (row, column), the claim test recorded there (if any), whether
the catalogue (or the multiverse's registry) runs that cell, and the page anchor its link goes to.

The text's pieces that both grids show are view models here (:class:`TableText`, :class:`CellText`, the counts
and the :data:`MARKS`), laid out by the macros of ``templates/text/_grid.j2``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from lengthgen.report import text
from lengthgen.records import Check, ClaimRecord
from lengthgen.records.verdicts import Verdict, look
from lengthgen.records.verdict import REASON_CHECKS
from lengthgen.report.views import Badge, CheckGroup, check_groups, verdict_badge

NOT_APPLICABLE = "-"  # a cell the catalogue (registry) does not run
MISSING = "?"  # a cell the catalogue runs that has no record in this report
CLOSE_MARK = "~"  # after a short word: a close call
FAILED_SHOWN = 4  # failed checks spelled out per cell in the text grid (all of them in the JSON and on the page)
MIN_COLUMN = 9  # characters of a text grid's column at least
TITLE_SHOWN = 120  # characters of a verdict's reason in a page cell's tooltip
GRID_KINDS = ("na", "missing", "cell")  # the page grid's cells: not run there, no record, a verdict


def short(verdict: Verdict | None) -> str:
    """The text grid's one-word cell label (``Verdict.look``'s; a verdict the tables do not list as it is)."""
    return verdict.look.short if verdict is not None and verdict.shown else str(verdict)


def shown(view: ClaimRecord) -> str:
    """A cell's short word, with ``~`` for a close call (``ClaimRecord.labelled_close``)."""
    return short(view.verdict) + (CLOSE_MARK if view.labelled_close else "")


@dataclass(frozen=True)
class Marks:
    """The text grid's marks, as its legend names them."""

    close: str  # after a cell's short word: a close call (:data:`CLOSE_MARK`)
    not_run: str  # a cell the catalogue (registry) does not run (:data:`NOT_APPLICABLE`)
    missing: str  # a cell the catalogue runs that has no record (:data:`MISSING`)


MARKS = Marks(CLOSE_MARK, NOT_APPLICABLE, MISSING)  # the marks every text grid uses

Counts = tuple[tuple[str, int], ...]  # (verdict, how many cells) by verdict; "missing" for cells without a record


@dataclass(frozen=True)
class TableText:
    """A text grid's table: the row names' column, then a column per setting (reading)."""

    corner: str  # the row names' header ("claim")
    first: int  # characters of the row names' column
    columns: tuple[str, ...]  # the columns' names
    widths: tuple[int, ...]  # characters of each column: its name's and its cells' longest, at least MIN_COLUMN
    rows: tuple[tuple[str, tuple[str, ...]], ...]  # (row name, its cell's short word or mark per column) per row

    def __post_init__(self) -> None:
        if len(self.widths) != len(self.columns):
            raise ValueError(f"grid widths {self.widths}: not one per column of {self.columns}")
        for name, cells in self.rows:
            if len(cells) != len(self.columns):
                raise ValueError(f"grid row {name!r} has cells {cells}: not one per column of {self.columns}")


@dataclass(frozen=True)
class FailedText:
    """A failed check under its cell in a text grid, its numbers formatted."""

    name: str  # the check's name
    value: str  # its value (4 significant digits)
    needs: str  # its comparison and threshold in words
    seeds: str | None  # its values per seed; None where it has none


@dataclass(frozen=True)
class CellText:
    """A cell that a text grid spells out below its table: its verdict and its failed checks with their numbers."""

    row: str  # the cell's row: "C1", "C12-d64"
    column: str  # the cell's column: the setting, or the reading
    label: str  # its verdict's label
    paper: str | None  # the row's verdict's label at the paper's point, where the text names it; else None
    passed: int  # checks passed
    checks: int  # checks in all
    reason: str | None  # the first line of the verdict's reason; None without a reason
    failed: tuple[FailedText, ...]  # the first failed checks (:data:`FAILED_SHOWN`)
    more_failed: int  # failed checks beyond those


def table_text(corner: str, first: int, columns: Sequence[str], rows: Sequence[tuple[str, Sequence[str]]]) -> TableText:
    """The grid's table: ``corner`` over the row names (``first`` characters wide), each column as wide as its
    name and its cells, at least :data:`MIN_COLUMN`."""
    widths = tuple(
        max([len(n), MIN_COLUMN] + [len(cells[i]) for _, cells in rows if i < len(cells)])
        for i, n in enumerate(columns)
    )
    return TableText(corner, first, tuple(columns), widths, tuple((name, tuple(cells)) for name, cells in rows))


def cell_counts(cells: Sequence[Mapping[str, Any]]) -> Counts:
    """A grid's cell dicts counted by their "verdict", in the verdicts' order as words."""
    counts: dict[str, int] = {}
    for c in cells:
        counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
    return tuple((f"{v}", n) for v, n in sorted(counts.items()))


def failed_check(check: Check) -> dict[str, Any]:
    """A failed check as the grids' JSON carries it: name, value, op, threshold, values (lists, not tuples)."""
    data = check.to_dict()
    return {k: data[k] for k in ("name", "value", "op", "threshold", "values")}


def cell_data(view: ClaimRecord, **extra: Any) -> dict[str, Any]:
    """A recorded cell as the grids' JSON carries it, after its row and column: verdict and label, then ``extra``
    (the multiverse's "changed"), reason, test, checks passed and in all, seeds, failed checks
    (:func:`failed_check`) and runtime."""
    passed, total = view.checks_passed
    return {
        "verdict": view.verdict,
        "label": view.label,
        **extra,
        "reason": view.verdict_reason,
        "test": view.test,
        "checks_passed": passed,
        "checks": total,
        "seeds": view.scale.get("seed_list"),
        "failed_checks": [failed_check(k) for k in view.failed_checks],
        "runtime_s": view.runtime_s,
    }


def failed_text(check: Mapping[str, Any]) -> FailedText:
    """A failed check of a grid's JSON (:func:`failed_check`) under its cell, its numbers formatted."""
    seeds = text.per_seed(check["values"]) if check.get("values") else None
    needs = text.threshold_text(check["op"], check["threshold"])
    return FailedText(check["name"], text.num(check["value"], 4), needs, seeds)


def cell_text(cell: Mapping[str, Any], row: str, column: str, paper: str | None = None) -> CellText:
    """A recorded cell of a grid's JSON (its "label", "checks_passed", "checks", "reason", "failed_checks") spelled
    out below the table at ``row`` and ``column``; ``paper``: the row's verdict at the paper's point, if named."""
    failed = cell["failed_checks"]
    return CellText(
        row,
        column,
        cell["label"],
        paper,
        cell["checks_passed"],
        cell["checks"],
        cell["reason"].splitlines()[0] if cell.get("reason") else None,
        tuple(failed_text(k) for k in failed[:FAILED_SHOWN]),
        max(len(failed) - FAILED_SHOWN, 0),
    )


# ----------------------------------------------------------------------------------------------- the page


@dataclass(frozen=True)
class Slot:
    """What one (row, column) of a grid holds, before it is laid out."""

    view: ClaimRecord | None  # the claim test recorded there; None: no record (or not run there)
    planned: bool  # the catalogue (registry) runs this cell
    anchor: str = ""  # the page anchor its link goes to ("" without a record)


@dataclass(frozen=True)
class GridCell:
    kind: str  # "na" (the catalogue does not run it), "missing" (no record in this report) or "cell"
    css: str  # the verdict's class ("" unless a cell)
    title: str  # the verdict's reason, else how many checks passed ("" unless a cell)
    href: str  # the anchor of its checks ("" unless a cell)
    label: str  # what the cell shows: the verdict (robustness map) or its short word (multiverse)

    def __post_init__(self) -> None:
        if self.kind not in GRID_KINDS:
            raise ValueError(f"grid cell kind {self.kind!r}: not one of {GRID_KINDS}")


@dataclass(frozen=True)
class GridBlock:
    anchor: str  # the block's id (the cells' href)
    claim: str  # the row: "C1", "C12-d64"
    where: str  # the column, as the block's title says it: "at offsets-far", "under init=gpt2"
    badge: Badge  # the verdict
    checks_passed: int  # checks passed
    checks: int  # checks in all
    scale: str  # the scale's description, less the cell's own setting or reading (its column, in ``where``)
    test: str  # the test's name
    reason: str | None  # why the verdict
    rows: tuple[Check, ...]  # the checks a reader must see in full: the failed and the close ones, failed first
    passed: tuple[CheckGroup, ...]  # every other check, grouped by quantity and comparison (its values: claims.json)

    @property
    def passed_count(self) -> int:
        """How many checks :attr:`passed` holds."""
        return sum(g.count for g in self.passed)


@dataclass(frozen=True)
class Grid:
    grid_id: str  # the table's id ("robustness-grid", "multiverse-grid")
    corner: str  # the row names' header ("claim")
    settings: tuple[tuple[str, str], ...]  # (name, what it changes) per column: settings, or readings
    rows: tuple[tuple[str, tuple[GridCell, ...]], ...]  # (row name, its cell per column) per row
    blocks: tuple[GridBlock, ...]  # one per recorded cell, in the text grid's order
    run: tuple[str, str, str] | None  # (started, wall time, models trained) of the run that drew it


def grid_cell(slot: Slot, label: str) -> GridCell:
    """A slot on the page: "-" where it does not run, "?" without a record, else its verdict's colour, a
    link to ``slot.anchor`` and ``label``; the tooltip gives the verdict and its reason."""
    if slot.view is None:
        return GridCell("na" if not slot.planned else "missing", "", "", "", "")
    v = slot.view
    passed, total = v.checks_passed
    reason = text.plain_numbers(v.verdict_reason or "").split("\n")[0]
    title = (  # the reason's first words; the cell's block below the grid has it all
        (reason if len(reason) <= TITLE_SHOWN else reason[: TITLE_SHOWN - 3].rstrip() + "...")
        if reason
        else f"{passed} of {total} checks passed"
    )
    return GridCell("cell", look(v.verdict).css, title, slot.anchor, label)


def block(view: ClaimRecord, anchor: str, row: str, where: str) -> GridBlock:
    """A recorded cell's checks below the grid: verdict, reason, scale, its failed and close checks in full (failed
    first) and every other check in a line. The page shows it closed: the grid above is the overview, and a cell's
    link opens its block."""
    passed, total = view.checks_passed
    return GridBlock(
        anchor,
        row,
        where,
        verdict_badge(view.verdict),
        passed,
        total,
        text.scale_text({k: v for k, v in view.scale.items() if v not in (view.setting, view.universe)}),
        view.test,
        text.plain_numbers(without_failed(view)) if view.verdict_reason else view.verdict_reason,
        tuple(sorted((k for k in view.checks if not k.passed or k.close), key=lambda k: k.passed)),
        check_groups([k for k in view.checks if k.passed and not k.close]),
    )


BELOW = "the failed checks below"  # in a block's reason, in place of the failed checks its table shows in full


def without_failed(view: ClaimRecord) -> str:
    """The verdict's reason with the failed checks it spells out (``Check.describe``, at most ``REASON_CHECKS``, the
    rest counted) named as :data:`BELOW`: the block's table shows every failed check in full, with the same
    numbers. A reason that spells them out otherwise stays as it is."""
    reason = view.verdict_reason or ""
    failed = list(view.failed_checks)
    for checks in (failed, [k for k in failed if not k.expected_to_fail]):  # a declared reason; a finding's
        shown = "; ".join(k.describe() for k in checks[:REASON_CHECKS])
        more = f"; and {len(checks) - REASON_CHECKS} more" if len(checks) > REASON_CHECKS else ""
        if shown and f"{shown}{more}" in reason:
            return reason.replace(f"{shown}{more}", BELOW, 1)
    return reason


def run_line(environment: Mapping[str, Any] | None) -> tuple[str, str, str] | None:
    """(started, wall time, models trained) of the run that drew a grid; None without its environment."""
    if not environment:
        return None
    return (
        str(environment.get("started", "?")),
        text.duration(environment.get("wall_time_s")),
        str(environment.get("models_trained", "?")),
    )
