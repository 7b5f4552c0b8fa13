"""The multiverse's cells (``claims/test_multiverse.py``): each claim's own measure and checks (its ``CLAIM``,
through ``claims.run.run_claim``) under a universe of :mod:`lengthgen.readings` (one alternative reading, or
every alternative at once), always at paper scale with the catalogue's seeds, assertions unchanged.

Which claims a universe touches follows from the registry: a claim's spec declares the model families its test
reads (``families``, ``reads_ape``), a reading what it changes (``Universe.reaches``), so no list of claims is
kept by hand. The readings act through the specs the experiments build (``paper_spec``, ``two_layer_spec``:
the active universe, ``run_claim(..., reading=...)`` enters it), and ``claims.memo`` keys on it. Claims with
several tests at the paper's point are one cell with every test's checks (the spec's ``checks``: C19's both
schemes and both checks, as the robustness map does); C12 and C13 are a cell per width (``C12`` is d = 96, the
suite's width; ``C12-d64`` the first width tried, a declared non-reproduction at the paper's point).

Which cells run by default (the cost budget: ``pytest claims -m multiverse -n auto`` within 15 minutes cold
on 2 quiet cores) and which are extended (``-m multiverse_extended``): ``lengthgen.multiverse_cells.LEFT_OUT``.
:func:`plan` is what the report reads: importing this module hands it to ``lengthgen.readings.use_plan`` (the
package never imports ``claims/``), so every process that knows the claims (a claims run, the report's tests)
renders the same grid.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lengthgen.multiverse_cells import columns, extended, split_column
from lengthgen.readings import UNIVERSES, CellPlan, Universe, choice, claim_order, factorial, universe, use_plan
from lengthgen.report import declared as declared_file

from claims.preconditions import PRECONDITIONS
from claims.registry import CLAIMS
from claims.spec import ClaimSpec, Declared

DECLARED_PATH = Path(__file__).with_name("multiverse_declared.json")  # the cells' expected outcomes (data, written
# by `lengthgen multiverse --record`)


def touched(universe: Universe) -> tuple[str, ...]:
    """The claims whose models ``universe`` changes, by number (C before P)."""
    found = [s.id for s in CLAIMS.values() if s.families and universe.reaches(s.families, s.reads_ape, s.reads_decay)]
    return tuple(sorted(found, key=claim_order))


def ruled_out_alone(reading_name: str, column: str) -> bool:
    """Whether the declarations rule ``column`` out under ``reading_name`` alone (its combinations are not run)."""
    cell = DECLARATIONS.cells.get((reading_name, column)) if "DECLARATIONS" in globals() else None
    return cell is not None and cell.outcome == "ruled out"


def combinations(column: str) -> list[Universe]:
    """The factorial of ``column``: every combination of two or more readings that touch its claim and are
    admissible alone for it (a combination holding a ruled-out reading is not run)."""
    claim = split_column(column)[0]
    mine = [u.readings[0] for u in UNIVERSES if claim in touched(u) and not ruled_out_alone(u.name, column)]
    return factorial(mine)


def all_cells() -> list[tuple[Universe, str]]:
    """Every (universe, column) cell of the multiverse: each reading alone (universes in the registry's order,
    claims by number), then every column's combinations (smallest first)."""
    singles = [(u, column) for u in UNIVERSES for claim in touched(u) for column in columns(claim)]
    order = {u.name: i for i, u in enumerate(UNIVERSES)}
    combined = {
        (u.name, column): u
        for claim in sorted({c for u in UNIVERSES for c in touched(u)}, key=claim_order)
        for column in columns(claim)
        for u in combinations(column)
    }
    keyed = sorted(combined, key=lambda k: (combined[k].name.count("+"), [order[r.name] for r in combined[k].readings]))
    return singles + [(combined[k], k[1]) for k in keyed]


def cells() -> list[tuple[Universe, str]]:
    """The cells of the default run (`-m multiverse`): every cell but the extended ones."""
    return [(u, column) for u, column in all_cells() if not extended(u.name, column)]


def extended_cells() -> list[tuple[Universe, str]]:
    """The cells left out of the default run for their cost (`-m multiverse_extended`)."""
    return [(u, column) for u, column in all_cells() if extended(u.name, column)]


def not_run() -> tuple[tuple[str, str], ...]:
    """(reading, why) of each reading whose combinations are not run for some claim: ruled out alone there."""
    found = {}
    for u in UNIVERSES:
        ruled = [c for claim in touched(u) for c in columns(claim) if ruled_out_alone(u.name, c)]
        if ruled:
            found[u.name] = f"ruled out alone for {len(ruled)} claims: its combinations are not run"
    return tuple(found.items())


def plan() -> CellPlan:
    """The plan of cells, for the report (``lengthgen.readings.use_plan``)."""
    for u in UNIVERSES:
        if not touched(u):
            raise ValueError(f"reading {u.name!r} touches no claim of the registry")
    every = all_cells()
    names = list(dict.fromkeys(u.name for u, _ in every))
    touched_by = {
        n: tuple(sorted({split_column(c)[0] for u, c in every if u.name == n}, key=claim_order)) for n in names
    }
    return CellPlan(tuple(touched_by.items()), tuple((u.name, c) for u, c in every), not_run())


def spec(column: str) -> ClaimSpec:
    """The claim of a column, as the cell runs it: C12/C13's first width as its variant ("C12-d64")."""
    claim_id, width = split_column(column)
    return CLAIMS[claim_id] if width is None else CLAIMS[claim_id].variant(f"d{width}")


@dataclass(frozen=True)
class Expected:
    """What a cell's declarations expect: a non-reproduction (through which checks, and why), or ruled out."""

    declared: Declared | None  # the checks expected to fail and why (None: every check passes)
    ruled_out: tuple[str, ...]  # the preconditions expected to fail, as patterns ("one-layer fit: *"); ()


def reason(claim: str, universe_name: str) -> str | None:
    """The hand-written reasons of ``claim`` for the choices of ``universe_name``'s readings, joined (None: none)."""
    mine = DECLARATIONS.reasons.get(claim, {})
    choices = dict.fromkeys(r.choice for r in universe(universe_name).readings)
    found = [f"{c}: {mine[c]}" for c in choices if c in mine]
    if universe_name in mine:
        found.append(mine[universe_name])
    return "; ".join(found) or None


def declaration(reading: str, column: str) -> Expected:
    """The cell's expected outcome, from the declarations file: ruled out by its preconditions; not reproduced
    through the recorded checks (``own``: the claim's own declaration at the paper's point, its reason
    carried, as the non-reproduction survives this reading), with the claim-and-choice reason; or reproduced.
    A cell the file does not hold (never run cold) expects what the claim's paper's point declares."""
    own = spec(column).declaration("paper")
    cell = DECLARATIONS.cells.get((reading, column))
    if cell is None:
        return Expected(own, ())
    if cell.outcome == "ruled out":
        return Expected(None, tuple(f"{name}: *" for name in cell.preconditions))
    if cell.outcome == "reproduced":
        return Expected(None, ())
    why = reason(split_column(column)[0], reading)
    if cell.checks == declared_file.OWN:
        if own is None:
            raise ValueError(f"declared cell ({reading!r}, {column!r}): 'own' checks, but {column} declares none")
        return Expected(own, ()) if why is None else Expected(Declared(own.checks, f"{own.why}; {why}"), ())
    if why is None and own is None:
        raise ValueError(
            f"declared cell ({reading!r}, {column!r}): not reproduced, but no reason for its claim and choice"
        )
    text = why or f"{own.why} (the paper's point's finding; under {reading} it fails through another set of its checks)"
    return Expected(Declared(tuple(declared_file.escape(n) for n in cell.checks), text), ())


def _validated(found: declared_file.Declarations) -> declared_file.Declarations:
    """The file against the registry: every cell one of the plan's, every precondition known (a one-line
    ValueError at collection otherwise)."""
    known = {(u.name, c) for u, c in all_cells()}  # before the file is read: every combination counts
    for key, cell in found.cells.items():
        if key not in known:
            raise ValueError(f"{DECLARED_PATH.name}: cell {key!r} is not a cell of the multiverse")
        unknown = [p for p in cell.preconditions if p not in PRECONDITIONS]
        if unknown:
            raise ValueError(f"{DECLARED_PATH.name}: cell {key!r} names unknown precondition(s) {unknown}")
    for claim, by_choice in found.reasons.items():
        if claim not in CLAIMS:
            raise ValueError(f"{DECLARED_PATH.name}: reasons for unknown claim {claim!r}")
        for name in by_choice:
            try:
                choice(name)
            except ValueError:
                universe(name)  # a universe's name: a reason for that combination
    return found


DECLARATIONS = _validated(declared_file.load(DECLARED_PATH))
use_plan(plan())  # the report's multiverse grid: which cells the registry runs (lengthgen/ never imports claims/)
