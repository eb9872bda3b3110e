"""Statistics of a listening test, as plain functions over ratings (no database access).

Ratings come in as a pandas DataFrame with columns `clip`, `listener`, `score` (one row per rating of the
clean set). Everything here is deterministic, so the dashboard, the summary API and the exports agree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

# scipy.stats and krippendorff are imported where used: together they take over a second to import, and
# every page and command of the project would pay it at start-up through the views that read this module.

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
    from scipy import stats as sps  # heavy import: start-up leaves scipy out (tests/core/test_startup.py)

    return MeanCI(n, mean, float(sps.t.ppf(0.975, n - 1)) * sem)


def t_factors(n) -> np.ndarray:
    """t(0.975, n - 1) for an array of sample sizes, NaN where n < 2 (one vectorised scipy call)."""
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore"):
        from scipy import stats as sps  # heavy import: see mean_ci

        return np.where(n >= 2, sps.t.ppf(0.975, np.maximum(n - 1, 1)), np.nan)


def clip_table(ratings: pd.DataFrame) -> pd.DataFrame:
    """One row per clip: n, mos_mean, mos_median, std (sample, ddof=1) and ci95 (t half-width).

    One groupby pass over the ratings and one vectorised t quantile for every clip at once."""
    columns = ["n", "mos_mean", "mos_median", "std", "ci95"]
    if ratings.empty:
        return pd.DataFrame(columns=columns, index=pd.Index([], name="clip"))
    table = ratings.groupby("clip")["score"].agg(n="size", mos_mean="mean", mos_median="median", std="std")
    table["ci95"] = t_factors(table["n"].to_numpy()) * table["std"].to_numpy() / np.sqrt(table["n"].to_numpy())
    table.index.name = "clip"
    return table


@dataclass(frozen=True)
class GroupCI:
    """A group's MOS two ways. `ratings`: over every rating of the group's clips (as P.800/P.1401 compute a
    condition's MOS from its votes; n = ratings). `clips`: over the group's clip means (n = clips); ratings
    of one clip are not independent, so this interval is the honest one when clips are the unit."""

    value: str
    ratings: MeanCI
    clips: MeanCI


def _grouped_cis(values: pd.Series, keys: pd.Series) -> dict[str, MeanCI]:
    stats = values.groupby(keys, sort=True).agg(["size", "mean", "std"])
    half = t_factors(stats["size"].to_numpy()) * stats["std"].to_numpy() / np.sqrt(stats["size"].to_numpy())
    return {
        str(key): MeanCI(int(n), float(mean), None if math.isnan(h) else float(h))
        for key, n, mean, h in zip(stats.index, stats["size"], stats["mean"], half, strict=True)
    }


def group_cis(ratings: pd.DataFrame, groups: pd.Series, table: pd.DataFrame | None = None) -> list[GroupCI]:
    """Mean MOS with t-based 95 % intervals per group value, at rating level and at clip level. `groups`
    maps clip -> group value (clips with an empty value are left out); `table` is `clip_table(ratings)`
    when the caller has it already. Sorted by value."""
    if ratings.empty:
        return []
    groups = groups[groups.notna() & (groups.astype(str) != "")].astype(str)
    labels = ratings["clip"].map(groups)
    rated = labels.notna()
    by_rating = _grouped_cis(ratings.loc[rated, "score"].astype(float), labels[rated])
    table = clip_table(ratings) if table is None else table
    clip_labels = table.index.to_series().map(groups)
    by_clip = _grouped_cis(table.loc[clip_labels.notna(), "mos_mean"], clip_labels[clip_labels.notna()])
    return [GroupCI(value, by_rating[value], by_clip[value]) for value in sorted(by_rating)]


def alpha_ordinal(ratings: pd.DataFrame) -> float | None:
    """Ordinal Krippendorff's alpha over the whole test (listeners x clips, missing where not rated), from
    the `krippendorff` package. None when there is not enough data (fewer than two pairable ratings)."""
    if ratings.empty:
        return None
    data = reliability_matrix(ratings)
    pairable = (~np.isnan(data)).sum(axis=0)
    if (pairable >= 2).sum() == 0 or len(np.unique(data[~np.isnan(data)])) < 2:
        return None
    import krippendorff  # heavy import (it loads scipy): start-up leaves it out (tests/core/test_startup.py)

    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal", value_domain=list(SCORES)))


def reliability_matrix(ratings: pd.DataFrame) -> np.ndarray:
    """listeners x clips, NaN where a listener did not rate a clip (one rating per pair, as the database
    guarantees). Built from factorised codes, which is much faster than a pivot table at 10,000 clips."""
    rows, _ = pd.factorize(ratings["listener"])
    cols, _ = pd.factorize(ratings["clip"])
    data = np.full((rows.max() + 1, cols.max() + 1), np.nan)
    data[rows, cols] = ratings["score"].to_numpy(dtype=float)
    return data


def histogram(values, *, bins: list[float]) -> list[tuple[float, float, int]]:
    counts, edges = np.histogram(np.asarray(values, dtype=float), bins=bins)
    return [(float(edges[i]), float(edges[i + 1]), int(counts[i])) for i in range(len(counts))]


MOS_BINS = [1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0001]
