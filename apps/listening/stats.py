"""Statistics of a listening test, as plain functions over ratings (no database access).

Ratings come in as a pandas DataFrame with columns `clip`, `listener`, `score` (one row per rating of the
clean set). Everything here is deterministic, so the dashboard, the summary API and the exports agree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import krippendorff
import numpy as np
import pandas as pd
from scipy import stats as sps

SCORES = (1, 2, 3, 4, 5)


@dataclass(frozen=True)
class MeanCI:
    n: int
    mean: float | None
    ci95: float | None  # half-width of the 95 % interval; None when n < 2

    @property
    def low(self) -> float | None:
        return None if self.mean is None or self.ci95 is None else self.mean - self.ci95

    @property
    def high(self) -> float | None:
        return None if self.mean is None or self.ci95 is None else self.mean + self.ci95


def t_ci95(values) -> MeanCI:
    """Mean and the half-width of its 95 % confidence interval with Student's t (n - 1 degrees of freedom).

    With the five ratings of a clip, t(0.975, 4) = 2.776: the normal 1.96 would be about 30 % too narrow."""
    arr = np.asarray(values, dtype=float)
    n = int(arr.size)
    if n == 0:
        return MeanCI(0, None, None)
    mean = float(arr.mean())
    if n < 2:
        return MeanCI(n, mean, None)
    sem = float(arr.std(ddof=1)) / math.sqrt(n)
    return MeanCI(n, mean, float(sps.t.ppf(0.975, n - 1)) * sem)


def clip_table(ratings: pd.DataFrame) -> pd.DataFrame:
    """One row per clip: n, mos_mean, mos_median, std (sample, ddof=1) and ci95 (t half-width)."""
    columns = ["n", "mos_mean", "mos_median", "std", "ci95"]
    if ratings.empty:
        return pd.DataFrame(columns=columns, index=pd.Index([], name="clip"))
    grouped = ratings.groupby("clip")["score"]
    table = pd.DataFrame({
        "n": grouped.size(),
        "mos_mean": grouped.mean(),
        "mos_median": grouped.median(),
        "std": grouped.std(ddof=1),
    })
    t_factor = table["n"].map(lambda n: float(sps.t.ppf(0.975, n - 1)) if n >= 2 else np.nan)
    table["ci95"] = t_factor * table["std"] / np.sqrt(table["n"])
    table.index.name = "clip"
    return table


def group_cis(ratings: pd.DataFrame, groups: pd.Series) -> list[tuple[str, MeanCI, int]]:
    """Mean MOS with a t-based 95 % CI per group value, computed over every rating of the group's clips
    (as P.800/P.1401 compute a condition's MOS from its votes). `groups` maps clip -> group value.
    Returns (value, MeanCI over ratings, number of clips), sorted by value."""
    if ratings.empty:
        return []
    labelled = ratings.assign(group=ratings["clip"].map(groups)).dropna(subset=["group"])
    labelled = labelled[labelled["group"].astype(str) != ""]
    out = []
    for value, part in labelled.groupby("group", sort=True):
        out.append((str(value), t_ci95(part["score"].to_numpy()), int(part["clip"].nunique())))
    return out


def alpha_ordinal(ratings: pd.DataFrame) -> float | None:
    """Ordinal Krippendorff's alpha over the whole test (listeners x clips, missing where not rated), from
    the `krippendorff` package. None when there is not enough data (fewer than two pairable ratings)."""
    if ratings.empty:
        return None
    matrix = ratings.pivot_table(index="listener", columns="clip", values="score", aggfunc="first")
    data = matrix.to_numpy(dtype=float)
    pairable = (~np.isnan(data)).sum(axis=0)
    if (pairable >= 2).sum() == 0 or len(np.unique(data[~np.isnan(data)])) < 2:
        return None
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal", value_domain=list(SCORES)))


def histogram(values, *, bins: list[float]) -> list[tuple[float, float, int]]:
    counts, edges = np.histogram(np.asarray(values, dtype=float), bins=bins)
    return [(float(edges[i]), float(edges[i + 1]), int(counts[i])) for i in range(len(counts))]


MOS_BINS = [1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0001]
