"""The two-layer transformer experiment shared by C12 and C13, memoised per process (models come from
the cache, one lock per model, so under xdist the two claims train them once)."""

from __future__ import annotations

from claims.support import memo
from lengthgen.scale import Scale


def two_layer_result(scale: Scale, cache):
    """RoPE and APE transformers on the shift task at the scale's seeds, steps and evaluation."""
    from lengthgen.experiments.two_layer import run_two_layer, scale_settings

    seeds, steps = scale_settings(scale)
    return memo(
        ("two-layer", scale),
        lambda: run_two_layer(seeds, steps, evaluation=scale.evaluation(), cache=cache),
    )


def describe(scale: Scale) -> dict:
    """The record's scale block: this experiment's own seeds and steps."""
    from lengthgen.experiments.two_layer import PAPER_SEEDS, scale_settings

    seeds, steps = scale_settings(scale)
    return {**scale.describe(PAPER_SEEDS), "seeds": len(seeds), "seed_list": list(seeds), "steps": steps}


def choices() -> list[str]:
    """The choices the paper leaves open, as this experiment makes them (from its constants)."""
    from lengthgen.experiments.two_layer import OFFSET, PAPER_SEEDS, STEPS, WIDTH
    from lengthgen.transformer_train import PAPER_TRAIN

    head = WIDTH // 4
    return [
        f"model: causal pre-LayerNorm transformer, 2 layers x 4 heads, d = {WIDTH} (heads of {head} = {head // 2} "
        "rotary frequencies), MLP 4d with GELU, no biases, untied readout, nanoGPT init (N(0, 0.02^2), residual "
        "projections 0.02/sqrt(4)); RoPE (base 1e4) on every layer's q/k, or a learned 48-row APE table at the input",
        f"task: full-sequence shift, K = {OFFSET}: every position t >= {OFFSET} predicts s[t-{OFFSET}]; training "
        "lengths uniform in [8, 16] per sequence, left-aligned, right padding masked from the loss (causal: it changes "
        "nothing)",
        f"training: Adam lr {PAPER_TRAIN.lr:g}, no weight decay, batch {PAPER_TRAIN.batch} sequences, "
        f"{STEPS['paper']} steps (quick: {STEPS['quick']}); seeds 0..{PAPER_SEEDS - 1} at both scales",
        "evaluation: length L = the first L tokens of the shared evaluation sequences of the longest length (causal: "
        "identical to length-L sequences); 'beyond the training range' = positions t >= 16 (0-indexed, never trained)",
        "d = 64 (8 rotary frequencies per head) was tried first: 2 of 5 RoPE seeds had their retrieving head jump "
        "to offset -21 at L >= 24 (the 8-frequency kernel nearly repeats 19 positions from the target), "
        "beyond-range accuracy 0.65-0.98; d = 96 is the smallest width tried that shows the finding",
    ]
