"""The dilution fit (Corollary 2): linear least squares of 1/a* on L - 1 over the evaluation lengths.

``dilution_fit`` fits one curve (scipy's ``linregress``); ``mean_curve_fit`` fits the seed-mean curve of
per-seed rows with the same least squares in closed form (numpy), without scipy's per-call overhead, for
the thousands of refits of a seed bootstrap; the two agree to float rounding.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Sequence

import numpy as np
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


def mean_curve_fit(lengths: Sequence[int], weight_rows: Sequence[Sequence[float]]) -> DilutionFit:
    """Fit 1/a*(L) = intercept + slope * (L - 1) on the mean over rows (seeds) of ``weight_rows`` (S, L)."""
    weights = np.asarray(weight_rows, dtype=np.float64)  # (S, L)
    if weights.ndim != 2 or weights.shape[1] != len(lengths) or len(lengths) < 3:
        raise ValueError(f"need rows of >= 3 weights matching {len(lengths)} lengths, got shape {weights.shape}")
    mean = weights.mean(0)  # (L,)
    if mean.min() <= 0:
        raise ValueError(f"target weights must be positive, got {mean.min()}")
    x = np.asarray(lengths, dtype=np.float64) - 1.0  # (L,)
    y = 1.0 / mean  # (L,)
    dx, dy = x - x.mean(), y - y.mean()
    sxy, sxx, syy = float(dx @ dy), float(dx @ dx), float(dy @ dy)
    slope = sxy / sxx
    r2 = sxy * sxy / (sxx * syy) if syy > 0 else 0.0
    return DilutionFit(slope, float(y.mean() - slope * x.mean()), r2)
