"""Quality control of listeners in the spirit of ITU-T P.808: gold clips with an accepted score range,
straight-lining (session variance below a threshold), and agreement with the other listeners (Pearson r
between the listener's scores and the other listeners' means of the same clips). Thresholds come from
settings (LISTENING_QC_*). Plain functions over DataFrames."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from django.conf import settings

GOLD_MISSES = "gold_misses"
LOW_VARIANCE = "low_variance"
LOW_CORRELATION = "low_correlation"
FLAG_LABELS = {
    GOLD_MISSES: "missed gold clips",
    LOW_VARIANCE: "same score for everything",
    LOW_CORRELATION: "disagrees with the other listeners",
}


@dataclass
class ListenerQC:
    listener: object
    ratings: int = 0  # regular clips rated
    gold_rated: int = 0
    gold_missed: int = 0
    variance: float | None = None
    correlation: float | None = None
    flags: list[str] = field(default_factory=list)

    @property
    def flagged(self) -> bool:
        return bool(self.flags)


@dataclass(frozen=True)
class Thresholds:
    max_gold_misses: int
    min_variance: float
    min_correlation: float
    min_ratings: int

    @classmethod
    def from_settings(cls) -> Thresholds:
        return cls(
            max_gold_misses=settings.LISTENING_QC_MAX_GOLD_MISSES,
            min_variance=settings.LISTENING_QC_MIN_VARIANCE,
            min_correlation=settings.LISTENING_QC_MIN_CORRELATION,
            min_ratings=settings.LISTENING_QC_MIN_RATINGS,
        )


def listener_qc(ratings: pd.DataFrame, gold: pd.DataFrame, thresholds: Thresholds | None = None) -> dict:
    """`ratings`: regular-clip ratings (clip, listener, score) of every listener, excluded ones included, so
    a listener can be judged before and after exclusion; the 'others' side of the correlation uses the same
    frame. `gold`: gold-clip ratings (clip, listener, score, gold_min, gold_max).
    Returns {listener: ListenerQC}."""
    t = thresholds or Thresholds.from_settings()
    result: dict = {}
    listeners = set(ratings["listener"]) if not ratings.empty else set()
    listeners |= set(gold["listener"]) if not gold.empty else set()
    for listener in listeners:
        result[listener] = ListenerQC(listener)

    if not gold.empty:
        missed = (gold["score"] < gold["gold_min"]) | (gold["score"] > gold["gold_max"])
        for listener, part in gold.assign(missed=missed).groupby("listener"):
            qc = result[listener]
            qc.gold_rated = int(len(part))
            qc.gold_missed = int(part["missed"].sum())
            if qc.gold_missed > t.max_gold_misses:
                qc.flags.append(GOLD_MISSES)

    if ratings.empty:
        return result
    # One vectorised pass: each rating beside the other listeners' mean of its clip (this listener's own
    # score left out), then per-listener sums give variance and Pearson r without a loop over listeners.
    frame = pd.DataFrame({"listener": ratings["listener"].to_numpy(), "x": ratings["score"].to_numpy(dtype=float)})
    sums = ratings.groupby("clip")["score"].agg(["sum", "count"])
    agg = sums.reindex(ratings["clip"].to_numpy())
    others_n = agg["count"].to_numpy() - 1
    usable = others_n > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        frame["y"] = np.where(usable, (agg["sum"].to_numpy(dtype=float) - frame["x"].to_numpy()) / others_n, np.nan)
    per = frame.groupby("listener")["x"].agg(n="size", variance="var")  # sample variance, ddof=1
    pairs = frame[usable].assign(xx=lambda f: f["x"] ** 2, yy=lambda f: f["y"] ** 2, xy=lambda f: f["x"] * f["y"])
    moments = pairs.groupby("listener").agg(
        m=("x", "size"), sx=("x", "sum"), sy=("y", "sum"), sxx=("xx", "sum"), syy=("yy", "sum"), sxy=("xy", "sum"),
        x_lo=("x", "min"), x_hi=("x", "max"), y_lo=("y", "min"), y_hi=("y", "max"),
    )
    m = moments["m"]
    cov = moments["sxy"] - moments["sx"] * moments["sy"] / m
    var_x = moments["sxx"] - moments["sx"] ** 2 / m
    var_y = moments["syy"] - moments["sy"] ** 2 / m
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (cov / np.sqrt(var_x * var_y)).clip(-1, 1)
    defined = (m >= 3) & (moments["x_hi"] > moments["x_lo"]) & (moments["y_hi"] > moments["y_lo"])
    for listener, row in per.iterrows():
        qc = result[listener]
        qc.ratings = int(row["n"])
        if qc.ratings >= 2:
            qc.variance = float(row["variance"])
        n_usable = int(m.get(listener, 0))
        if n_usable and defined.get(listener, False):
            qc.correlation = float(r[listener])
        if qc.ratings >= t.min_ratings:
            if qc.variance is not None and qc.variance < t.min_variance:
                qc.flags.append(LOW_VARIANCE)
            if n_usable >= t.min_ratings and (qc.correlation is None or qc.correlation < t.min_correlation):
                # A constant listener has no correlation at all; that is no agreement either.
                if qc.correlation is not None or LOW_VARIANCE not in qc.flags:
                    qc.flags.append(LOW_CORRELATION)
    return result
