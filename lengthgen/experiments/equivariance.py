"""RoPE offset equivariance (C2, Lemma 1): shifting every position by c leaves every logit unchanged.

Checked on the plain reference forward with random (untrained) weights, so the test exercises the
rotation itself rather than anything training learned. ``encoding="ape"`` measures the same gap for a
random APE head (C2's negative control): its logits read absolute positions, so a shift changes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import torch

from lengthgen.config import ModelConfig
from lengthgen.experiments.results import to_json
from lengthgen.models import OneLayerHead
from lengthgen.seeding import generator

# float32 rotations of angles up to ~1e4 rad carry ~1e-7 relative error per coordinate; logits are sums
# of d such products, so differences up to ~1e-5 relative to the logit scale are rounding, not physics.
RELATIVE_TOLERANCE = 1e-4
ENCODINGS = ("rope", "ape")  # the heads whose gap can be measured (APE: the control)
LENGTH = 16  # the longest sequence of a batch (mixed lengths 2..LENGTH, right-aligned)
APE_SHIFTS = ModelConfig().positions - LENGTH  # 32: an APE case shifts by 1 + |c| mod 32, so positions stay
# inside the suite's 48-row table (15 + 32 = 47) and no shift is 0 (a zero shift changes nothing)


def equivariance_gap(
    d: int, base: float, shift: int, seed: int, heads: int = 1, length: int = LENGTH, encoding: str = "rope"
) -> float:
    """max |logit(shift) - logit(0)| / (1 + max |logit(0)|) over a random batch, for a random head.

    ``encoding="ape"``: an APE head with the suite's table (48 rows); the shifted positions must fit it,
    0 <= shift <= 48 - length. ``base`` is RoPE's (ignored by APE).
    """
    if encoding not in ENCODINGS:
        raise ValueError(f"encoding={encoding!r} must be one of {ENCODINGS}")
    if encoding == "ape":
        cfg = ModelConfig(encoding="ape", d=d, heads=heads)
        if not 0 <= shift <= cfg.positions - length:
            raise ValueError(
                f"shift={shift} must lie in [0, {cfg.positions - length}] for an APE head of "
                f"{cfg.positions} positions at length {length}"
            )
    else:
        cfg = ModelConfig(encoding="rope", d=d, heads=heads, rope_base=base)
    model = OneLayerHead(cfg, 20, generator(seed, "init"))
    g = generator(seed, "equivariance")
    tokens = torch.randint(0, 20, (32, length), generator=g)  # (B, L)
    lengths = torch.randint(2, length + 1, (32,), generator=g)  # (B,) mixed lengths, right-aligned
    with torch.no_grad():
        base_scores = model(tokens, lengths).scores  # (B, H, L)
        shifted = model(tokens, lengths, position_shift=shift).scores  # (B, H, L)
    finite = torch.isfinite(base_scores)
    gap = (shifted[finite] - base_scores[finite]).abs().max()
    return float(gap / (1 + base_scores[finite].abs().max()))


@dataclass(frozen=True)
class Case:
    """One drawn example of the property."""

    shift: int  # the constant added to every absolute position
    d: int  # model width (heads x head width)
    heads: int  # attention heads
    base: float  # RoPE base
    seed: int  # seeds the random weights and the random batch


@dataclass
class EquivarianceResult:
    encoding: str  # the heads measured: "rope" (the claim) or "ape" (its control)
    cases: tuple[Case, ...]  # the examples, in the order drawn
    gaps: tuple[float, ...]  # the relative logit change of each case

    @property
    def largest_gap(self) -> float:
        return max(self.gaps)

    def to_json(self) -> dict[str, Any]:
        return {"encoding": self.encoding, "cases": [{**to_json(c), "gap": g} for c, g in zip(self.cases, self.gaps)]}


def ape_shift(shift: int) -> int:
    """The shift an APE head takes for a case's ``shift``: 1 + |shift| mod APE_SHIFTS (see APE_SHIFTS)."""
    return 1 + abs(shift) % APE_SHIFTS


def run_equivariance(cases: Sequence[Case], encoding: str = "rope") -> EquivarianceResult:
    """The gap of every case for ``encoding``'s heads. An APE head (the control) takes the case's width,
    heads and seed, and the shift ``ape_shift(case.shift)``, which its table can hold."""
    if not cases:
        raise ValueError("run_equivariance needs at least one case")
    gaps = tuple(
        equivariance_gap(
            c.d, c.base, ape_shift(c.shift) if encoding == "ape" else c.shift, c.seed, heads=c.heads, encoding=encoding
        )
        for c in cases
    )
    return EquivarianceResult(encoding, tuple(cases), gaps)
