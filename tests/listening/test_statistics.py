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
    by_value = {g.value: g for g in group_cis(ratings, groups)}
    real = by_value["real"]
    assert real.clips.n == 2 and real.ratings.n == 3
    assert real.ratings.mean == pytest.approx(4.0)
    assert real.ratings.ci95 == pytest.approx(sps.t.ppf(0.975, 2) * np.std([5, 4, 3], ddof=1) / math.sqrt(3))
    assert by_value["degraded"].ratings.mean == pytest.approx(1.5)


def test_the_clip_level_interval_is_the_t_interval_of_the_clip_means_and_wider_than_over_ratings():
    rng = np.random.default_rng(11)
    rows, groups = [], {}
    for clip in range(300):
        quality = rng.uniform(1.5, 4.5)
        groups[f"c{clip}"] = ("real", "tts", "degraded")[clip % 3]
        for listener in rng.choice(40, size=5, replace=False):
            rows.append((f"c{clip}", f"l{listener}", int(np.clip(round(quality + rng.normal(0, 0.6)), 1, 5))))
    ratings = _ratings(rows)
    result = {g.value: g for g in group_cis(ratings, pd.Series(groups))}
    for value in ("real", "tts", "degraded"):
        clips = [c for c, v in groups.items() if v == value]
        means = ratings[ratings["clip"].isin(clips)].groupby("clip")["score"].mean().to_numpy()
        low, high = sps.t.interval(0.95, len(means) - 1, loc=means.mean(), scale=sps.sem(means))
        assert result[value].clips.n == 100
        assert (result[value].clips.low, result[value].clips.high) == pytest.approx((low, high), abs=1e-12)
        votes = ratings[ratings["clip"].isin(clips)]["score"].to_numpy()
        low, high = sps.t.interval(0.95, len(votes) - 1, loc=votes.mean(), scale=sps.sem(votes))
        assert (result[value].ratings.low, result[value].ratings.high) == pytest.approx((low, high), abs=1e-12)
        # Five ratings of one clip move together: treating them as independent understates the spread.
        assert result[value].clips.ci95 > 1.3 * result[value].ratings.ci95


def test_clip_table_matches_a_direct_computation_for_every_clip():
    rng = np.random.default_rng(5)
    rows = [(f"c{c}", f"l{j}", int(rng.integers(1, 6))) for c in range(200) for j in range(int(rng.integers(1, 7)))]
    table = clip_table(_ratings(rows))
    for clip, part in _ratings(rows).groupby("clip"):
        scores = part["score"].to_numpy(dtype=float)
        ci = t_ci95(scores)
        assert table.loc[clip, "n"] == len(scores)
        assert table.loc[clip, "mos_median"] == np.median(scores)
        if ci.ci95 is None:
            assert np.isnan(table.loc[clip, "ci95"])
        else:
            assert table.loc[clip, "ci95"] == pytest.approx(ci.ci95, abs=1e-12)


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
