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
    reason: str = ""  # why srcc/lcc are None, for the page


def _undefined_because(n: int, human: np.ndarray, predicted: np.ndarray) -> str:
    if n < 3:
        return f"only {n} clip{'s' if n != 1 else ''} (a correlation needs at least 3)"
    if np.ptp(predicted) == 0:
        return "the prediction is the same for every clip here"
    if np.ptp(human) == 0:
        return "every clip here has the same human MOS"
    return ""


def correlations(human, predicted) -> Correlation:
    """Spearman (SRCC) and Pearson (LCC) from scipy; None where undefined (fewer than 3 clips or a
    constant), with the reason."""
    y = np.asarray(human, dtype=float)
    x = np.asarray(predicted, dtype=float)
    n = int(y.size)
    reason = _undefined_because(n, y, x)
    if reason:
        return Correlation(n, None, None, reason)
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


class NoInterval(ValueError):
    """The bootstrap cannot give an interval; str() says why, for the page."""


@dataclass(frozen=True)
class BootstrapResult:
    n: int
    resamples: int  # drawn
    seed: int
    srcc_a: float
    srcc_b: float
    difference: float  # SRCC(a) - SRCC(b) on the full set
    ci_low: float
    ci_high: float
    p_value: float  # two-sided: how often the resampled difference falls on the other side of zero
    dropped: int = 0  # resamples where a side was constant (no SRCC), left out of the interval and p

    @property
    def kept(self) -> int:
        return self.resamples - self.dropped

    @property
    def p_below_resolution(self) -> bool:
        """No kept resample reached zero: all the bootstrap can say is p < 1/kept."""
        return self.p_value == 0


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
    predictors in each resample, hence paired). The same seed gives the same interval.

    Raises NoInterval (saying why) when no interval can be given: fewer than 3 clips, a predictor or the
    human MOS constant over the clips, or no resample where both sides vary. Resamples where a side is
    constant have no SRCC; they are dropped and counted in `dropped`."""
    y = np.asarray(human, dtype=float)
    a = np.asarray(pred_a, dtype=float)
    b = np.asarray(pred_b, dtype=float)
    n = y.size
    if a.size != n or b.size != n:
        raise ValueError("human MOS and both predictions must have one value per clip")
    for label, values in (("predictor A", a), ("predictor B", b)):
        reason = _undefined_because(n, y, values)
        if reason:
            raise NoInterval(f"no interval: {reason}" + (f" ({label})" if "prediction" in reason else ""))
    rng = np.random.default_rng(seed)
    diffs = np.empty(resamples)
    chunk = max(1, min(resamples, 2_000_000 // max(n, 1)))  # bound memory for large test sets
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        idx = rng.integers(0, n, size=(size, n))
        diffs[start:start + size] = _rowwise_spearman(y[idx], a[idx]) - _rowwise_spearman(y[idx], b[idx])
    usable = diffs[~np.isnan(diffs)]
    if usable.size == 0:
        raise NoInterval(f"no interval: in every one of the {resamples} resamples a predictor or the human MOS is constant")
    full_a = float(sps.spearmanr(y, a).statistic)
    full_b = float(sps.spearmanr(y, b).statistic)
    low, high = np.percentile(usable, [2.5, 97.5])
    p = 2 * min((usable <= 0).mean(), (usable >= 0).mean())
    return BootstrapResult(
        n=int(n), resamples=resamples, seed=seed, srcc_a=full_a, srcc_b=full_b, difference=full_a - full_b,
        ci_low=float(low), ci_high=float(high), p_value=float(min(1.0, p)), dropped=int(resamples - usable.size),
    )
