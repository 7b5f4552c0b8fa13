"""The dilution fit (Corollary 2): linear least squares of 1/a* on L - 1 over the evaluation lengths."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Sequence

from scipy import stats


@dataclass(frozen=True)
class DilutionFit:
    slope: float  # c: growth of 1/a* per extra position
    intercept: float
    r2: float  # coefficient of determination of the fit

    def to_dict(self) -> dict:
        return asdict(self)


def dilution_fit(lengths: Sequence[int], target_weights: Sequence[float]) -> DilutionFit:
    """Fit 1/a*(L) = intercept + slope * (L - 1)."""
    if len(lengths) != len(target_weights) or len(lengths) < 3:
        raise ValueError(f"need >= 3 matching lengths and weights, got {len(lengths)} and {len(target_weights)}")
    if min(target_weights) <= 0:
        raise ValueError(f"target weights must be positive, got {min(target_weights)}")
    x = [length - 1 for length in lengths]
    y = [1.0 / a for a in target_weights]
    fit = stats.linregress(x, y)
    return DilutionFit(float(fit.slope), float(fit.intercept), float(fit.rvalue**2))
