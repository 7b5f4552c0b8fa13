"""The multiverse's declarations as data: the expected outcome of every cell, written from a recorded run by
``lengthgen multiverse --record FILE`` and read by the multiverse's tests (``claims/multiverse.py``), reviewed
as a diff. Imports no torch.

A cell's declaration is a :class:`DeclaredCell`: the record's own :class:`~lengthgen.records.Declared` (the checks
expected to fail and why; None: every check passes) and the preconditions expected to fail (a ruled-out cell).
:func:`declared_cell` makes it from the file's :class:`RecordedCell`, the cell's claim's own declaration at the
paper's point and the file's reason for the cell's claim and readings (the file holds no ``why``: a cell's is its
claim's, with the reason).

The file (JSON) holds:

- ``cells``: per (universe, column) cell, its outcome in the run it was recorded from (a :class:`RecordedCell`):
  ``reproduced``; ``not reproduced`` with the checks that failed (``"own"``: exactly as the claim's own
  declaration at the paper's point names them, so the claim's patterns carry over); or ``ruled out`` with the
  preconditions that failed;
- ``reasons``: a sentence per claim and choice, written by hand, saying why a verdict changes under that
  choice's reading (kept as they are when the file is written again);
- ``recorded``: where the run was recorded (CPU, torch, date), from the run's environment.

A cell whose outcome differs from the file reads "not reproduced (undeclared)" or "unexpectedly reproduced"
(the recorder's rules); a file naming an unknown universe, column or outcome is a one-line ValueError.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Mapping, Sequence

from lengthgen.catalogue import claim_order
from lengthgen.records import Check, ClaimRecord, Declared, Verdict

FORMAT = 1  # the file's format; another is refused
REPRODUCED, NOT_REPRODUCED, RULED_OUT = Verdict.REPRODUCED, Verdict.NOT_REPRODUCED, Verdict.RULED_OUT
OUTCOMES = (REPRODUCED, NOT_REPRODUCED, RULED_OUT)  # a recorded cell's outcome: its verdict, as the file says it
OWN = "own"  # "checks": the claim's own declared checks at the paper's point
RECORDABLE = {  # a cell's verdict -> its outcome (any other verdict cannot be recorded: the test broke)
    Verdict.REPRODUCED: REPRODUCED,
    Verdict.UNEXPECTEDLY_REPRODUCED: REPRODUCED,
    Verdict.NOT_REPRODUCED: NOT_REPRODUCED,
    Verdict.NOT_REPRODUCED_UNDECLARED: NOT_REPRODUCED,
    Verdict.RULED_OUT: RULED_OUT,
}


@dataclass(frozen=True)
class DeclaredCell:
    """What a multiverse cell is declared to do: not reproduce through the checks ``declared`` names, be ruled out
    by ``preconditions``, or (neither) reproduce. Its test runs by it (``claims.multiverse.declaration``)."""

    declared: Declared | None = None  # the checks expected to fail and why (None: every check passes)
    preconditions: tuple[str, ...] = ()  # the preconditions expected to fail, by name (a ruled-out cell)

    def __post_init__(self) -> None:
        if isinstance(self.preconditions, str) or not all(isinstance(p, str) and p for p in self.preconditions):
            raise ValueError(f"declared preconditions {self.preconditions!r} must be a tuple of names")
        if self.declared is not None and self.preconditions:
            raise ValueError(
                f"a cell declared ruled out by {list(self.preconditions)} runs no checks to fail "
                f"({list(self.declared.checks)})"
            )

    @property
    def ruled_out(self) -> tuple[str, ...]:
        """The preconditions as patterns of their checks ("one-layer fit: *": a precondition's checks are named
        "<precondition>: <what it measured>"), for ``ClaimRecorder.expect_ruled_out``; () for a cell not ruled out."""
        return tuple(f"{name}: *" for name in self.preconditions)


@dataclass(frozen=True)
class RecordedCell:
    """A cell's outcome as the file holds it, recorded from a cold run (:func:`cell_of`); its declaration is
    :func:`declared_cell`'s."""

    universe: str  # the universe's name (readings joined by "+")
    column: str  # the grid's column ("C8", "C12-d64")
    outcome: str  # one of OUTCOMES
    checks: tuple[str, ...] | str = ()  # the failing checks' names, or OWN (outcome "not reproduced")
    preconditions: tuple[str, ...] = ()  # the failing preconditions' names (outcome "ruled out")

    def __post_init__(self) -> None:
        where = f"declared cell ({self.universe!r}, {self.column!r})"
        if self.outcome not in OUTCOMES:
            raise ValueError(f"{where}: unknown outcome {self.outcome!r} (known: {', '.join(OUTCOMES)})")
        if self.outcome == NOT_REPRODUCED and not self.checks:
            raise ValueError(f"{where}: not reproduced through which checks?")
        if self.outcome == RULED_OUT and not self.preconditions:
            raise ValueError(f"{where}: ruled out by which precondition?")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"universe": self.universe, "column": self.column, "outcome": self.outcome}
        if self.outcome == NOT_REPRODUCED:
            out["checks"] = self.checks if isinstance(self.checks, str) else list(self.checks)
        if self.outcome == RULED_OUT:
            out["preconditions"] = list(self.preconditions)
        return out


@dataclass(frozen=True)
class Declarations:
    """The file, read."""

    cells: dict[tuple[str, str], RecordedCell]  # (universe, column) -> its recorded outcome
    reasons: dict[str, dict[str, str]]  # claim -> choice -> why a verdict changes under that choice's reading
    recorded: dict[str, Any]  # the run's machine and date

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "about": "the multiverse's expected outcomes, written by `lengthgen multiverse --record` from a cold run; "
            "reasons are written by hand, per claim and choice",
            "recorded": self.recorded,
            "reasons": {
                c: dict(sorted(r.items())) for c, r in sorted(self.reasons.items(), key=lambda kv: claim_order(kv[0]))
            },
            "cells": [c.to_json() for _, c in sorted(self.cells.items(), key=lambda kv: _cell_key(kv[0]))],
        }


def _cell_key(key: tuple[str, str]) -> tuple:
    universe, column = key
    claim, _, width = column.partition("-d")
    return (universe.count("+"), universe, *claim_order(claim), width)


def parse(data: Any, where: str = "declarations") -> Declarations:
    """The file's data, checked (ValueError naming what is wrong, in one line)."""
    if not isinstance(data, Mapping) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, Mapping) else type(data).__name__
        raise ValueError(f"{where}: not a declarations file of format {FORMAT} (found {found!r})")
    cells: dict[tuple[str, str], RecordedCell] = {}
    for entry in data.get("cells", []):
        if not isinstance(entry, Mapping) or not {"universe", "column", "outcome"} <= set(entry):
            raise ValueError(f"{where}: a cell needs universe, column and outcome: {entry!r}")
        checks = entry.get("checks", ())
        cell = RecordedCell(
            str(entry["universe"]),
            str(entry["column"]),
            str(entry["outcome"]),
            checks if isinstance(checks, str) else tuple(checks),
            tuple(entry.get("preconditions", ())),
        )
        if (cell.universe, cell.column) in cells:
            raise ValueError(f"{where}: cell ({cell.universe!r}, {cell.column!r}) declared twice")
        cells[cell.universe, cell.column] = cell
    reasons = data.get("reasons", {})
    if not isinstance(reasons, Mapping) or not all(isinstance(v, Mapping) for v in reasons.values()):
        raise ValueError(f"{where}: reasons must map claim -> choice -> sentence")
    return Declarations(cells, {c: dict(r) for c, r in reasons.items()}, dict(data.get("recorded", {})))


def load(path: Path) -> Declarations:
    """The declarations file at ``path`` (ValueError, one line, for a missing or malformed one)."""
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise ValueError(
            f"{str(path)!r}: no declarations file (write one with `lengthgen multiverse --record`)"
        ) from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{str(path)!r}: not JSON ({e.msg} at line {e.lineno})") from None
    return parse(data, str(path))


def write(path: Path, declarations: Declarations) -> None:
    """Write the file (sorted, one entry per line block, so a change reads as a diff)."""
    Path(path).write_text(json.dumps(declarations.to_json(), indent=1, ensure_ascii=False) + "\n")


def precondition_names(checks: Sequence[Check]) -> tuple[str, ...]:
    """The preconditions (their names, before ":") among the failed precondition checks of a record."""
    names = [c.name.partition(":")[0] for c in checks if not c.passed]
    return tuple(dict.fromkeys(names))


@dataclass(frozen=True)
class AtPaper:
    """What a column's claim tests at the paper's point declare and fail (over its tests)."""

    patterns: tuple[str, ...]  # the checks their declarations name (patterns)
    failed: frozenset[str]  # the checks that failed there, by name


def cell_of(cell: ClaimRecord, paper: AtPaper | None, universe: str, column: str) -> RecordedCell:
    """The declared outcome a recorded cell gives: its verdict read as an outcome; the failed checks as "own" where
    they are exactly the checks that fail at the paper's point (``paper.failed``) and its declaration there
    (``paper.patterns``) names every one."""
    verdict = cell.verdict
    if cell.ruled_out:
        return RecordedCell(universe, column, RULED_OUT, preconditions=precondition_names(cell.preconditions))
    if verdict not in RECORDABLE:
        raise ValueError(f"cell ({universe!r}, {column!r}): verdict {verdict!r} cannot be recorded (the test broke)")
    outcome = RECORDABLE[verdict]
    if outcome != NOT_REPRODUCED:
        return RecordedCell(universe, column, outcome)
    failed = [c.name for c in cell.failed_checks]
    own = paper.patterns if paper is not None else ()
    same = set(failed) == set(paper.failed if paper is not None else failed)
    if own and same and all(any(fnmatchcase(name, p) for p in own) for name in failed):
        return RecordedCell(universe, column, outcome, OWN)
    return RecordedCell(universe, column, outcome, tuple(failed))


def record(
    cells: Mapping[tuple[str, str], ClaimRecord],
    papers: Mapping[str, AtPaper],
    environment: Mapping[str, Any],
    previous: Declarations | None,
) -> Declarations:
    """The declarations of a run: every recorded cell's outcome (``cells``: (universe, column) -> record),
    against its column's record at the paper's point (``papers``); the previous file's cells the run did not
    hold and its reasons are kept."""
    kept = dict(previous.cells) if previous is not None else {}
    for (universe, column), cell in cells.items():
        kept[universe, column] = cell_of(cell, papers.get(column), universe, column)
    recorded = {k: environment.get(k) for k in ("cpu_model", "cpu_capability", "torch", "started") if k in environment}
    return Declarations(kept, dict(previous.reasons) if previous is not None else {}, recorded)


def escape(name: str) -> str:
    """A check's name as an fnmatch pattern matching exactly it."""
    return "".join(f"[{ch}]" if ch in "*?[" else ch for ch in name)


def declared_cell(recorded: RecordedCell | None, own: Declared | None, reason: str | None) -> DeclaredCell:
    """A cell's declaration, from its outcome in the file (``recorded``), its claim's own declaration at the paper's
    point (``own``) and the file's hand-written reason for its claim and readings (``reason``; None: none): ruled
    out by the recorded preconditions; not reproduced through the recorded checks (``own``: the claim's own
    declaration, the reason added to its why, as the non-reproduction survives this reading), with the reason; or
    reproduced. A cell the file does not hold (never run cold) expects what the claim's paper's point declares.
    ValueError (one line) for a non-reproduction the file cannot say why of."""
    if recorded is None:
        return DeclaredCell(own)
    if recorded.outcome == RULED_OUT:
        return DeclaredCell(None, tuple(recorded.preconditions))
    if recorded.outcome == REPRODUCED:
        return DeclaredCell(None)
    where = f"declared cell ({recorded.universe!r}, {recorded.column!r})"
    if recorded.checks == OWN:
        if own is None:
            raise ValueError(f"{where}: 'own' checks, but {recorded.column} declares none")
        return DeclaredCell(own if reason is None else Declared(own.checks, f"{own.why}; {reason}"))
    if reason is None and own is None:
        raise ValueError(f"{where}: not reproduced, but no reason for its claim and choice")
    why = reason or (
        f"{own.why} (the paper's point's finding; under {recorded.universe} it fails through another set of its checks)"
    )
    return DeclaredCell(Declared(tuple(escape(n) for n in recorded.checks), why))
