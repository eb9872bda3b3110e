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
    sums = ratings.groupby("clip")["score"].agg(["sum", "count"])
    for listener, part in ratings.groupby("listener"):
        qc = result[listener]
        scores = part["score"].to_numpy(dtype=float)
        qc.ratings = int(scores.size)
        if scores.size >= 2:
            qc.variance = float(scores.var(ddof=1))
        # The others' mean of each clip: leave this listener's own score out.
        agg = sums.loc[part["clip"]]
        others_n = agg["count"].to_numpy() - 1
        usable = others_n > 0
        if usable.sum() >= 3:
            others_mean = (agg["sum"].to_numpy(dtype=float)[usable] - scores[usable]) / others_n[usable]
            own = scores[usable]
            if np.ptp(own) > 0 and np.ptp(others_mean) > 0:
                qc.correlation = float(np.corrcoef(own, others_mean)[0, 1])
        if qc.ratings >= t.min_ratings:
            if qc.variance is not None and qc.variance < t.min_variance:
                qc.flags.append(LOW_VARIANCE)
            if usable.sum() >= t.min_ratings and (qc.correlation is None or qc.correlation < t.min_correlation):
                # A constant listener has no correlation at all; that is no agreement either.
                if qc.correlation is not None or LOW_VARIANCE not in qc.flags:
                    qc.flags.append(LOW_CORRELATION)
    return result
