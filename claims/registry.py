"""Every claim and prediction, as the one declaration its module exports (``CLAIM``, a ``claims.spec.ClaimSpec``):
the list the robustness map, the multiverse and the tests read (``CLAIMS[claim_id]``). C12 and C13 share
``claims/two_layer.py``, C21 and C22 ``claims/multihead.py``; C18 reads C17's models and seeds.

To add a claim: write its module with its ``CLAIM`` (ARCHITECTURE.md, "How to add a claim") and list it here.
"""

from __future__ import annotations

import importlib

from claims.spec import ClaimSpec

MODULE_NAMES = (  # one per claim, C1..C22 then P1..P6: the modules under claims/
    "test_c01_phenomenon",
    "test_c02_equivariance",
    "test_c03_selected_offset",
    "test_c04_carrier",
    "test_c05_carrier_profile",
    "test_c06_dilution",
    "test_c07_margin_bound",
    "test_c08_pinning",
    "test_c09_ape_weight_decay",
    "test_c10_ape_fixes",
    "test_c11_linear_attention",
    "test_c12_two_layer_accuracy",
    "test_c13_two_layer_heads",
    "test_c14_rotary_base",
    "test_c15_kernel",
    "test_c16_dynamics",
    "test_c17_carrier_sweep",
    "test_c18_width_dilution",
    "test_c19_biases",
    "test_c20_k1_carrier",
    "test_c21_content",
    "test_c22_head_dilution",
    "test_p1_far_selection",
    "test_p2_dilution_out_of_sample",
    "test_p3_ape_far",
    "test_p4_position_interpolation",
    "test_p5_nope",
    "test_p6_logit_scaling",
)
MODULES = tuple(importlib.import_module(f"claims.{name}") for name in MODULE_NAMES)
CLAIMS: dict[str, ClaimSpec] = {module.CLAIM.id: module.CLAIM for module in MODULES}
if len(CLAIMS) != len(MODULES):
    raise ValueError(f"two claim modules declare one claim id: {[m.CLAIM.id for m in MODULES]}")


def claim(claim_id: str) -> ClaimSpec:
    """The declaration of ``claim_id``; ValueError naming it (and the known ones) otherwise."""
    try:
        return CLAIMS[claim_id]
    except KeyError:
        raise ValueError(f"unknown claim {claim_id!r} (known: {', '.join(CLAIMS)})") from None
