"""The multiverse (issue 20; catalogue, "Open choices and their readings"): every claim whose models an open
choice touches, run again under each other reading of that choice (one at a time) and under every
alternative at once (``all-alternatives``), with its assertions unchanged.

One test per (reading, claim) cell, ``test_multiverse[<reading>-<claim>]`` (C12/C13 per width:
``...-C12`` is d = 96, ``...-C12-d64`` the first width tried), marked ``multiverse`` (run only when the
``-m`` expression names multiverse: ``pytest claims -m multiverse -n auto``) and ``claim("Cn")``; its
record (``reading`` set) goes to the report's multiverse grid, not to the claims table. The cell calls
the claim module's own ``measure(scale, cache)`` inside ``under(universe)`` (the readings change the
specs the experiments build) and its own check functions, at paper scale and the catalogue's seeds.
``--lengthgen-seeds`` does not apply here. Which cells run by default, and which are extended (marked
``multiverse_extended``, left out of the default run for their cost: ``-m multiverse_extended``):
``lengthgen.experiments.multiverse.LEFT_OUT``.

A verdict that changes under a reading is a finding: declared in ``FINDINGS`` after the first cold run,
with the checks that fail (their measured values are each run's, in the verdict's reason), never a
loosened threshold or a retuned run. A claim's own declared non-reproduction at the paper's point (C8,
C10, C12/C13 d64, C19 ALiBi, C20, P1, P2) is carried to a reading only where it still fails exactly those
checks (``CARRIED``); where it passes under a reading, its declaration is kept non-strict
(``REPRODUCED_UNDER``), so the cell reads reproduced: the non-reproduction does not survive that reading (a
finding too). All three live in ``claims/multiverse_findings.py``.
"""

from __future__ import annotations

import pytest

from lengthgen.experiments.multiverse import under, universe as lookup

from claims.multiverse import cell, cells, extended_cells, non_strict, own_declaration, split_column

from claims.multiverse_findings import CARRIED, FINDINGS, REPRODUCED_UNDER  # declared after the first cold run

CELLS = [
    pytest.param(u.name, column, id=f"{u.name}-{column}", marks=[pytest.mark.claim(split_column(column)[0]), mark])
    for group, mark in ((cells(), pytest.mark.multiverse), (extended_cells(), pytest.mark.multiverse_extended))
    for u, column in group
]


@pytest.mark.parametrize("reading, column", CELLS)
def test_multiverse(reading, column, model_cache, claim):
    universe = lookup(reading)
    plan = cell(column)
    claim_id = split_column(column)[0]
    scale = plan.scale
    claim.record.reading = universe.name
    claim.set_scale(**scale.describe(len(non_strict(scale, claim_id).seeds)), reading=universe.name)
    declared = FINDINGS.get((reading, column))
    if declared is None and (reading, column) in CARRIED:
        declared = own_declaration(column)
    if declared is not None:
        claim.expect_not_reproduced(scale, declared[0], declared[1])
    elif (reading, column) in REPRODUCED_UNDER:
        own = own_declaration(column)
        claim.expect_not_reproduced(non_strict(scale, claim_id), own[0],
                                    f"{own[1]} (at the paper's point; under {reading} every check passed in the "
                                    f"first cold run: the non-reproduction does not survive this reading)")
    claim.choice(f"multiverse universe {universe.name}: {universe.describe()}")
    with under(universe):
        result = plan.measure(scale, model_cache)
        for check in plan.checks:
            check(claim, result)
    claim.verify()
