"""C5 (Lemma 2 (iv)): the carrier-only profile phi_c(delta) = m_Q^T R_delta m_K peaks at the target -K.

Models: the RoPE heads of the C1 grid (no extra training), K in {2, 3}, seeds 0..4. m_Q, m_K are the
vocabulary means of W_Q x and W_K x; R_delta the RoPE rotation by offset delta = t - n, so phi_c is the
logit the mean query token gives the mean key token at offset delta (without the 1/sqrt(d) scale, which
does not move the argmax). Weights only: the profile is the same at every length, so the quick variant
differs only in the models' training steps (1000).

Assert (catalogue): argmax over delta in [-(48-1), 0] of phi_c equals -K for every seed, K in {2, 3}.
"""

from __future__ import annotations

import pytest

from claims.mechanism import GRID_MODELS, MECHANISM_OFFSETS, VALIDATION_SEEDS, carrier_result, profile_figure


@pytest.mark.claim("C5")
def test_carrier_only_profile_peaks_at_the_target(scale, cache, claim):
    claim.set_scale(**scale.describe(VALIDATION_SEEDS))
    claim.choice("phi_c without the 1/sqrt(d) logit scale (argmax unchanged); delta over [-47, 0] at both scales")
    claim.choice(GRID_MODELS)
    result = carrier_result(scale, cache)
    for offset in MECHANISM_OFFSETS:
        peaks = result.values(offset, "trained", "peak")
        claim.check(
            f"K={offset}: argmax of phi_c of every seed", peaks, "==", float(-offset), reduce="all", paper=f"-{offset}"
        )
        claim.measure(f"K={offset}: argmax of phi_c (trained)", peaks, headline=True)
        claim.measure(
            f"K={offset}: argmax of phi_c of the untrained baseline", result.values(offset, "baseline", "peak")
        )
    claim.figure("carrier_only_profile", profile_figure(result, MECHANISM_OFFSETS, "Carrier-only profile phi_c"))
    claim.verify()
