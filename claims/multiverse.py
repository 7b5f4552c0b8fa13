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

import dataclasses

from lengthgen.multiverse_cells import columns, extended, split_column
from lengthgen.readings import UNIVERSES, CellPlan, Universe, claim_order, use_plan

from claims.multiverse_findings import CARRIED, FINDINGS, REPRODUCED_UNDER
from claims.registry import CLAIMS
from claims.spec import ClaimSpec, Declared


def touched(universe: Universe) -> tuple[str, ...]:
    """The claims whose models ``universe`` changes, by number (C before P)."""
    found = [s.id for s in CLAIMS.values() if s.families and universe.reaches(s.families, s.reads_ape)]
    return tuple(sorted(found, key=claim_order))


def all_cells() -> list[tuple[Universe, str]]:
    """Every (universe, column) cell of the multiverse, universes in the registry's order, claims by number."""
    return [(universe, column) for universe in UNIVERSES for claim in touched(universe) for column in columns(claim)]


def cells() -> list[tuple[Universe, str]]:
    """The cells of the default run (`-m multiverse`): every cell but the extended ones."""
    return [(u, column) for u, column in all_cells() if not extended(u.name, column)]


def extended_cells() -> list[tuple[Universe, str]]:
    """The cells left out of the default run for their cost (`-m multiverse_extended`)."""
    return [(u, column) for u, column in all_cells() if extended(u.name, column)]


def plan() -> CellPlan:
    """The plan of cells, for the report (``lengthgen.readings.use_plan``)."""
    for u in UNIVERSES:
        if not touched(u):
            raise ValueError(f"reading {u.name!r} touches no claim of the registry")
    return CellPlan(tuple((u.name, touched(u)) for u in UNIVERSES), tuple((u.name, c) for u, c in all_cells()))


def spec(column: str) -> ClaimSpec:
    """The claim of a column, as the cell runs it: C12/C13's first width as its variant ("C12-d64")."""
    claim_id, width = split_column(column)
    return CLAIMS[claim_id] if width is None else CLAIMS[claim_id].variant(f"d{width}")


def declaration(reading: str, column: str) -> tuple[Declared | None, bool]:
    """The cell's declared non-reproduction and whether it is strict: a finding (``FINDINGS``), or the claim's
    own declaration at the paper's point where it fails exactly its checks here too (``CARRIED``), or, where it
    passes every check here (``REPRODUCED_UNDER``), the claim's own kept non-strict (the cell reads reproduced:
    the non-reproduction does not survive this reading)."""
    if (reading, column) in FINDINGS:
        return Declared(*FINDINGS[reading, column]), True
    own = spec(column).declaration("paper")
    if own is None and ((reading, column) in CARRIED or (reading, column) in REPRODUCED_UNDER):
        raise ValueError(
            f"cell ({reading!r}, {column!r}): listed as carried or reproduced, but {column} declares no "
            f"non-reproduction at the paper's point"
        )
    if (reading, column) in CARRIED:
        return own, True
    if (reading, column) in REPRODUCED_UNDER:
        why = (
            f"{own.why} (at the paper's point; under {reading} every check passed in the first cold run: the "
            f"non-reproduction does not survive this reading)"
        )
        return dataclasses.replace(own, why=why), False
    return None, True


use_plan(plan())  # the report's multiverse grid: which cells the registry runs (lengthgen/ never imports claims/)
