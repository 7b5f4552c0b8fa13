"""The robustness map (catalogue, "Robustness settings"): every claim run again at each robustness setting its
spec names (``ClaimSpec.settings``), with its assertion unchanged.

One test per (setting, claim) cell, ``test_robustness[<setting>-<claim>]``, marked ``robustness`` (run only
when the ``-m`` expression names robustness: ``pytest claims -m robustness -n auto``) and ``claim(<id>)``: its
record (``setting`` set) goes to the report's map, not to the claims table. The cell runs the claim's own
``CLAIM`` through ``claims.run.run_claim``: its checks on a result measured at the setting (the spec's
``at_setting``, ``claims/robustness.py``; at fresh seeds its own measure), always at paper scale: 4000 steps,
4096 evaluation sequences per length, the paper's evaluation lengths, and the catalogue's seeds (offsets-far 5
seeds; the spec settings the claim's own count; fresh-seeds the first n of 100..107). ``--lengthgen-seeds`` does
not apply here: each setting fixes its seeds.

Readings (catalogue): "L <= 16" / "L > 16" are L <= Lmax / L > Lmax of the setting's training range (the
checks read Lmax from the result); APE's "near chance" 0.15 is 1/m + 0.10 (0.15 wherever m = 20).

A claim that fails at a setting is a finding: declared in the claim's module (``Declared(..., at=<setting>)``)
with the checks that fail (their measured values are this run's, in the verdict's reason), never a loosened
threshold. The claims' own structural non-reproductions at the paper's point (``Declared(..., carried=True)``)
are carried to fresh-seeds unchanged (:func:`declaration`). What the map costs is in docs/speed.md.
"""

from __future__ import annotations

import pytest

from lengthgen.experiments.robustness import SETTINGS, Setting, setting as lookup
from lengthgen.scale import PAPER

from claims.registry import CLAIMS
from claims.run import run_claim
from claims.spec import ClaimSpec, Declared

CELLS = [
    pytest.param(s.name, c, id=f"{s.name}-{c}", marks=[pytest.mark.claim(c), pytest.mark.robustness])
    for s in SETTINGS
    for c, spec in CLAIMS.items()
    if s.name in spec.settings
]


def declaration(setting: Setting, spec: ClaimSpec) -> Declared | None:
    """The cell's declared non-reproduction: the claim's finding at the setting (``Declared(..., at=...)``), or
    at fresh seeds the claim's own structural one (``ClaimSpec.carried``)."""
    found = spec.declaration("paper", at=setting.name)
    if found is not None:
        return found
    return spec.carried if setting.seeds is not None else None


@pytest.mark.parametrize("setting_name, claim_id", CELLS)
def test_robustness(setting_name, claim_id, model_cache, claim):
    setting, spec = lookup(setting_name), CLAIMS[claim_id]
    # strict (an unexpected pass fails) except at fresh seeds, as for --lengthgen-seeds
    run_claim(
        spec,
        claim,
        PAPER,
        model_cache,
        setting=setting,
        declared=declaration(setting, spec),
        strict=setting.seeds is None,
        choices=[
            f"robustness setting {setting.name}: {setting.what}",
            f"read at this setting: Lmax = {setting.max_len}, chance 1/m = {setting.chance:g}, APE near "
            f"chance <= {setting.near_chance:g} (1/m + 0.10)",
        ],
    )
    claim.verify()
