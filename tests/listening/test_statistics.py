"""Clip statistics, group confidence intervals and ordinal Krippendorff's alpha."""

import math

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from apps.listening.stats import alpha_ordinal, clip_table, group_cis, t_ci95


def _ratings(rows):
    return pd.DataFrame(rows, columns=["clip", "listener", "score"])


def test_clip_mos_is_the_mean_and_median_of_its_ratings_with_a_t_interval():
    ratings = _ratings([("a", f"l{i}", s) for i, s in enumerate([5, 4, 4, 3, 5])] + [("b", "l1", 2), ("b", "l2", 2)])
    table = clip_table(ratings)
    row = table.loc["a"]
    assert row["n"] == 5
    assert row["mos_mean"] == pytest.approx(4.2)
    assert row["mos_median"] == 4
    assert row["std"] == pytest.approx(np.std([5, 4, 4, 3, 5], ddof=1))
    expected = sps.t.ppf(0.975, 4) * np.std([5, 4, 4, 3, 5], ddof=1) / math.sqrt(5)
    assert row["ci95"] == pytest.approx(expected)
    # The t factor with 4 degrees of freedom is about 40 % wider than the normal 1.96.
    assert row["ci95"] > 1.96 * np.std([5, 4, 4, 3, 5], ddof=1) / math.sqrt(5) * 1.3
    assert table.loc["b", "std"] == 0


def test_a_single_rating_has_no_interval():
    assert t_ci95([4]).ci95 is None
    assert t_ci95([]).mean is None


def test_group_intervals_use_every_rating_of_the_groups_clips():
    ratings = _ratings([("a", "x", 5), ("a", "y", 4), ("b", "x", 1), ("b", "y", 2), ("c", "x", 3)])
    groups = pd.Series({"a": "real", "b": "degraded", "c": "real"})
    by_value = {value: (ci, clips) for value, ci, clips in group_cis(ratings, groups)}
    ci, clips = by_value["real"]
    assert clips == 2 and ci.n == 3
    assert ci.mean == pytest.approx(4.0)
    assert ci.ci95 == pytest.approx(sps.t.ppf(0.975, 2) * np.std([5, 4, 3], ddof=1) / math.sqrt(3))
    assert by_value["degraded"][0].mean == pytest.approx(1.5)


def test_alpha_equals_the_krippendorff_package_on_the_same_data():
    rng = np.random.default_rng(7)
    rows = []
    true_quality = rng.uniform(1, 5, size=40)
    for clip, quality in enumerate(true_quality):
        for listener in rng.choice(12, size=5, replace=False):
            rows.append((f"c{clip}", f"l{listener}", int(np.clip(round(quality + rng.normal(0, 0.7)), 1, 5))))
    ratings = _ratings(rows)
    matrix = np.full((12, 40), np.nan)
    for clip, listener, score in rows:
        matrix[int(listener[1:]), int(clip[1:])] = score
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal", value_domain=[1, 2, 3, 4, 5])
    assert alpha_ordinal(ratings) == pytest.approx(expected, abs=1e-12)
    assert 0.3 < expected < 1


def test_alpha_is_none_without_enough_data():
    assert alpha_ordinal(_ratings([])) is None
    assert alpha_ordinal(_ratings([("a", "x", 3)])) is None
