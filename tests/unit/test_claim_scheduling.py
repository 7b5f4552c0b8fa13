"""The claims' xdist scheduler (``claims/scheduling.py``): C12 and C13 of one width share a scope, nothing else
does, and a cold run under ``-n 2`` hands each scope to one worker."""

from __future__ import annotations

import pytest

from claims.scheduling import together_scope

TWO_LAYER = [
    "claims/test_c12_two_layer_accuracy.py::test_two_layer_rope_generalizes_ape_degrades[paper-d64]",
    "claims/test_c12_two_layer_accuracy.py::test_two_layer_control[paper-d64]",
    "claims/test_c13_two_layer_heads.py::test_two_layer_rope_head_equivariant_ape_head_pins[paper-d64]",
    "claims/test_c13_two_layer_heads.py::test_two_layer_heads_control[paper-d64]",
]


def test_two_layer_tests_of_one_width_share_a_scope():
    assert len({together_scope(n) for n in TWO_LAYER}) == 1
    other_width = [n.replace("d64", "d96") for n in TWO_LAYER]
    other_scale = [n.replace("paper", "quick") for n in TWO_LAYER]
    assert len({together_scope(n) for n in TWO_LAYER + other_width + other_scale}) == 3


@pytest.mark.parametrize(
    "setting",
    [
        "test_multiverse[init=torch-{}-d64]",
        "test_multiverse[lengths=per-batch+init=flax-{}]",
        "test_robustness[fresh-seeds-{}]",
    ],
)
def test_cells_of_one_setting_share_a_scope(setting):
    c12, c13 = (f"claims/test_x.py::{setting.format(c)}" for c in ("C12", "C13"))
    assert together_scope(c12) == together_scope(c13)
    other_setting = c12.replace("[", "[other+")
    assert together_scope(c12) != together_scope(other_setting)


@pytest.mark.parametrize(
    "nodeid",
    [
        "claims/test_c01_phenomenon.py::test_rope_generalizes_ape_collapses[paper]",
        "claims/test_multiverse.py::test_multiverse[init=torch-C1]",
        "claims/test_multiverse.py::test_multiverse[init=torch-C14]",
        "claims/test_multiverse.py::test_multiverse[init=torch-C121]",
        "tests/unit/test_config.py::test_something",
    ],
)
def test_every_other_test_is_its_own_scope(nodeid):
    assert together_scope(nodeid) == nodeid
