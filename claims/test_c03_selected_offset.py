"""C3 (Lemma 1, empirical): the RoPE head's selected offset (argmax of the mean attention, relative to
the query) equals the target -K in every seed x length cell, K in {1, 2, 3}.

Uses the C1 grid (same models, same evaluation; 4096 sequences per length at paper scale, seeds 0..7).

Checks (catalogue: 100% of cells): per K and L, the selected offset of every seed is -K (21 checks at
paper scale, 18 at quick: lengths up to 40), and the fraction of seed x length cells selecting -K is 1
(22 checks in all at paper scale, 19 at quick).

Negative control: the same grid with the APE heads in place of the RoPE heads (the grid's own APE
models): beyond the training range an APE head's peak stays at an absolute position, not at -K, so the
per-cell checks at L > 16 and the fraction must fail.
"""

from __future__ import annotations

import functools

import pytest

from lengthgen.report import figure_specs as figures
from lengthgen.experiments.phenomenon import PhenomenonResult

from claims.grid import GRID_SEEDS, phenomenon_result
from claims.robustness import grid_at
from claims.run import run_claim
from claims.spec import ClaimSpec
from claims.support import refute

PAPER_SEEDS = GRID_SEEDS  # the paper's 8 seeds for the phenomenon


def measure(scale, cache) -> PhenomenonResult:
    """The C1 grid at ``scale``'s seeds (memoised; shared with C1)."""
    return phenomenon_result(scale, cache)


def check(claim, result: PhenomenonResult) -> None:
    """The RoPE head's selected offset per K x L cell of every seed, and the fraction of cells at -K."""
    hits = []
    for offset in result.offsets:
        for length in result.lengths:
            selected = result.selected_offsets("rope", offset, length)
            hits += [float(s == -offset) for s in selected]
            claim.check(
                f"RoPE K={offset} L={length}: selected offset of every seed",
                [float(s) for s in selected],
                "==",
                float(-offset),
                reduce="all",
                paper=f"-{offset}",
                source="paper-number",
                source_note="the selected offset equals the target -K",
            )
    claim.check(
        "fraction of seed x length cells selecting -K",
        sum(hits) / len(hits),
        "==",
        1.0,
        paper="100%",
        source="paper-number",
        source_note="100% of cells",
    )


CLAIM = ClaimSpec(
    "C3", PAPER_SEEDS, measure, (check,), families=("one-layer",), at_setting=functools.partial(grid_at, "C3")
)


def profile_figure(result: PhenomenonResult) -> dict:
    """Mean attention at the longest length against the offset from the query, per encoding and K."""
    longest = max(result.lengths)
    return figures.lines(
        f"Mean attention at L = {longest} against offset from the query",
        "offset t - n",
        "mean attention",
        [
            figures.series(
                f"{'RoPE' if encoding == 'rope' else 'APE'} K={offset}",
                range(-(longest - 1), 1),
                per_seed=[list(run.at(longest).profile[0]) for run in result.runs[encoding, offset]],
                style=None if encoding == "rope" else "dashed",
            )
            for encoding in result.encodings
            for offset in result.offsets
        ],
    )


@pytest.mark.claim("C3")
def test_selected_offset_is_target_in_every_cell(scale, model_cache, claim):
    result = run_claim(CLAIM, claim, scale, model_cache)
    claim.figure(f"attention_profile_L{max(result.lengths)}", profile_figure(result))
    claim.verify()


@pytest.mark.control("C3")
def test_selected_offset_is_target_in_every_cell_control(scale, model_cache, control):
    refute(
        control,
        scale.describe(PAPER_SEEDS),
        "the C1 grid with its APE heads in place of the RoPE heads (same K, seeds and evaluation): beyond the "
        "training range an APE head peaks at an absolute position, not at -K, so the cells at L > 16 must fail",
        check,
        measure(scale, model_cache).replaced("rope", by="ape"),
    )
