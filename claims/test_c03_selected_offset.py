"""C3 (Lemma 1, empirical): the RoPE head's selected offset (argmax of the mean attention, relative to
the query) equals the target -K in every seed x length cell, K in {1, 2, 3}.

Uses the C1 grid (same models, same evaluation; 4096 sequences per length at paper scale).
Assert (catalogue): 100% of cells.
"""

from __future__ import annotations

import pytest

from lengthgen import figures
from lengthgen.experiments.phenomenon import PhenomenonResult


@pytest.mark.claim("C3")
def test_selected_offset_is_target_in_every_cell(scale, phenomenon: PhenomenonResult, claim):
    claim.set_scale(**scale.describe(8))
    hits = []
    for offset in phenomenon.offsets:
        for length in phenomenon.lengths:
            selected = phenomenon.selected_offsets("rope", offset, length)
            hits += [float(s == -offset) for s in selected]
            claim.check(
                f"RoPE K={offset} L={length}: selected offset of every seed",
                [float(s) for s in selected],
                "==",
                float(-offset),
                reduce="all",
                paper=f"-{offset}",
            )
    claim.check("fraction of seed x length cells selecting -K", sum(hits) / len(hits), "==", 1.0, paper="100%")
    longest = max(phenomenon.lengths)
    claim.figure(
        f"attention_profile_L{longest}",
        figures.lines(
            f"Mean attention at L = {longest} against offset from the query",
            "offset t - n",
            "mean attention",
            [
                figures.series(
                    f"{'RoPE' if encoding == 'rope' else 'APE'} K={offset}",
                    range(-(longest - 1), 1),
                    per_seed=[list(run.at(longest).profile[0]) for run in phenomenon.runs[encoding, offset]],
                    style=None if encoding == "rope" else "dashed",
                )
                for encoding in phenomenon.encodings
                for offset in phenomenon.offsets
            ],
        ),
    )
    claim.verify()
