"""C16 (Fig. 4): the carrier and the rank concentration of W = W_Q^T W_K co-emerge within a few hundred
steps, then plateau.

No retraining per checkpoint: the training engine records every 50 steps of each run the query and key
carrier fractions of the projected vocabulary and the top singular-value energy sigma_1^2 / sum sigma_i^2
of W, and caches them with the model; the RoPE models of the C1 grid (K in {2, 3}, seeds 0-4, 4000 steps)
are read from the cache. Per model and quantity: t90 = the first recorded step at which the value reaches
90% of its final (step-4000) value; dev = max |value - final| / final over the records from step 1000 on.

Assert (catalogue: "both reach 90% of their final value before step 1000 and change little after"), for
every seed: t90 < 1000 and dev <= 0.10 ("change little" read as staying within the same 10% band; the
catalogue gives no number). Quick (1000-step runs): the same with step 500 in place of 1000.
"""

from __future__ import annotations

import pytest

from claims.support import memo
from lengthgen import figures
from lengthgen.experiments.dynamics import EMERGENCE_FRACTION, QUANTITIES, run_dynamics

PAPER_SEEDS = 5  # seeds 0-4, as the carrier claims (C4)
OFFSETS = (2, 3)  # the mechanism's offsets
PLATEAU_TOLERANCE = 0.10  # "changes little": within 10% of the final value (the same band as the 90% criterion)
LABELS = {"key_carrier": "key carrier fraction", "query_carrier": "query carrier fraction",
          "rank_energy": "top singular-value energy of W"}


@pytest.mark.claim("C16")
def test_carrier_and_rank_coemerge_then_plateau(scale, cache, claim):
    claim.set_scale(**scale.describe(PAPER_SEEDS))
    result = memo(("dynamics", scale),
                  lambda: run_dynamics(scale.seed_list(PAPER_SEEDS), scale.steps, OFFSETS, cache))
    claim.choice("trajectory recorded every 50 steps of the same run (no retraining); C1 grid RoPE models")
    claim.choice(f"final value = the last record (step {result.steps}); t90 = first record >= 90% of it")
    claim.choice(f"'change little after' = every record from step {result.emerge_by} on within "
                 f"{PLATEAU_TOLERANCE:.0%} of the final value")
    if result.emerge_by != 1000:
        claim.choice(f"quick: {result.steps}-step runs, so step {result.emerge_by} (half the run) replaces 1000")
    for offset in result.offsets:
        for quantity in QUANTITIES:
            claim.check(f"K={offset} {LABELS[quantity]}: step reaching {EMERGENCE_FRACTION:.0%} of final, every seed",
                        result.stat(offset, quantity, "emergence_step"), "<", float(result.emerge_by),
                        reduce="all", paper="within a few hundred steps")
            claim.check(f"K={offset} {LABELS[quantity]}: max relative change after step {result.emerge_by}, every seed",
                        result.stat(offset, quantity, "plateau_deviation"), "<=", PLATEAU_TOLERANCE,
                        reduce="all", paper="plateau")
            claim.measure(f"K={offset} {LABELS[quantity]}: final value", result.stat(offset, quantity, "final"))
    for offset in result.offsets:
        rows = result.of(offset)
        claim.figure(
            f"dynamics_K{offset}",
            figures.lines(
                f"Carrier fractions and rank concentration along training, K = {offset}",
                "training step",
                "value",
                [figures.series(LABELS[q], rows[0]["step"], per_seed=[r[q] for r in rows]) for q in QUANTITIES],
                vlines=[(result.emerge_by, "emergence deadline")],
                note="band: min to max over seeds",
            ),
        )
    claim.verify()
