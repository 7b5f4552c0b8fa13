"""The multiverse (issue 20; catalogue, "Open choices and their readings"): every claim whose models an open
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
``lengthgen.multiverse_cells.LEFT_OUT``.

A verdict that changes under a reading is a finding: declared in ``FINDINGS`` after the first cold run,
with the checks that fail (their measured values are each run's, in the verdict's reason), never a
loosened threshold or a retuned run. A claim's own declared non-reproduction at the paper's point (C8,
C10, C12/C13 d64, C19 ALiBi, C20, P1, P2) is carried to a reading only where it still fails exactly those
checks (``CARRIED``); where it passes under a reading, its declaration is kept non-strict
(``REPRODUCED_UNDER``), so the cell reads reproduced: the non-reproduction does not survive that reading (a
finding too). All three live in ``claims/multiverse_findings.py``, read by ``claims.multiverse.declaration``.
"""

from __future__ import annotations

import pytest

from lengthgen.multiverse_cells import split_column
from lengthgen.readings import universe as lookup
from lengthgen.scale import PAPER

from claims.multiverse import cells, declaration, extended_cells, spec
from claims.run import run_claim

CELLS = [
    pytest.param(u.name, column, id=f"{u.name}-{column}", marks=[pytest.mark.claim(split_column(column)[0]), mark])
    for group, mark in ((cells(), pytest.mark.multiverse), (extended_cells(), pytest.mark.multiverse_extended))
    for u, column in group
]


@pytest.mark.parametrize("reading, column", CELLS)
def test_multiverse(reading, column, model_cache, claim):
    universe = lookup(reading)
    declared, strict = declaration(reading, column)
    run_claim(
        spec(column),
        claim,
        PAPER,
        model_cache,
        reading=universe,
        declared=declared,
        strict=strict,
        choices=[f"multiverse universe {universe.name}: {universe.describe()}"],
    )
    claim.verify()
