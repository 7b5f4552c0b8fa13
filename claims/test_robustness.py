"""The robustness map (issue 14; catalogue, "Robustness settings"): every claim the catalogue's robustness
table lists, run again at each of its settings with its assertion unchanged.

One test per (setting, claim) cell, ``test_robustness[<setting>-<claim>]``, marked ``robustness`` (run only
when the ``-m`` expression names robustness: ``pytest claims -m robustness -n auto``) and
``claim("Cn")``: its record (``setting`` set) goes to the report's map, not to the claims table. The cell
runs the claim's own ``CLAIM`` through ``claims.run.run_claim``: its checks on a result measured at the
setting (the spec's ``at_setting``, ``claims/robustness.py``; at fresh seeds its own measure), always at paper
scale: 4000 steps, 4096 evaluation sequences per length, the paper's evaluation lengths, and the catalogue's
seeds (offsets-far 5 seeds; the spec settings the claim's own count, 8 for C1/C3/C8 and 5 for C4/C5;
fresh-seeds the first n of 100..107). ``--lengthgen-seeds`` does not apply here: each setting fixes its seeds.

Readings (catalogue): "L <= 16" / "L > 16" are L <= Lmax / L > Lmax of the setting's training range (the
checks read Lmax from the result); APE's "near chance" 0.15 is 1/m + 0.10 (C1's ``APE_OUT`` at the
setting's m; 0.15 wherever m = 20).

Cost (no reduction was needed: every cell keeps the paper's 4096 sequences and 4000 steps): 513 models, none
shared with the paper's point: offsets-far 30 (RoPE and APE, K in {4, 5, 6}, 5 seeds), each of width-32,
width-128, vocab-10, vocab-40 and range-8-24 48 (RoPE and APE, K in {1, 2, 3}, 8 seeds; C4, C5 read 5 of
the RoPE seeds), fresh-seeds 243 (the C1 grid at seeds 100..107: 48, read also by C3-C8, C10, C16, C20;
C9's weight decays 30; C11's linear heads 10; C12/C13's transformers 10; C14's bases 20; C17/C18's sweep
80; C19's biases 30; C21/C22's content heads 15). Measured: cold 31 min 45 s wall with -n 2 on this
2-core machine while other jobs ran (load 4-7), 21 min 16 s of CPU in all (so about 11-13 min on 2 free
cores); warm 12 s (0 models trained, 1037 from the cache).

A claim that fails at a setting is a finding: declared in ``FINDINGS`` with the checks that fail (their
measured values are this run's, in the verdict's reason), never a loosened threshold. The claims' own
structural non-reproductions at the paper's point (C10, C19, C20: ``Declared(..., carried=True)`` in their
specs) are carried to fresh-seeds unchanged (:func:`declaration`).
"""

from __future__ import annotations

import pytest

from lengthgen.experiments.robustness import Setting, cells, setting as lookup
from lengthgen.scale import PAPER

from claims.registry import CLAIMS
from claims.run import run_claim
from claims.spec import ClaimSpec, Declared

# (setting, claim) -> (checks expected to fail, why): the map's findings. Each was declared AFTER the first
# cold run (2026-12-01, 513 models) reported it as "failed" with exactly these failed checks; the verdict's
# reason adds this run's measured values. Nothing else was changed after seeing the run.
FLAT_APE = (
    "in a few seed x length cells the APE head's mean attention peaks on an untrained row (absolute "
    "position >= Lmax, whose embedding keeps its random initial value), with a low peak and accuracy near "
    "chance, as in the paper point's one cell (K=3 seed 4 L=48)"
)
FINDINGS: dict[tuple[str, str], tuple[tuple[str, ...], str]] = {
    ("offsets-far", "C1"): (
        ("RoPE K=5 L=32: accuracy", "RoPE K=6 L=32: accuracy"),
        "for K = 5, 6 one seed of five (seed 1) retrieves only part of the sequences from L = 32 on (a plateau, the "
        "same at L = 40, 48, not a decay) while it still selects -K (C3 holds): the seed mean is under 0.95 at L = 32; "
        "the far end's 0.85 holds",
    ),
    ("width-32", "C1"): (
        (
            "RoPE K=1 L=24: accuracy",
            "RoPE K=1 L=32: accuracy",
            "RoPE K=1 L=40: accuracy",
            "RoPE K=1 L=48: accuracy",
            "RoPE K=3 L=48: accuracy",
        ),
        "at d = 32 the RoPE head dilutes faster (C18: the dilution rate falls with width): K = 1 (near-parallel "
        "carriers, C20) loses accuracy from L = 24 on, K = 3 at L = 48, while every cell still selects -K (C3 holds)",
    ),
    ("width-32", "C8"): (
        (
            "APE K=1 L=20: peak absolute position of every seed",
            "APE K=1 L=20: selected offset of every seed is not -K",
            "APE K=1 L=40: peak absolute position of every seed",
            "APE K=3 L=48: peak absolute position of every seed",
        ),
        FLAT_APE + "; for K = 1 at L = 20 that row is the target's",
    ),
    ("vocab-10", "C8"): (
        (
            "APE K=1 L=40: peak absolute position of every seed",
            "APE K=1 L=48: peak absolute position of every seed",
            "APE K=2 L=48: peak absolute position of every seed",
            "APE K=2 L=48: selected offset of every seed is not -K",
        ),
        FLAT_APE + "; for K = 2 at L = 48 that row is the target's",
    ),
    ("vocab-40", "C1"): (
        ("RoPE K=1 L=32: accuracy", "RoPE K=1 L=48: accuracy"),
        "at m = 40 the K = 1 RoPE head dilutes below the thresholds at L = 32 and 48 (the paper point's K = 1 sits "
        "near them too, C20) while it still selects -1 in every cell (C3 holds)",
    ),
    ("vocab-40", "C8"): (("APE K=2 L=32: peak absolute position of every seed",), FLAT_APE),
    ("range-8-24", "C1"): (
        ("RoPE K=2 L=32: accuracy", "RoPE K=3 L=32: accuracy"),
        "trained on [8, 24], two of eight seeds lose accuracy at L = 32 for K = 2, 3 (the seed mean is under 0.95 "
        "there) while every cell still selects -K (C3 holds); the far end's 0.85 holds",
    ),
    ("range-8-24", "C8"): (("APE K=1 L=48: peak absolute position of every seed",), FLAT_APE),
    ("fresh-seeds", "C1"): (
        ("RoPE K=1 L=48: accuracy", "RoPE K=2 L=32: accuracy"),
        "at seeds 100..107 the K = 1 head's dilution takes the seed mean under 0.85 at L = 48 (it sits near that "
        "threshold at seeds 0..7 too), and one K = 2 seed (105) jumps to offset -27 from L = 32 on (C3)",
    ),
    ("fresh-seeds", "C3"): (
        (
            "RoPE K=2 L=32: selected offset of every seed",
            "RoPE K=2 L=40: selected offset of every seed",
            "RoPE K=2 L=48: selected offset of every seed",
            "fraction of seed x length cells selecting -K",
        ),
        "one RoPE seed of eight (105, K = 2) selects offset -27, beyond the trained offsets, from L = 32 on (like "
        "the two-layer d = 64 head's jump to -21); every other seed x length cell selects -K",
    ),
    ("fresh-seeds", "C8"): (
        ("APE K=3 L=32: peak absolute position of every seed", "APE K=3 L=40: peak absolute position of every seed"),
        FLAT_APE,
    ),
    ("fresh-seeds", "C11"): (
        ("linear K=3: |cos(m_Q, R_-K m_K)| (mean over seeds)",),
        "at seeds 100..104 the trained linear heads for K = 3 keep a partial carrier alignment in every seed, above "
        "the 0.3 read as 'no carrier' (their key carrier fraction stays low and the accuracy checks hold)",
    ),
}

CELLS = [
    pytest.param(s.name, c, id=f"{s.name}-{c}", marks=[pytest.mark.claim(c), pytest.mark.robustness])
    for s, c in cells()
]


def declaration(setting: Setting, spec: ClaimSpec) -> Declared | None:
    """The cell's declared non-reproduction: a finding of the map (``FINDINGS``), or at fresh seeds the claim's
    own structural one (``ClaimSpec.carried``)."""
    if (setting.name, spec.id) in FINDINGS:
        return Declared(*FINDINGS[setting.name, spec.id])
    return spec.carried if setting.seeds is not None else None


@pytest.mark.parametrize("setting_name, claim_id", CELLS)
def test_robustness(setting_name, claim_id, model_cache, claim):
    setting, spec = lookup(setting_name), CLAIMS[claim_id]
    # strict (an unexpected pass fails) except at fresh seeds, as for --lengthgen-seeds
    run_claim(
        spec,
        claim,
        PAPER,
        model_cache,
        setting=setting,
        declared=declaration(setting, spec),
        strict=setting.seeds is None,
        choices=[
            f"robustness setting {setting.name}: {setting.what}",
            f"read at this setting: Lmax = {setting.max_len}, chance 1/m = {setting.chance:g}, APE near "
            f"chance <= {setting.near_chance:g} (1/m + 0.10)",
        ],
    )
    claim.verify()
