"""The paper's claims catalogue, the single source for ids, where each claim stands in the paper, its
statement, the paper's value and the check the suite makes at paper scale. ``docs/catalogue.md`` is rendered
from it (``lengthgen docs``; ``tests/test_docs_rendered.py`` fails when the page differs)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Claim:
    id: str  # "C1" .. "C22", or a prediction "P1" .. "P6"
    where: str  # place in the paper
    statement: str  # what the paper claims
    paper_value: str  # what the paper reports
    assertion: str  # the check the suite makes at paper scale


CATALOGUE: dict[str, Claim] = {
    "C1": Claim(
        "C1",
        "Fig. 1, Table 1, intro",
        (
            "RoPE keeps near-perfect accuracy beyond the training range; APE collapses to near chance at the first "
            "unseen length"
        ),
        "8 seeds, K in {1,2,3}; RoPE near 1.00 out of range, APE near 0.05",
        (
            "for each K (mean over seeds): RoPE >= 0.95 at every L <= 32 and >= 0.85 at L = 40, 48 (the dilution of "
            "C6 erodes the far end); APE >= 0.95 at L <= 16 and <= 0.15 at every L > 16"
        ),
    ),
    "C2": Claim(
        "C2",
        "Lemma 1",
        "RoPE logit depends on positions only through the offset t - n (exact equivariance)",
        "exact",
        (
            "property test on random (untrained) weights: shifting every position by c changes no logit beyond float "
            "tolerance, for many c, d, bases"
        ),
    ),
    "C3": Claim(
        "C3",
        "Lemma 1, empirical",
        "the selected offset equals the target -K in every seed x length cell",
        "100% of cells",
        "100% of cells, K in {1,2,3}, all seeds and eval lengths",
    ),
    "C4": Claim(
        "C4",
        "Lemma 2, Sec. 5",
        "trained queries and keys share a dominant carrier direction, pre-rotated to the target offset",
        "key carrier fraction 0.80 vs baseline 0.016; cos(m_Q, R_{-K} m_K) = 0.83; fractions 0.72-0.86 across settings",
        (
            "K in {2,3}, 5 seeds: mean key and query carrier fractions in [0.65, 0.95] and >= 10x the untrained "
            "baseline; cos(m_Q, R_{-K} m_K) >= 0.6"
        ),
    ),
    "C5": Claim(
        "C5",
        "Lemma 2, (iv)",
        "the carrier-only profile phi_c(delta) peaks at the target offset",
        "peak at -K",
        "argmax over delta in [-(48-1), 0] of phi_c equals -K for every seed, K in {2,3}",
    ),
    "C6": Claim(
        "C6",
        "Corollary 2",
        "the target's attention weight decays by dilution, inverse-linearly in L",
        "1/a* linear in L-1",
        (
            "K in {2,3}: on the seed-mean a*(L), slope c > 0, 1/a* non-decreasing in L (within 0.01) and R^2 of the "
            "fit >= 0.85 over the eval lengths (the paper gives no R^2; a single seed measured about 0.90-0.93); "
            "report per-seed R^2"
        ),
    ),
    "C7": Claim(
        "C7",
        "Fig. 4",
        "the margin bound 1/(1+(L-1)e^{-mu}) is a valid (but loose) lower bound on the target weight",
        "valid, loose",
        (
            "with mu the worst-case margin over vocabulary tokens (target logit minus the largest logit at any other "
            "offset in range), the bound <= a*(L) at every eval length and seed; report the gap, and the typical "
            "(mean-profile) margin beside it"
        ),
    ),
    "C8": Claim(
        "C8",
        "Prop. 2",
        "the APE head pins to a fixed absolute position inside the training range",
        "pinned, in range",
        (
            "for every L > 16: the APE head's peak lies at an absolute position < Lmax, its offset is not -K; report "
            "the positions chosen across lengths"
        ),
    ),
    "C9": Claim(
        "C9",
        "Fig. 4",
        "APE failure survives weight decay",
        "lambda in {0, 1e-4, 1e-2}",
        "APE accuracy at every L > 16 <= 0.15 for each lambda",
    ),
    "C10": Claim(
        "C10",
        "Fig. 4",
        "inference-time fixes for APE (table interpolation, clamp-to-last, index rescaling) leave accuracy at chance",
        "chance",
        "each fix: accuracy at every L > 16 <= 0.15",
    ),
    "C11": Claim(
        "C11",
        "Sec. 7",
        "trained linear attention (no softmax) fits in distribution but does not extrapolate, and has no carrier",
        "0.96 in distribution, 0.07 at L=48 (chance 0.05), softmax 1.00; cos ~0.1, key carrier fraction 0.07 vs 0.80",
        (
            "linear: accuracy >= 0.85 at L <= 16 and <= 0.2 at L = 48; cos(m_Q, R_{-K} m_K) <= 0.3; key carrier "
            "fraction <= 0.2"
        ),
    ),
    "C12": Claim(
        "C12",
        "Sec. 5.2",
        (
            "in a 2-layer, 4-head transformer (MLP, LayerNorm) on a full-sequence shift task, RoPE generalizes and "
            "APE degrades out of range"
        ),
        "RoPE generalizes, APE degrades",
        "RoPE accuracy on positions beyond 16 clearly above APE's (state the margin); APE near chance there",
    ),
    "C13": Claim(
        "C13",
        "Sec. 5.2",
        (
            "in that transformer, the RoPE head stays offset-equivariant out of distribution while the APE head pins; "
            "the RoPE head carries a strong carrier"
        ),
        "carrier 0.98 vs 0.02 baseline",
        (
            "the retrieving RoPE head's selected offset is -K at every eval length; APE's is not; carrier fraction >= "
            "0.8 and >= 10x baseline"
        ),
    ),
    "C14": Claim(
        "C14",
        "Fig. 4",
        "robust to the rotary base",
        "OOD accuracy 1.00 / 1.00 / 0.97 for base 1e3 / 1e4 / 1e5, selecting -K throughout",
        "each base: selected offset -K in every cell; OOD accuracy >= 0.9",
    ),
    "C15": Claim(
        "C15",
        "Fig. 4, Lemma 2",
        "the kernel g(s) = sum_j cos(s theta_j) has a unique integer maximum at s = 0",
        "max_{s>=4} g(s)/g(0) ~ 0.67-0.79",
        "exact computation, d = 64, bases 1e3/1e4/1e5: unique maximum at 0; ratios within 0.01 of 0.67 / 0.75 / 0.79",
    ),
    "C16": Claim(
        "C16",
        "Fig. 4",
        "the carrier and the rank concentration of W = W_Q^T W_K co-emerge within a few hundred steps, then plateau",
        "within a few hundred steps",
        "along training, both reach 90% of their final value before step 1000 and change little after",
    ),
    "C17": Claim(
        "C17",
        "Fig. 4",
        "the carrier fraction holds across widths, vocabulary sizes, length ranges and softmax temperatures",
        "0.72-0.86",
        (
            "d in {32,64,128}, m in {10,20,40}, two or more length ranges, three temperatures: carrier fraction in "
            "[0.6, 0.95]"
        ),
    ),
    "C18": Claim(
        "C18",
        "Fig. 4",
        "the dilution rate c falls with width",
        "falls",
        "c(d=32) > c(d=64) > c(d=128), mean over seeds",
    ),
    "C19": Claim(
        "C19",
        "Sec. 5.1",
        "the account is not RoPE-specific: ALiBi / T5 relative bias / rotary compared",
        "relative schemes length-invariant",
        (
            "for T5 bias and ALiBi as for RoPE: the selected offset does not change with length beyond the training "
            "range; report in- and out-of-range accuracy of each"
        ),
    ),
    "C20": Claim(
        "C20",
        "K=1 paragraph",
        "for K = 1 the carriers are near-parallel (kernel centred at 0) and suppressing the self-logit suffices",
        "centred at 0 (the paragraph states no accuracy)",
        (
            "for K = 1, 5 seeds: phi_c peaks at delta = 0 in every seed; accuracy read as C1 reads the same K = 1 "
            "models (mean over seeds >= 0.95 at every L <= 32, >= 0.85 at L = 40, 48); the first reading (>= 0.95 at "
            "every length), stricter than C1's on the same models, is reported beside it"
        ),
    ),
    "C21": Claim(
        "C21",
        "multi-head paragraph",
        (
            "content-conditioned task (the query token sets which of two offsets is the target): one head solves both "
            "offsets by query-conditioned rotation; with two heads it is solved at 1.00"
        ),
        "1.00 with two heads; each head's W top singular-value energy 0.39-0.57",
        "H=1 and H=2 solve it in distribution (>= 0.95); report top singular-value energy per head",
    ),
    "C22": Claim(
        "C22",
        "multi-head paragraph",
        "splitting width across heads raises dilution",
        "peak attention at L=48: 0.69 at H=1, 0.30 at H=4",
        "peak attention at L=48 falls as H grows from 1 to 4",
    ),
}


# The catalogue's "Predictions beyond the paper (P1-P6)": what the account predicts and the paper does not
# test. ``where`` is the result a prediction follows from; the paper reports no value for it. Kept apart
# from CATALOGUE so that "N of 22 catalogue claims" stays about the paper's own claims.
NOT_IN_PAPER = "not tested by the paper (a prediction of its account)"
PREDICTIONS: dict[str, Claim] = {
    "P1": Claim(
        "P1",
        "Lemma 1",
        "the selected offset stays -K far beyond the evaluation range",
        NOT_IN_PAPER,
        (
            "C1 grid RoPE models, K in {1,2,3}, 8 seeds: selected offset -K in every seed x length cell at L in {64, "
            "96, 128}"
        ),
    ),
    "P2": Claim(
        "P2",
        "Corollary 2",
        "the dilution law fitted in range predicts a* out of sample",
        NOT_IN_PAPER,
        (
            "K in {2,3}, 5 seeds: fit 1/a* = a + c(L-1) on the seed-mean a*(L) over the paper's lengths (as C6); at L "
            "in {64, 96, 128} the measured seed-mean a* lies within 0.05 of 1/(a + c(L-1)); report the error per L "
            "and per seed"
        ),
    ),
    "P3": Claim(
        "P3",
        "Prop. 2",
        "APE stays pinned and at chance at any longer length",
        NOT_IN_PAPER,
        (
            "C1 grid APE models (table rows past Lmax keep their initial values): seed-mean accuracy <= 0.15 at L in "
            "{64, 96, 128}; the peak lies at an absolute position < Lmax in >= 90% of seed x K x L cells"
        ),
    ),
    "P4": Claim(
        "P4",
        "Lemma 1, Lemma 2",
        (
            "position interpolation at inference (positions scaled by Lmax/L, Chen et al. 2023) moves the selected "
            "token offset to -K*L/Lmax and breaks retrieval"
        ),
        NOT_IN_PAPER,
        (
            "C1 grid RoPE models, K in {2,3} (the paper states its pre-rotated carrier for K >= 2 only; report K = 1 "
            "beside it without a verdict), L in {32, 48}, positions of the query and keys multiplied by 16/L: "
            "selected offset equals -K*L/16 in >= 90% of seed x K x L cells; seed-mean accuracy <= 0.15"
        ),
    ),
    "P5": Claim(
        "P5",
        "Sec. 2 (positional selection)",
        "without a positional encoding (NoPE) a one-layer head cannot select an offset, even in distribution",
        NOT_IN_PAPER,
        "NoPE head trained as C1, K in {1,2,3}, 5 seeds: seed-mean accuracy <= 0.35 at every L, in range included",
    ),
    "P6": Claim(
        "P6",
        "Corollary 2",
        (
            "dilution comes from the softmax normaliser growing with L, so scaling the logits by log(L)/log(Lmax) for "
            "L > Lmax raises the target's weight without moving the selection"
        ),
        NOT_IN_PAPER,
        (
            "C1 grid RoPE models, L in {24, 32, 48, 64, 96, 128}, over the K x L cells where the unscaled head "
            "selects -K (P1): the scaled head selects -K in every such cell; seed-mean a*(L) with the scaling > "
            "without in every such cell; accuracy at the longest such L with the scaling >= without for every K"
        ),
    ),
}


# The catalogue's "Robustness settings": each claim run again away from the paper's operating point, with
# its assertion unchanged. This table is the catalogue's words (the setting, what it changes, the claims it
# applies to); how the suite realises each setting (the spec fields it replaces, its offsets and seeds) is
# ``lengthgen.experiments.robustness.SETTINGS``, built on it. The report draws the map from this table alone.
@dataclass(frozen=True)
class RobustnessSetting:
    name: str  # e.g. "width-32": the map's column and the test id's prefix
    what: str  # what changes, in the catalogue's words
    claims: tuple[str, ...]  # the claims it applies to (the map's rows)


# fresh-seeds "applies to every claim that trains models": every claim whose test reads trained models,
# i.e. all but C2 (random untrained weights) and C15 (an exact computation of the rotary kernel).
MODEL_CLAIMS = (
    "C1",
    "C3",
    "C4",
    "C5",
    "C6",
    "C7",
    "C8",
    "C9",
    "C10",
    "C11",
    "C12",
    "C13",
    "C14",
    "C16",
    "C17",
    "C18",
    "C19",
    "C20",
    "C21",
    "C22",
)
TITLES: dict[str, str] = {  # each claim and prediction in a few words: the README's verdict table
    "C1": "RoPE extrapolates, APE collapses (Fig. 1)",
    "C2": "RoPE logits depend only on t - n (Lemma 1)",
    "C3": "selected offset = -K in every cell",
    "C4": "target-aligned carrier",
    "C5": "phi_c peaks at -K",
    "C6": "1/a* linear in L - 1",
    "C7": "margin bound valid but loose",
    "C8": "APE pins inside the training range",
    "C9": "APE failure survives weight decay",
    "C10": "interpolation, clamp, rescaling stay at chance",
    "C11": "linear attention fits, fails far, no carrier",
    "C12": "2-layer transformer: RoPE generalizes, APE degrades",
    "C13": "its RoPE head stays at -K, APE's pins, carrier",
    "C14": "robust to the rotary base",
    "C15": "g(s) maximum unique at 0",
    "C16": "carrier and rank co-emerge, then plateau",
    "C17": "carrier fraction holds across settings",
    "C18": "dilution rate c falls with width",
    "C19": "relative biases: selection length-invariant, -K as RoPE",
    "C20": "K = 1: carriers centred at 0",
    "C21": "content task solved with H = 1, 2",
    "C22": "peak attention at L = 48 falls with H",
    "P1": "selected offset stays -K far beyond range",
    "P2": "the dilution law predicts a* out of sample",
    "P3": "APE stays pinned and at chance at any length",
    "P4": "position interpolation moves the offset to -K L/16",
    "P5": "NoPE cannot select an offset",
    "P6": "log-length logit scaling raises a*, keeps -K",
}
ROBUSTNESS: tuple[RobustnessSetting, ...] = (  # the map's columns, in the catalogue's order
    RobustnessSetting("offsets-far", "K in {4, 5, 6} (5 seeds)", ("C1", "C3", "C4", "C5", "C6", "C8")),
    RobustnessSetting("width-32", "d = 32, K in {1, 2, 3}", ("C1", "C3", "C4", "C5", "C8")),
    RobustnessSetting("width-128", "d = 128, K in {1, 2, 3}", ("C1", "C3", "C4", "C5", "C8")),
    RobustnessSetting("vocab-10", "m = 10 (chance 1/m)", ("C1", "C3", "C8")),
    RobustnessSetting("vocab-40", "m = 40 (chance 1/m)", ("C1", "C3", "C8")),
    RobustnessSetting(
        "range-8-24", "training lengths [8, 24], the paper's evaluation lengths (in range: L <= 24)", ("C1", "C3", "C8")
    ),
    RobustnessSetting("fresh-seeds", "seeds 100..107 at the paper's point", MODEL_CLAIMS),
)


def is_prediction(claim_id: str) -> bool:
    """A prediction beyond the paper (P1-P6), not one of the paper's claims."""
    return claim_id in PREDICTIONS


def claim(claim_id: str) -> Claim:
    if claim_id in PREDICTIONS:
        return PREDICTIONS[claim_id]
    if claim_id not in CATALOGUE:
        raise ValueError(f"unknown claim id {claim_id!r} (known: C1..C22, P1..P6)")
    return CATALOGUE[claim_id]
