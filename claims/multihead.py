"""The content-task experiment shared by C21 and C22 (memoised per process; models through the cache).

RoPE heads with H in {1, 2, 4} on the content task (K1 = 2, K2 = 3), seeds 0..4 at the scale's steps
(quick: seeds 0..2 and 500 steps), evaluated at the scale's lengths plus L = 48 (C22 reads the peak there;
the quick lengths otherwise stop at 40).

Quick steps: the content models train in three ensemble passes (one per H, the seeds stacked) whose cost
is mostly per-step overhead, so the quick budget is set by steps, not seeds. At 500 steps (seeds 0..2)
H = 1 and H = 2 solve the task in distribution and the peak at L = 48 falls as H grows: both claims show at
that scale (the recorded quick run has the values).
"""

from __future__ import annotations

import dataclasses

from lengthgen.experiments.content import HEADS, OFFSETS, ContentResult, run_content
from lengthgen.scale import Scale

from claims.memo import memo

PAPER_SEEDS = 5  # the paper gives no count for this paragraph; its validation studies use 5
QUICK_SEEDS = 3  # quick budget
QUICK_STEPS = 500  # quick budget: half the quick scale's 1000 (see the module docstring)
PEAK_LENGTH = 48  # the paper's length for the peak attention of C22

CHOICES = [
    "content rule: query token in the lower half of the vocabulary (0..9) -> target at offset -K1 = -2, "
    "upper half (10..19) -> -K2 = -3 (K1, K2 >= 2: the regime of the mechanism claims)",
    "RoPE (base 1e4), total width d = 64 split into H heads of width 64/H; otherwise the paper's protocol",
    "seeds 0..4 (the paper gives no count here; its validation studies use 5); quick: seeds 0..2, 500 steps",
]


def run_scale(scale: Scale) -> Scale:
    """The scale this experiment runs at: the paper's, or the quick scale with fewer seeds and steps
    (idempotent)."""
    if scale.name != "quick":
        return scale
    return dataclasses.replace(scale, max_seeds=QUICK_SEEDS, steps=min(scale.steps, QUICK_STEPS))


def measure(scale: Scale, cache) -> ContentResult:
    """The content-task heads at the scale's seeds (``scale.seed_list``: explicit seeds honoured), steps and
    lengths (plus L = 48)."""
    scale = run_scale(scale)
    lengths = tuple(sorted(set(scale.lengths) | {PEAK_LENGTH}))
    return memo(
        cache.runtime,
        ("content",),
        scale,
        lambda: run_content(scale.context(PAPER_SEEDS, lengths), cache, HEADS, OFFSETS),
    )
