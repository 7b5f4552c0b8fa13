"""C1 (Fig. 1, Table 1, intro): RoPE keeps near-perfect accuracy beyond the training range; APE
collapses to near chance at the first unseen length.

Protocol (the paper's): one-layer one-head model, d = 64, m = 20, trained on lengths uniform in [8, 16]
with Adam (lr 1e-3, batch 256, 4000 steps), K in {1, 2, 3}, seeds 0..7; accuracy over 4096 sequences at
L in {12, 16, 20, 24, 32, 40, 48}. Choices the paper leaves open: each training sequence draws its own
length and batches are right-aligned (query in the last column) with padding masked out of attention;
the APE table has 48 rows, N(0, 1)-initialised, and rows 16..47 are never trained.

Assert (catalogue, mean over seeds per K): RoPE >= 0.95 at every L <= 32 and >= 0.85 at L = 40, 48;
APE >= 0.95 at L <= 16 and <= 0.15 at every L > 16.
"""

from __future__ import annotations

import pytest

from lengthgen import figures
from lengthgen.experiments.common import column_means
from lengthgen.experiments.phenomenon import PhenomenonResult

ROPE_NEAR = 0.95  # RoPE accuracy at L <= 32
ROPE_FAR = 0.85  # RoPE accuracy at L = 40, 48 (dilution, C6, erodes the far end)
APE_IN = 0.95  # APE accuracy inside the training range
APE_OUT = 0.15  # APE accuracy beyond it (chance is 0.05)

CHOICES = [
    "training lengths drawn per sequence, uniform in [8, 16]; batches right-aligned, padding masked",
    "APE table of 48 rows (the longest evaluation length), N(0,1) init; rows 16..47 never trained",
    "evaluation sequences shared by all models (one generator per length)",
]


def accuracy_figure(result: PhenomenonResult, offset: int) -> dict:
    """Fig. 1 for one K: accuracy against length, RoPE and APE, a band over seeds."""
    return figures.lines(
        f"Accuracy against length, K = {offset}",
        "evaluation length L",
        "accuracy",
        [
            figures.series(
                encoding.upper() if encoding != "rope" else "RoPE",
                result.lengths,
                per_seed=[[run.at(L).accuracy for L in result.lengths] for run in result.runs[encoding, offset]],
            )
            for encoding in result.encodings
        ],
        hlines=[(0.05, "chance")],
        vlines=[(result.max_len, "longest training length")],
    )


@pytest.mark.claim("C1")
def test_rope_generalizes_ape_collapses(scale, phenomenon: PhenomenonResult, claim):
    claim.set_scale(**scale.describe(8))
    for text in CHOICES:
        claim.choice(text)
    for offset in phenomenon.offsets:
        for length in phenomenon.lengths:
            rope = phenomenon.accuracy("rope", offset, length)
            threshold = ROPE_NEAR if length <= 32 else ROPE_FAR
            claim.check(f"RoPE K={offset} L={length}: accuracy", rope, ">=", threshold, paper="near 1.00")
            ape = phenomenon.accuracy("ape", offset, length)
            if length <= phenomenon.max_len:
                claim.check(f"APE K={offset} L={length}: accuracy", ape, ">=", APE_IN, paper="near 1.00")
            else:
                claim.check(f"APE K={offset} L={length}: accuracy", ape, "<=", APE_OUT, paper="near 0.05")
    out_of_range = [L for L in phenomenon.lengths if L > phenomenon.max_len]
    for encoding in phenomenon.encodings:
        claim.measure(
            f"{encoding} accuracy beyond the training range (mean over K, L > 16, per seed)",
            column_means([phenomenon.accuracy(encoding, K, L) for K in phenomenon.offsets for L in out_of_range]),
        )
    for offset in phenomenon.offsets:
        claim.figure(f"accuracy_vs_length_K{offset}", accuracy_figure(phenomenon, offset))
    claim.verify()
