"""The multiverse (catalogue, "Open choices and their readings"): every claim whose models an open
choice touches, run again under each other reading of that choice (one at a time) and under every
alternative at once (``all-alternatives``), with its assertions unchanged.

One test per (reading, claim) cell, ``test_multiverse[<reading>-<claim>]`` (C12/C13 per width:
``...-C12`` is d = 96, ``...-C12-d64`` the first width tried), marked ``multiverse`` (run only when the
``-m`` expression names multiverse: ``pytest claims -m multiverse -n auto``) and ``claim("Cn")``; its
record (``reading`` set) goes to the report's multiverse grid, not to the claims table. The cell runs
the claim's own ``CLAIM`` (its measure and checks) through ``claims.run.run_claim`` under the universe (the
readings change the specs the experiments build), at paper scale and the catalogue's seeds.
``--lengthgen-seeds`` does not apply here. Which cells run by default, and which are extended (marked
``multiverse_extended``, left out of the default run for their cost: ``-m multiverse_extended``):
the claims' ``left_out`` readings and every combination (``claims/multiverse.py``).

A cell measures the claim's preconditions first (``claims/preconditions.py``: what the paper reports of the
models it reads, on the universe's own models); one that fails rules the cell out (the verdict "ruled out": the
reading is one the paper's own results exclude; the test passes). The expected outcome of every cell (reproduced,
not reproduced through which checks, ruled out by which precondition) is data, ``claims/multiverse_declared.json``,
written by ``lengthgen multiverse --record`` from a cold run and read by ``claims.multiverse.declaration``; a
cell whose outcome differs from it is a finding ("not reproduced (undeclared)", "unexpectedly reproduced"),
never a loosened threshold or a retuned run.
"""

from __future__ import annotations

import pytest

from lengthgen.readings import universe as lookup
from lengthgen.scale import PAPER

from claims.multiverse import COLUMNS, cells, declaration, extended_cells, session_declarations, spec
from claims.run import run_claim


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """One test per cell, planned under the session's declarations (a reading ruled out alone has no
    combinations): the default cells, then the extended ones."""
    declared = session_declarations(metafunc.config)
    groups = ((cells(declared), pytest.mark.multiverse), (extended_cells(declared), pytest.mark.multiverse_extended))
    metafunc.parametrize(
        "universe_name, column",
        [
            pytest.param(u.name, column, id=f"{u.name}-{column}", marks=[pytest.mark.claim(COLUMNS[column].id), mark])
            for group, mark in groups
            for u, column in group
        ],
    )


def test_multiverse(universe_name, column, declarations, model_cache, claim):
    universe = lookup(universe_name)
    expected = declaration(declarations, universe_name, column)
    if expected.ruled_out:
        claim.expect_ruled_out(expected.ruled_out)
    run_claim(
        spec(column),
        claim,
        PAPER,
        model_cache,
        universe=universe,
        declared=expected.declared,
        strict=True,
        choices=[f"multiverse universe {universe.name}: {universe.describe()}"],
    )
    claim.verify()
