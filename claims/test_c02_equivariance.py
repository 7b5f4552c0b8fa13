"""C2 (Lemma 1): the RoPE logit depends on positions only through the offset t - n.

Property test on random (untrained) weights of the plain reference forward: shifting every absolute
position by c changes no logit beyond float tolerance, for many shifts c, widths d, head counts and
bases (hypothesis draws them; the largest gap seen is recorded). No training, so the quick variant runs
fewer examples of the same property.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lengthgen.experiments.equivariance import RELATIVE_TOLERANCE, equivariance_gap

EXAMPLES = {"quick": 25, "paper": 200}


@pytest.mark.claim("C2")
def test_rope_logits_depend_only_on_offsets(scale, claim):
    claim.set_scale(name=scale.name, seeds=0, steps=0, examples=EXAMPLES[scale.name])
    gaps: list[float] = []

    @settings(max_examples=EXAMPLES[scale.name], deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(
        shift=st.integers(min_value=-2000, max_value=10_000),
        d_half=st.integers(min_value=1, max_value=64),
        heads=st.sampled_from([1, 2]),
        base=st.sampled_from([1e2, 1e3, 1e4, 1e5, 1e6]),
        seed=st.integers(min_value=0, max_value=10_000),
    )
    def prop(shift, d_half, heads, base, seed):
        d = 2 * d_half * heads
        gap = equivariance_gap(d, base, shift, seed, heads=heads)
        gaps.append(gap)
        assert gap <= RELATIVE_TOLERANCE, f"shift {shift}, d {d}, base {base}: relative logit change {gap:.2e}"

    prop()
    claim.check("largest relative logit change over all examples", max(gaps), "<=", RELATIVE_TOLERANCE, paper="0 (exact)")
    claim.measure("relative logit change per example", gaps)
    claim.verify()
