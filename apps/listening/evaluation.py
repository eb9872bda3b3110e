"""Predictor evaluation as in KOMOS: utterance-level SRCC (primary) and LCC against human MOS, affine
calibration fitted on validation and clipped to [1, 5], and a seeded paired bootstrap of the SRCC
difference between two predictors. Plain functions over numpy arrays."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as sps


@dataclass(frozen=True)
class Correlation:
    n: int
    srcc: float | None
    lcc: float | None


def correlations(human, predicted) -> Correlation:
    """Spearman (SRCC) and Pearson (LCC) from scipy; None where undefined (fewer than 3 clips or a constant)."""
    y = np.asarray(human, dtype=float)
    x = np.asarray(predicted, dtype=float)
    n = int(y.size)
    if n < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return Correlation(n, None, None)
    return Correlation(n, float(sps.spearmanr(y, x).statistic), float(sps.pearsonr(y, x).statistic))


@dataclass(frozen=True)
class Calibration:
    a: float
    b: float

    def apply(self, predicted) -> np.ndarray:
        return np.clip(self.a * np.asarray(predicted, dtype=float) + self.b, 1.0, 5.0)


def fit_affine(predicted, human) -> Calibration | None:
    """Least-squares y = a*x + b from predictions to human MOS (fit on validation); None if it cannot be fit."""
    x = np.asarray(predicted, dtype=float)
    y = np.asarray(human, dtype=float)
    if x.size < 2 or np.ptp(x) == 0:
        return None
    result = sps.linregress(x, y)
    return Calibration(float(result.slope), float(result.intercept))


@dataclass(frozen=True)
class BootstrapResult:
    n: int
    resamples: int
    seed: int
    srcc_a: float
    srcc_b: float
    difference: float  # SRCC(a) - SRCC(b) on the full set
    ci_low: float
    ci_high: float
    p_value: float  # two-sided: how often the resampled difference falls on the other side of zero


def _rowwise_spearman(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Spearman per row of (resamples, n) matrices: Pearson of average ranks, as scipy defines it."""
    ry = sps.rankdata(y, axis=1)
    rx = sps.rankdata(x, axis=1)
    ry -= ry.mean(axis=1, keepdims=True)
    rx -= rx.mean(axis=1, keepdims=True)
    denom = np.sqrt((ry**2).sum(axis=1) * (rx**2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return (ry * rx).sum(axis=1) / denom


def paired_bootstrap_srcc(human, pred_a, pred_b, *, resamples: int = 10_000, seed: int = 0) -> BootstrapResult:
    """95 % percentile CI of SRCC(a) - SRCC(b): resample clips with replacement (the same clips for both
    predictors in each resample, hence paired). The same seed gives the same interval."""
    y = np.asarray(human, dtype=float)
    a = np.asarray(pred_a, dtype=float)
    b = np.asarray(pred_b, dtype=float)
    n = y.size
    if n < 3 or a.size != n or b.size != n:
        raise ValueError("the bootstrap needs at least 3 clips with both predictions")
    rng = np.random.default_rng(seed)
    diffs = np.empty(resamples)
    chunk = max(1, min(resamples, 2_000_000 // max(n, 1)))  # bound memory for large test sets
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        idx = rng.integers(0, n, size=(size, n))
        diffs[start:start + size] = _rowwise_spearman(y[idx], a[idx]) - _rowwise_spearman(y[idx], b[idx])
    diffs = diffs[~np.isnan(diffs)]  # a resample where a side is constant has no SRCC
    full_a = correlations(y, a).srcc
    full_b = correlations(y, b).srcc
    low, high = np.percentile(diffs, [2.5, 97.5])
    p = 2 * min((diffs <= 0).mean(), (diffs >= 0).mean())
    return BootstrapResult(
        n=int(n), resamples=resamples, seed=seed,
        srcc_a=float(full_a) if full_a is not None else float("nan"),
        srcc_b=float(full_b) if full_b is not None else float("nan"),
        difference=float((full_a or 0) - (full_b or 0)),
        ci_low=float(low), ci_high=float(high), p_value=float(min(1.0, p)),
    )
