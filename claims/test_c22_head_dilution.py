"""C22 (multi-head paragraph): splitting width across heads raises dilution: peak attention at L = 48 falls
from 0.69 at H = 1 to 0.30 at H = 4, as each head carries fewer rotary frequencies.

Models: the C21 content-task RoPE heads (d = 64 split into H in {1, 2, 4} heads of width 64/H; seeds 0..4,
quick 0..2 at 500 steps), evaluated at L = 48 on 4096 sequences (quick: 1024).

Peak attention (a choice; the paper does not define it for several heads and two modes): for each head
and each mode (the sequences whose query asks for K1, and those asking for K2), the maximum over
positions of that head's mean attention over the mode's sequences; the model's peak is the mean of these
over the two modes and the H heads, a typical head's concentration. Conditioning on the mode is needed
because the unconditioned mean profile splits its mass between -K1 and -K2 and so cannot exceed about
half of either (the paper's 0.69 at H = 1 is above that). Reported beside it: the retrieving head's peak
(per mode, the head with the most attention on that mode's target) and the mean attention on the target.

Assert (catalogue: "falls as H grows from 1 to 4"), on the means over seeds: peak(H=1) > peak(H=2) and
peak(H=2) > peak(H=4) at L = 48 (the checks' per-seed values pair the models by seed index).

Measured at paper scale (5 seeds, 4096 sequences): peak attention at L = 48 of 0.66 (per seed 0.58-0.72) at
H = 1, 0.39 (0.35-0.43) at H = 2 and 0.31 (0.29-0.32) at H = 4, against the paper's 0.69 and 0.30; every
seed falls at both steps. Beyond the dilution of the target, the H = 4 heads (width 16, eight rotary
frequencies) lose the target altogether at L = 48: their mode-conditioned peaks move to offsets -40 / -41
(the two targets shifted back by the same 38 positions), and accuracy there is 0.18 (1.00 in range).
"""

from __future__ import annotations

import pytest

from lengthgen import figures

from claims.multihead import CHOICES, PAPER_SEEDS, PEAK_LENGTH, content_result, seeds_scale

PAPER_PEAK = {1: "0.69", 2: "not given", 4: "0.30"}


@pytest.mark.claim("C22")
def test_peak_attention_falls_as_heads_split_the_width(scale, cache, claim):
    claim.set_scale(**seeds_scale(scale).describe(PAPER_SEEDS))
    for text in CHOICES:
        claim.choice(text)
    claim.choice("peak attention = mean over the two modes and the H heads of each head's mode-conditioned peak "
                 "(max over positions of its mean attention over the sequences of one mode)")
    claim.choice("'falls as H grows from 1 to 4' = strictly decreasing over H = 1, 2, 4 on the seed means")
    result = content_result(scale, cache)
    peaks = {heads: result.peak(heads, PEAK_LENGTH) for heads in result.heads}
    for few, many in zip(result.heads, result.heads[1:]):
        claim.check(
            f"L={PEAK_LENGTH}: peak attention at H={few} minus at H={many}",
            [a - b for a, b in zip(peaks[few], peaks[many])],
            ">",
            0.0,
            paper=f"{PAPER_PEAK[few]} at H={few}, {PAPER_PEAK[many]} at H={many}",
        )
    for heads in result.heads:
        claim.measure(f"H={heads} L={PEAK_LENGTH}: peak attention (paper {PAPER_PEAK[heads]})", peaks[heads])
        claim.measure(f"H={heads} L={PEAK_LENGTH}: retrieving head's peak attention",
                      result.retrieving_peak(heads, PEAK_LENGTH))
        claim.measure(f"H={heads} L={PEAK_LENGTH}: mean attention on the target (over modes and heads)",
                      result.head_target_weights(heads, PEAK_LENGTH).mean((1, 2)).tolist())
        claim.measure(f"H={heads} L={PEAK_LENGTH}: accuracy", result.accuracy(heads, PEAK_LENGTH))
    claim.figure(
        "peak_attention_vs_length",
        figures.lines(
            "Peak attention (mode-conditioned, mean over heads) against length",
            "evaluation length L",
            "peak attention",
            [
                figures.series(f"H={heads}", result.lengths,
                               per_seed=[list(seed) for seed in zip(*(result.peak(heads, L) for L in result.lengths))])
                for heads in result.heads
            ],
            vlines=[(result.max_len, "longest training length"), (PEAK_LENGTH, f"L = {PEAK_LENGTH}")],
        ),
    )
    claim.figure(
        "peak_attention_at_48",
        figures.bars(
            f"Peak attention at L = {PEAK_LENGTH} against the number of heads",
            "peak attention",
            [f"H={heads}" for heads in result.heads],
            [{"label": "measured", "per_seed": [peaks[heads] for heads in result.heads]}],
            hlines=[(0.69, "paper, H=1"), (0.30, "paper, H=4")],
        ),
    )
    claim.verify()
