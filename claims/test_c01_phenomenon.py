"""C1 (Fig. 1, Table 1, intro): RoPE keeps near-perfect accuracy beyond the training range; APE
collapses to near chance at the first unseen length.

Protocol (the paper's): one-layer one-head model, d = 64, m = 20, trained on lengths uniform in [8, 16]
with Adam (lr 1e-3, batch 256, 4000 steps), K in {1, 2, 3}, seeds 0..7; accuracy over 4096 sequences at
L in {12, 16, 20, 24, 32, 40, 48}. Choices the paper leaves open: each training sequence draws its own
length and batches are right-aligned (query in the last column) with padding masked out of attention;
the APE table has 48 rows, N(0, 1)-initialised, and rows 16..47 are never trained.

Checks (catalogue, mean over seeds per K and L): RoPE >= 0.95 at every L <= 32 and >= 0.85 at L = 40,
48; APE >= 0.95 at L <= 16 and <= 0.15 at every L > 16 (42 checks at paper scale, 36 at quick: lengths up
to 40). Measured beside them: each encoding's accuracy beyond the training range per seed.

Negative control: the same grid with the APE heads in place of the RoPE heads (the grid's own APE
models, nothing trained): the RoPE checks at L > 16 must fail (an APE head is at chance there).
"""

from __future__ import annotations


import pytest

from lengthgen.report import figure_specs as figures
from lengthgen.experiments.common import column_means
from lengthgen.experiments.phenomenon import PhenomenonResult

from claims.grid import GRID_SEEDS, phenomenon_result
from claims.robustness import grid_at
from claims.run import run_claim
from claims.spec import ClaimSpec, Declared
from claims.support import refute

PAPER_SEEDS = GRID_SEEDS  # the paper's 8 seeds for the phenomenon
ROPE_NEAR = 0.95  # RoPE accuracy at L <= 32
ROPE_FAR = 0.85  # RoPE accuracy at L = 40, 48 (dilution, C6, erodes the far end)
APE_IN = 0.95  # APE accuracy inside the training range
APE_ABOVE_CHANCE = 0.10  # APE accuracy beyond it: at most chance 1/m + 0.10 (0.15 at the paper's m = 20)

CHOICES = [
    "training lengths drawn per sequence, uniform in [8, 16]; batches right-aligned, padding masked",
    "APE table of 48 rows (the longest evaluation length), N(0,1) init; rows 16..47 never trained",
    "evaluation sequences shared by all models (one generator per length)",
]


def measure(scale, cache) -> PhenomenonResult:
    """The C1 grid at ``scale``'s seeds (memoised; shared with C3 and the ``phenomenon`` fixture)."""
    return phenomenon_result(scale, cache)


def check(claim, result: PhenomenonResult) -> None:
    """Every accuracy check of the catalogue's row, and the accuracy beyond the range per encoding."""
    ape_out = round(result.chance + APE_ABOVE_CHANCE, 12)  # the catalogue's 0.15 at m = 20 (robustness: 1/m + 0.10)
    for offset in result.offsets:
        for length in result.lengths:
            rope = result.accuracy("rope", offset, length)
            threshold = ROPE_NEAR if length <= 32 else ROPE_FAR
            claim.check(
                f"RoPE K={offset} L={length}: accuracy",
                rope,
                ">=",
                threshold,
                paper="near 1.00",
                source="suite-reading",
                source_note=(
                    '"near-perfect" (near 1.00) read as >= 0.95 at L <= 32 and >= 0.85 at L = 40, 48 (dilution)'
                ),
                at={"encoding": "rope", "K": offset, "L": length},
            )
            ape = result.accuracy("ape", offset, length)
            if length <= result.max_len:
                claim.check(
                    f"APE K={offset} L={length}: accuracy",
                    ape,
                    ">=",
                    APE_IN,
                    paper="near 1.00",
                    source="suite-reading",
                    source_note='"near 1.00" in range read as >= 0.95',
                    at={"encoding": "ape", "K": offset, "L": length},
                )
            else:
                claim.check(
                    f"APE K={offset} L={length}: accuracy",
                    ape,
                    "<=",
                    ape_out,
                    paper="near 0.05",
                    source="suite-reading",
                    source_note='"near chance" read as <= 1/m + 0.10 (0.15 at m = 20)',
                    at={"encoding": "ape", "K": offset, "L": length},
                )
    out_of_range = [L for L in result.lengths if L > result.max_len]
    for encoding in result.encodings:
        claim.measure(
            f"{encoding} accuracy beyond the training range (mean over K, L > {result.max_len}, per seed)",
            column_means([result.accuracy(encoding, K, L) for K in result.offsets for L in out_of_range]),
        )


# The robustness map's findings: each was declared after the map's first cold run reported it as "failed" with
# exactly these failed checks (the verdict's reason adds this run's measured values); nothing else was changed
# after seeing the run.
FAR_OFFSETS = Declared(
    ("RoPE K=5 L=32: accuracy", "RoPE K=6 L=32: accuracy"),
    "for K = 5, 6 one seed of five (seed 1) retrieves only part of the sequences from L = 32 on (a plateau, the "
    "same at L = 40, 48, not a decay) while it still selects -K (C3 holds): the seed mean is under 0.95 at L = 32; "
    "the far end's 0.85 holds",
    at="offsets-far",
    kind="suite-reading",
    reason="K = 5, 6 at L = 32: seed means 0.944 and 0.930 (one seed at 0.73 / 0.65) against the 0.95 read as "
    '"near-perfect"; every cell selects -K',
)
NARROW = Declared(
    (
        "RoPE K=1 L=24: accuracy",
        "RoPE K=1 L=32: accuracy",
        "RoPE K=1 L=40: accuracy",
        "RoPE K=1 L=48: accuracy",
        "RoPE K=3 L=48: accuracy",
    ),
    "at d = 32 the RoPE head dilutes faster (C18: the dilution rate falls with width): K = 1 (near-parallel "
    "carriers, C20) loses accuracy from L = 24 on, K = 3 at L = 48, while every cell still selects -K (C3 holds)",
    at="width-32",
    kind="suite-reading",
    reason="d = 32: K = 1 seed means 0.84-0.63 at L = 24-48, K = 3 0.839 at L = 48, against the 0.95 / 0.85 read as "
    '"near-perfect"',
)
LARGE_VOCABULARY = Declared(
    ("RoPE K=1 L=32: accuracy", "RoPE K=1 L=48: accuracy"),
    "at m = 40 the K = 1 RoPE head dilutes below the thresholds at L = 32 and 48 (the paper point's K = 1 sits "
    "near them too, C20) while it still selects -1 in every cell (C3 holds)",
    at="vocab-40",
    kind="suite-reading",
    reason="m = 40: K = 1 seed means 0.941 at L = 32 and 0.793 at L = 48 against the 0.95 / 0.85 read as "
    '"near-perfect"',
)
LONGER_RANGE = Declared(
    ("RoPE K=2 L=32: accuracy", "RoPE K=3 L=32: accuracy"),
    "trained on [8, 24], two of eight seeds lose accuracy at L = 32 for K = 2, 3 (the seed mean is under 0.95 "
    "there) while every cell still selects -K (C3 holds); the far end's 0.85 holds",
    at="range-8-24",
    kind="suite-reading",
    reason='trained on [8, 24]: K = 2, 3 seed means 0.911 and 0.917 at L = 32 against the 0.95 read as "near-perfect"',
)
FRESH_SEEDS = Declared(
    ("RoPE K=1 L=48: accuracy", "RoPE K=2 L=32: accuracy"),
    "at seeds 100..107 the K = 1 head's dilution takes the seed mean under 0.85 at L = 48 (it sits near that "
    "threshold at seeds 0..7 too), and one K = 2 seed (105) jumps to offset -27 from L = 32 on (C3)",
    at="fresh-seeds",
    kind="suite-reading",
    reason="seeds 100..107: K = 1 seed mean 0.835 at L = 48 against 0.85, and K = 2 0.937 at L = 32 (seed 105 at "
    "0.50) against 0.95",
)

CLAIM = ClaimSpec(
    id="C1",
    quote=(
        "A one-layer head with rotary encoding (RoPE) keeps near-perfect accuracy well beyond the training-length "
        "range.",
        "The same head with a learned absolute encoding (APE) collapses to near-chance accuracy the moment it "
        "encounters an unseen length.",
    ),
    title="RoPE extrapolates, APE collapses (Fig. 1)",
    where="Fig. 1, Table 1, intro",
    statement=(
        "RoPE keeps near-perfect accuracy beyond the training range; APE collapses to near chance at the first "
        "unseen length"
    ),
    paper_value="8 seeds, K in {1,2,3}; RoPE near 1.00 out of range, APE near 0.05",
    assertion=(
        "for each K (mean over seeds): RoPE >= 0.95 at every L <= 32 and >= 0.85 at L = 40, 48 (the dilution of C6 "
        "erodes the far end); APE >= 0.95 at L <= 16 and <= 0.15 at every L > 16"
    ),
    paper_seeds=PAPER_SEEDS,
    measure=measure,
    checks=(check,),
    declared=(FAR_OFFSETS, NARROW, LARGE_VOCABULARY, LONGER_RANGE, FRESH_SEEDS),
    families=("one-layer",),
    reads_ape=True,
    at_setting=grid_at,
    settings=("offsets-far", "width-32", "width-128", "vocab-10", "vocab-40", "range-8-24", "fresh-seeds"),
    schedule=10,
)


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
        hlines=[(result.chance, "chance")],
        vlines=[(result.max_len, "longest training length")],
    )


@pytest.mark.claim("C1")
def test_rope_generalizes_ape_collapses(scale, model_cache, until_decided, claim):
    result = run_claim(CLAIM, claim, scale, model_cache, plan=until_decided)
    for text in CHOICES:
        claim.choice(text)
    for offset in result.offsets:
        claim.figure(f"accuracy_vs_length_K{offset}", accuracy_figure(result, offset))
    claim.verify()


@pytest.mark.control("C1")
def test_rope_generalizes_ape_collapses_control(scale, model_cache, control):
    refute(
        control,
        scale.describe(PAPER_SEEDS),
        "the C1 grid with its APE heads in place of the RoPE heads (same K, seeds and evaluation): an APE head "
        "is at chance beyond the training range, so the RoPE accuracy checks at L > 16 must fail",
        check,
        measure(scale, model_cache).replaced("rope", by="ape"),
    )
