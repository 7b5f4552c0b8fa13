"""C13 (Sec. 5.2): in the two-layer transformer of C12, the RoPE model's retrieving head stays
offset-equivariant beyond the training range while APE's pins, and the RoPE head carries a strong
carrier (paper: 0.98 against a 0.02 untrained baseline).

Models: those of C12 (``lengthgen/experiments/two_layer.py``), no extra training, in C12's two width
variants with their own verdicts (test ids ``d64`` / ``d96``).

- Retrieving head: per model, the (layer, head) with the most mean attention at offset -K over the
  in-distribution queries K <= t < 16 (length-16 sequences).
- Selected offset at length L: argmax of that head's mean attention from the last query (t = L-1) over
  keys 0..L-1, minus (L-1): the one-layer probe (ii), with the length-L sequence's last position as query.
- Carrier fraction (the paper's (iii)): ||mean_b k_b||^2 / mean_b ||k_b||^2 over the m = 20 vocabulary
  entries, where the head's projected key of token b is its pre-rotation key W_K^h LN_l(x_t) averaged
  over the in-distribution positions t holding token b (queries alike). In layer 1 of the RoPE model
  x_t = E[s_t], so k_b = W_K^h LN_1(E[b]) exactly (the retrieving head was in layer 1 in every seed
  measured); in layer 2 the conditioning on the position's own token keeps the part of the key the
  vocabulary entry decides. Baseline: the same probe on the seed's untrained initialisation.

Assert (catalogue): the RoPE retrieving head's selected offset is -K at every evaluation length, every
seed; APE's is not -K at any length > 16, every seed; the RoPE head's key and query carrier fractions
are >= 0.8 (mean over seeds) and >= 10x the untrained baseline (seed means). The APE head's peak
absolute positions beyond the range are reported (pinning inside the training range).

The variants:

- d = 64, the first width tried. In the development run some RoPE seeds had their retrieving head jump
  to offset -21 at L >= 24 (the 8-frequency kernel nearly repeats 19 positions from the target), and
  d = 96 was chosen *after* seeing that. In this suite's runs (paper scale, 300 steps) a seed's head
  selects -21 at L = 24, 32, 40 and heads select -40 at L = 48 (38 positions back); at quick scale (100
  steps, L <= 40) a seed's head selects -21 at L = 24, 32, 40. Declared not reproduced through exactly
  those lengths' RoPE selected-offset checks (``FIRST_WIDTH_JUMPS``); the carrier and APE checks hold.
- d = 96, chosen after seeing d = 64 fail: -2 in every cell; APE never -K beyond the range; the key
  carrier well above 0.8 and well over 10x its baseline. At d = 64 the carrier holds as well.

The recorded run (docs/findings.md, the report) has the selected offsets, fractions, ratios and intervals.

The "10x" ratio is of two seed means, so its interval is a seed bootstrap. The untrained baseline is
near 0.05 here, not the paper's 0.02: for i.i.d. zero-mean projections of m = 20 tokens the definition's
expectation is 1/m = 0.05 (C4 finds the same for the one-layer head). The "10x" check uses the measured baseline.

Negative control (``test_two_layer_heads_control``, per variant): the same checks with the APE
transformer's retrieving head in place of RoPE's (and RoPE's in APE's). APE's head pins beyond the range
and carries little carrier, RoPE's selects -K: the checks must fail.
"""

from __future__ import annotations

import pytest

from claims.run import run_claim
from claims.costs import LONGER_COST
from lengthgen.catalogue import Stated
from claims.spec import ClaimSpec, Declared, LeftOut
from claims.support import refute
from claims.two_layer import (
    FIRST_WIDTH,
    PAPER_SEEDS,
    SWAP_WHY,
    WIDTHS,
    WIDTH_IDS,
    choices,
    measure,
    run_scale,
    swapped,
    width_variants,
)
from lengthgen.report import figure_specs as figures
from lengthgen.experiments.common import mean
from lengthgen.experiments.two_layer import TwoLayerResult

MIN_CARRIER = 0.8  # catalogue
BASELINE_FACTOR = 10.0  # catalogue: >= 10x the untrained baseline
PAPER_BASELINE = 0.02

FIRST_WIDTH_WHY = (
    f"at d = {FIRST_WIDTH} (8 rotary frequencies per head) the rotary kernel nearly repeats 19 "
    "positions from the target, and beyond the training range the RoPE retrieving head of some seeds "
    "selects an offset 19 or 38 positions before -K"
)
EXTRA_CHOICES = [
    "retrieving head: argmax over (layer, head) of the mean attention at offset -K, over the queries "
    "K <= t < Lmax = 16",
    "carrier: token-conditioned mean pre-rotation keys/queries W^h LN_l(x_t) over positions 0..15 "
    "(exactly W^h LN_1(E[b]) for a layer-1 RoPE head); '10x' compares seed means",
]


def selection_check(length: int) -> str:
    return f"RoPE L={length}: retrieving head's selected offset, every seed"


# d = 64: the evaluation lengths at which some RoPE seed's retrieving head leaves -K (measured, per scale)
FIRST_WIDTH_JUMPS = tuple(
    Declared(
        tuple(selection_check(L) for L in lengths),
        FIRST_WIDTH_WHY,
        scales=(name,),
        gist="a d = 64 head jumps to -21",
        kind="structural",
        reason=f"d = 64 (8 rotary frequencies per head): the kernel nearly repeats 19 positions back and {seen}; the "
        "paper states no width, and the unique kernel maximum its account assumes fails there",
    )
    for name, lengths, seen in (
        ("paper", (24, 32, 40, 48), "1 of 5 seeds selects -21 at L = 24-40, 3 of 5 select -40 at L = 48"),
        ("quick", (24, 32, 40), "a seed selects -21 at L = 24-40"),
    )
)


def check(claim, result: TwoLayerResult) -> None:
    """Every check and measure of C13 on a two-layer result (a pure function of it)."""
    K = result.offset
    for encoding in result.encodings:
        claim.measure(
            f"{encoding}: retrieving head's attention at offset -K in distribution",
            result.head_target_attention(encoding),
        )
    for length in result.lengths:
        claim.check(
            selection_check(length),
            [float(s) for s in result.selected_offsets("rope", length)],
            "==",
            float(-K),
            reduce="all",
            paper=f"-{K} (equivariant)",
            source="suite-reading",
            source_note='"the RoPE head remains offset-equivariant out of distribution" read as -K at every length, '
            "every seed",
            at={"encoding": "rope", "L": length},
        )
    for length in result.beyond_lengths:
        claim.check(
            f"APE L={length}: retrieving head's selected offset is not -K, every seed",
            [float(s) for s in result.selected_offsets("ape", length)],
            "!=",
            float(-K),
            reduce="all",
            paper="pins",
            source="suite-reading",
            source_note='"the APE head pins" read as not -K at any length beyond the range, every seed',
            at={"encoding": "ape", "L": length},
        )
    positions = [[run.eval.peak_position(L, *run.head) for L in result.beyond_lengths] for run in result.runs["ape"]]
    inside = [sum(p < result.max_len for p in row) / len(row) for row in positions]
    claim.measure("APE: fraction of lengths > Lmax whose peak lies inside the training range (per seed)", inside)
    for side in ("key", "query"):
        trained = result.carriers("rope", side)
        baseline = result.carriers("rope", side, baseline=True)
        claim.check(
            f"RoPE retrieving head: {side} carrier fraction (mean over seeds)",
            trained,
            ">=",
            MIN_CARRIER,
            paper="0.98",
            source="suite-reading",
            source_note="the paper's 0.98 read as >= 0.8",
            at={"encoding": "rope"},
        )
        claim.check(
            f"RoPE retrieving head: {side} carrier fraction / untrained baseline (seed means)",
            mean(trained) / mean(baseline),
            ">=",
            BASELINE_FACTOR,
            paper="0.98 / 0.02 = 49",
            source="suite-reading",
            source_note="the paper's 0.98 against 0.02 (49x) read as >= 10x the baseline",
            bootstrap=(list(zip(trained, baseline)), carrier_ratio),
            at={"encoding": "rope"},
        )
        claim.measure(f"RoPE retrieving head: untrained {side} carrier fraction (paper {PAPER_BASELINE})", baseline)
        claim.measure(f"APE retrieving head: {side} carrier fraction (no threshold)", result.carriers("ape", side))


def carrier_ratio(items) -> float:
    """Seed-mean trained carrier over seed-mean baseline, from (trained, baseline) pairs per seed."""
    return mean([t for t, _ in items]) / mean([b for _, b in items])


CLAIM = ClaimSpec(
    id="C13",
    quote=(
        "the RoPE head remains offset-equivariant out of distribution while the APE head pins, and it carries a "
        "strong target carrier (0.98 versus a 0.02 baseline).",
    ),
    title="its RoPE head stays at -K, APE's pins, carrier",
    where="Sec. 5.2",
    statement=(
        "in that transformer, the RoPE head stays offset-equivariant out of distribution while the APE head pins; "
        "the RoPE head carries a strong carrier"
    ),
    paper_value="carrier 0.98 vs 0.02 baseline",
    assertion=(
        "the retrieving RoPE head's selected offset is -K at every eval length; APE's is not; carrier fraction >= "
        "0.8 and >= 10x baseline"
    ),
    stated=(
        Stated(
            "two-layer RoPE retrieving head, carrier",
            0.98,
            0.98,
            2,
            "contributions (5)",
            measures=("RoPE retrieving head: key carrier fraction (mean over seeds)",),
            why="the key carrier fraction of the retrieving head, at the suite's width d = 96",
        ),
        Stated(
            "its baseline",
            0.02,
            0.02,
            2,
            "contributions (5)",
            measures=("RoPE retrieving head: untrained key carrier fraction (paper 0.02)",),
            why="the untrained model's fraction, at the suite's width d = 96",
            baseline_width=96,
        ),
    ),
    paper_seeds=PAPER_SEEDS,
    measure=measure,
    checks=(check,),
    run_scale=run_scale,
    families=("two-layer",),
    reads_ape=True,
    variants=width_variants(FIRST_WIDTH_JUMPS),
    settings=("fresh-seeds",),
    left_out=(LeftOut("two-layer-steps=900", LONGER_COST),),
    schedule=120,
)


def record_notes(claim, result: TwoLayerResult) -> None:
    for encoding in result.encodings:
        claim.note(f"{encoding} retrieving head per seed (layer, head; 0-indexed): {result.heads(encoding)}")
    claim.note(
        "RoPE retrieving head's selected offset per seed at L = "
        + ",".join(map(str, result.lengths))
        + ": "
        + "; ".join(
            f"seed {run.seed}: {[run.eval.selected_offset(L, *run.head) for L in result.lengths]}"
            for run in result.runs["rope"]
        )
    )
    positions = {
        run.seed: [run.eval.peak_position(L, *run.head) for L in result.beyond_lengths] for run in result.runs["ape"]
    }
    claim.note(
        "APE retrieving head's peak absolute position at L = "
        + ",".join(map(str, result.beyond_lengths))
        + ": "
        + "; ".join(f"seed {seed}: {p}" for seed, p in positions.items())
    )


def record_figures(claim, result: TwoLayerResult) -> None:
    K = result.offset
    for encoding in result.encodings:
        run = result.runs[encoding][0]
        longest = max(result.lengths)
        claim.figure(
            f"two_layer_{encoding}_head_profiles_seed{run.seed}",
            figures.heatmap(
                f"{'RoPE' if encoding == 'rope' else 'APE'} retrieving head (layer {run.head[0]}, head {run.head[1]}), "
                f"seed {run.seed}: last query's mean attention by offset",
                "offset from the query",
                "evaluation length L",
                list(range(-(longest - 1), 1)),
                list(result.lengths),
                [[0.0] * (longest - L) + run.eval.profile(L, *run.head).tolist() for L in result.lengths],
                note=f"target offset -{K}; offsets below -(L-1) do not exist at length L (shown as 0)",
            ),
        )
    claim.figure(
        "two_layer_carrier",
        figures.bars(
            "RoPE retrieving head: carrier fraction, trained vs untrained",
            "carrier fraction",
            ["key", "query"],
            [
                {"label": "trained", "per_seed": [result.carriers("rope", side) for side in ("key", "query")]},
                {"label": "untrained", "per_seed": [result.carriers("rope", side, True) for side in ("key", "query")]},
            ],
            hlines=[(MIN_CARRIER, "0.8")],
        ),
    )


@pytest.mark.claim("C13")
@pytest.mark.parametrize("width", WIDTHS, ids=WIDTH_IDS)
def test_two_layer_rope_head_equivariant_ape_head_pins(scale, model_cache, until_decided, claim, width):
    result = run_claim(CLAIM.variant(f"d{width}"), claim, scale, model_cache, plan=until_decided)
    for text in choices(width) + EXTRA_CHOICES:
        claim.choice(text)
    record_notes(claim, result)
    record_figures(claim, result)
    claim.verify()


@pytest.mark.control("C13")
@pytest.mark.parametrize("width", WIDTHS, ids=WIDTH_IDS)
def test_two_layer_heads_control(scale, model_cache, control, width):
    refute(
        control, run_scale(scale).describe(PAPER_SEEDS), SWAP_WHY, check, swapped(measure(scale, model_cache, width))
    )
