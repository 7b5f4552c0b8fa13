"""The claims' preconditions hold at the paper's point (claims/preconditions.py): what the paper reports of the
models its claims read (the heads fit the task in range) is true of the suite's own models, so a precondition
never changes a verdict there. Their negative control is the multiverse's ``init=gpt2`` cells, declared ruled
out (claims/multiverse_declared.json; tests/integration/test_multiverse_declared.py checks the declaration, the
cells the outcome): under it the heads do not fit.
"""

from __future__ import annotations

import pytest

from lengthgen.records import ClaimRecorder
from lengthgen.scale import PAPER

from claims import preconditions
from claims.two_layer import FIRST_WIDTH, WIDTH, measure as two_layer


@pytest.mark.parametrize("name", [preconditions.ONE_LAYER, preconditions.CONTENT])
def test_the_paper_point_meets_its_one_layer_preconditions(name, model_cache):
    recorder = ClaimRecorder("admissibility")
    failed = preconditions.record(recorder, preconditions.PRECONDITIONS[name], PAPER, model_cache)
    assert recorder.record.preconditions and not failed, f"{name} fails at the paper's point: {failed}"


@pytest.mark.parametrize("width", [WIDTH, FIRST_WIDTH], ids=lambda w: f"d{w}")
def test_the_paper_point_meets_its_two_layer_precondition(width, model_cache):
    recorder = ClaimRecorder("admissibility")
    result = two_layer(PAPER, model_cache, width=width)
    failed = preconditions.record(
        recorder, preconditions.PRECONDITIONS[preconditions.TWO_LAYER], PAPER, model_cache, result
    )
    assert recorder.record.preconditions and not failed, f"two-layer fit fails at d = {width}: {failed}"
