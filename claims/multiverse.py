"""The multiverse's cells (``claims/test_multiverse.py``): each claim's own measure and checks (its ``CLAIM``,
through ``claims.run.run_claim``) under a universe of :mod:`lengthgen.readings` (one alternative reading, or a
combination of readings admissible alone), always at paper scale with the catalogue's seeds, assertions
unchanged.

Which claims a universe touches follows from the registry: a claim's spec declares the model families its test
reads (``families``, ``reads_ape``, ``reads_decay``), a reading what it changes (``Universe.reaches``), so no list
of claims is kept by hand. A claim's columns are its id and its variants run apart (``Variant(column=True)``: a
width); a claim with several tests at the paper's point is one cell with every test's checks, or its
``cell_variant``'s.

Which cells run by default and which are extended (``-m multiverse_extended``): the claims' ``left_out`` readings
(``claims/costs.py`` says why) and every combination. :func:`plan` is what the report reads: the claims' conftest
hands it to the plugin (``pytest_lengthgen_registry``), which records it in ``claims.json``.

The cells' expected outcomes, ``multiverse_declared.json``, are read by :func:`load_declarations` and passed to
every function that needs them (a reading ruled out alone plans no combinations): a pytest session reads them once
(:func:`session_declarations`, kept on the plugin's session object; the ``declarations`` fixture), nothing at
import.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lengthgen.readings import UNIVERSES, CellPlan, Universe, choice, factorial, universe
from lengthgen.analysis import declared as declared_file

from claims.costs import COMBINATIONS_COST
from claims.preconditions import PRECONDITIONS
from claims.registry import CLAIMS
from claims.spec import ClaimSpec

COLUMNS = {column: spec for spec in CLAIMS.values() for column in spec.columns}  # every grid column -> its claim

DECLARED_PATH = Path(__file__).with_name("multiverse_declared.json")  # the cells' expected outcomes (data, written
# by `lengthgen multiverse --record`)
NONE_DECLARED = declared_file.Declarations({}, {}, {})  # no cell declared: every combination is planned


def touched(universe: Universe) -> tuple[str, ...]:
    """The claims whose models ``universe`` changes, in the catalogue's order."""
    return tuple(
        s.id for s in CLAIMS.values() if s.families and universe.reaches(s.families, s.reads_ape, s.reads_decay)
    )


def columns(claim_id: str) -> tuple[str, ...]:
    """The grid's columns of a claim: its id, then its variants run apart."""
    return CLAIMS[claim_id].columns


def extended(universe_name: str, column: str) -> bool:
    """Whether the cell is left out of the default run: a combination, or a reading its claim leaves out."""
    return "+" in universe_name or COLUMNS[column].left_out_under(universe_name) is not None


def ruled_out_alone(declarations: declared_file.Declarations, reading_name: str, column: str) -> bool:
    """Whether the declarations rule ``column`` out under ``reading_name`` alone (its combinations are not run)."""
    cell = declarations.cells.get((reading_name, column))
    return cell is not None and cell.outcome == "ruled out"


def combinations(declarations: declared_file.Declarations, column: str) -> list[Universe]:
    """The factorial of ``column``: every combination of two or more readings that touch its claim and are
    admissible alone for it (a combination holding a reading the declarations rule out alone is not run)."""
    claim = COLUMNS[column].id
    mine = [
        u.readings[0] for u in UNIVERSES if claim in touched(u) and not ruled_out_alone(declarations, u.name, column)
    ]
    return factorial(mine)


def all_cells(declarations: declared_file.Declarations) -> list[tuple[Universe, str]]:
    """Every (universe, column) cell of the multiverse under ``declarations``: each reading alone (universes in the
    registry's order, claims by number), then every column's combinations (smallest first)."""
    singles = [(u, column) for u in UNIVERSES for claim in touched(u) for column in columns(claim)]
    order = {u.name: i for i, u in enumerate(UNIVERSES)}
    combined = {
        (u.name, column): u
        for claim in [c for c in CLAIMS if any(c in touched(u) for u in UNIVERSES)]
        for column in columns(claim)
        for u in combinations(declarations, column)
    }
    keyed = sorted(combined, key=lambda k: (combined[k].name.count("+"), [order[r.name] for r in combined[k].readings]))
    return singles + [(combined[k], k[1]) for k in keyed]


def cells(declarations: declared_file.Declarations) -> list[tuple[Universe, str]]:
    """The cells of the default run (`-m multiverse`): every cell but the extended ones."""
    return [(u, column) for u, column in all_cells(declarations) if not extended(u.name, column)]


def extended_cells(declarations: declared_file.Declarations) -> list[tuple[Universe, str]]:
    """The cells left out of the default run for their cost (`-m multiverse_extended`)."""
    return [(u, column) for u, column in all_cells(declarations) if extended(u.name, column)]


def not_run(declarations: declared_file.Declarations) -> tuple[tuple[str, str], ...]:
    """(reading, why) of each reading whose combinations are not run for some claim: ruled out alone there."""
    found = {}
    for u in UNIVERSES:
        ruled = [c for claim in touched(u) for c in columns(claim) if ruled_out_alone(declarations, u.name, c)]
        if ruled:
            found[u.name] = f"ruled out alone for {len(ruled)} claims: its combinations are not run"
    return tuple(found.items())


def plan(declarations: declared_file.Declarations) -> CellPlan:
    """The plan of cells under ``declarations``, for the report (recorded in ``claims.json`` by the plugin)."""
    for u in UNIVERSES:
        if not touched(u):
            raise ValueError(f"reading {u.name!r} touches no claim of the registry")
    every = all_cells(declarations)
    names = list(dict.fromkeys(u.name for u, _ in every))
    touched_by = {
        n: tuple(c for c in CLAIMS if any(u.name == n and COLUMNS[col].id == c for u, col in every)) for n in names
    }
    left = tuple(
        (u.name, column, why)
        for u, column in every
        if "+" not in u.name and (why := COLUMNS[column].left_out_under(u.name)) is not None
    )
    cell_names = tuple((u.name, c) for u, c in every)
    return CellPlan(tuple(touched_by.items()), cell_names, not_run(declarations), left, COMBINATIONS_COST)


def spec(column: str) -> ClaimSpec:
    """The claim of a column, as the cell runs it (a variant run apart as that variant, ``ClaimSpec.column``)."""
    return COLUMNS[column].column(column)


def reason(declarations: declared_file.Declarations, claim: str, universe_name: str) -> str | None:
    """The hand-written reasons of ``claim`` for the choices of ``universe_name``'s readings, joined (None: none)."""
    mine = declarations.reasons.get(claim, {})
    choices = dict.fromkeys(r.choice for r in universe(universe_name).readings)
    found = [f"{c}: {mine[c]}" for c in choices if c in mine]
    if universe_name in mine:
        found.append(mine[universe_name])
    return "; ".join(found) or None


RECORD_STEP = "undeclared: record it with `lengthgen multiverse --record`"  # what a cell the file lacks says when
# its verdict fails the test: its expected outcome is data, recorded from a cold run


def recorded(declarations: declared_file.Declarations, reading: str, column: str) -> bool:
    """Whether the declarations file holds the cell's expected outcome (a cell never recorded expects what its
    claim's paper's point declares, and says :data:`RECORD_STEP` when that fails)."""
    return (reading, column) in declarations.cells


def declaration(declarations: declared_file.Declarations, reading: str, column: str) -> declared_file.DeclaredCell:
    """The cell's declaration (``lengthgen.analysis.declared.declared_cell``), from the declarations file, its
    claim's own declaration at the paper's point and the file's reason for its claim and readings. A cell the file
    does not hold (never run cold) expects what the claim's paper's point declares."""
    cell = declarations.cells.get((reading, column))
    why = reason(declarations, COLUMNS[column].id, reading) if cell is not None else None
    return declared_file.declared_cell(cell, spec(column).declaration("paper"), why)


def load_declarations(path: Path = DECLARED_PATH) -> declared_file.Declarations:
    """The declarations file at ``path`` (default: the claims' own), checked against the registry: every cell one
    of the plan's, every precondition known (a one-line ValueError otherwise)."""
    return _validated(declared_file.load(path), Path(path).name)


def session_declarations(config: pytest.Config) -> declared_file.Declarations:
    """The claims' declarations for the pytest session of ``config``: read on first use, then kept on the plugin's
    session object (``lengthgen.testing.session.session_of``; every xdist worker reads its own)."""
    from lengthgen.testing.session import session_of

    memo = session_of(config).memo
    if memo.declarations is None:
        memo.declarations = load_declarations()
    return memo.declarations


def _validated(found: declared_file.Declarations, name: str) -> declared_file.Declarations:
    known = {(u.name, c) for u, c in all_cells(NONE_DECLARED)}  # before the file counts: every combination counts
    for key, cell in found.cells.items():
        if key not in known:
            raise ValueError(f"{name}: cell {key!r} is not a cell of the multiverse")
        unknown = [p for p in cell.preconditions if p not in PRECONDITIONS]
        if unknown:
            raise ValueError(f"{name}: cell {key!r} names unknown precondition(s) {unknown}")
    for claim, by_choice in found.reasons.items():
        if claim not in CLAIMS:
            raise ValueError(f"{name}: reasons for unknown claim {claim!r}")
        for name in by_choice:
            try:
                choice(name)
            except ValueError:
                universe(name)  # a universe's name: a reason for that combination
    return found
