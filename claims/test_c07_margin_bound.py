"""C7 (Fig. 4): the margin bound 1/(1 + (L-1) e^{-mu}) is a valid (but loose) lower bound on the target
weight a*(L).

Models: the RoPE heads of the C1 grid (no extra training), K in {2, 3}, seeds 0..4. The margin is exact:
a RoPE logit depends only on (query token, key token, offset), so the per-vocabulary table
T[a, b, delta] over delta in [-47, 0] gives mu = min over query token a and target token y of
T[a, y, -K] - max over every other (token b, offset delta) of T[a, b, delta] (at delta = 0 the key is
the query itself, b = a) (``lengthgen/probes/margin.py``). One mu per model, over the whole
evaluation range (the bound then holds at every L <= 48); it can be negative, and the bound still holds.
Beside it: the typical margin of the mean logit profile p(delta) = mean_{a,b} T[a, b, delta] and its
(not guaranteed) "bound".

Assert (catalogue): bound(L) <= a*(L) at every evaluation length and seed; the gap is reported.
"""

from __future__ import annotations

import pytest

from lengthgen import figures

from claims.mechanism import MECHANISM_OFFSETS, VALIDATION_SEEDS, dilution_result


@pytest.mark.claim("C7")
def test_margin_bound_is_a_valid_loose_lower_bound(scale, cache, claim):
    claim.set_scale(**scale.describe(VALIDATION_SEEDS))
    claim.choice(
        "mu over the whole offset range [-47, 0] at both scales (one length-invariant mu per model); "
        "worst case over every query token, target token, rival token and rival offset"
    )
    claim.choice("a*(L): mean attention on the target over the evaluation sequences (4096 at paper scale)")
    claim.choice("typical margin: from the mean logit profile over all token pairs (query token itself at delta 0)")
    result = dilution_result(scale, cache)
    for offset in MECHANISM_OFFSETS:
        rows = result.of(offset)
        for i, length in enumerate(result.lengths):
            claim.check(
                f"K={offset} L={length}: a*(L) - bound(L) of every seed",
                [r["gap"][i] for r in rows],
                ">=",
                0.0,
                reduce="all",
                paper="valid (bound <= a*)",
            )
        claim.measure(f"K={offset}: worst-case margin mu", [r["margin"]["worst"] for r in rows])
        claim.measure(f"K={offset}: typical margin (mean logit profile)", [r["margin"]["typical"] for r in rows])
        last = len(result.lengths) - 1
        claim.measure(
            f"K={offset}: bound / a* at L={result.lengths[last]} (looseness; 1 = tight)",
            [r["bound"][last] / r["target_weight"][last] for r in rows],
        )
        claim.measure(
            f"K={offset}: typical-margin estimate / a* at L={result.lengths[last]}",
            [r["typical_bound"][last] / r["target_weight"][last] for r in rows],
        )
        claim.figure(
            f"margin_bound_K{offset}",
            figures.lines(
                f"Target weight a*(L) and the margin bound, K = {offset}",
                "evaluation length L",
                "attention weight on the target",
                [
                    figures.series("a*(L) measured", result.lengths, per_seed=[r["target_weight"] for r in rows]),
                    figures.series(
                        "bound, worst-case mu", result.lengths, per_seed=[r["bound"] for r in rows], style="dashed"
                    ),
                    figures.series(
                        "estimate, typical mu",
                        result.lengths,
                        per_seed=[r["typical_bound"] for r in rows],
                        style="dotted",
                    ),
                ],
            ),
        )
    claim.verify()
