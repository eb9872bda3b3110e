"""Predictor evaluation: SRCC/LCC, affine calibration, paired bootstrap."""

import numpy as np
import pytest
from scipy import stats as sps

from apps.listening.evaluation import correlations, fit_affine, paired_bootstrap_srcc


def _data(n=100, seed=0):
    rng = np.random.default_rng(seed)
    human = rng.uniform(1, 5, size=n)
    good = human * 0.6 + 1 + rng.normal(0, 0.3, size=n)
    poor = human * 0.3 + 2 + rng.normal(0, 0.8, size=n)
    return human, good, poor


def test_srcc_and_lcc_equal_scipys():
    human, good, _ = _data()
    result = correlations(human, good)
    assert result.srcc == pytest.approx(sps.spearmanr(human, good).statistic, abs=1e-12)
    assert result.lcc == pytest.approx(sps.pearsonr(human, good).statistic, abs=1e-12)
    assert correlations([1, 2], [1, 2]).srcc is None


def test_affine_calibration_is_least_squares_and_clipped_to_the_scale():
    x = np.array([0.0, 1.0, 2.0, 3.0])
    y = 2 * x + 1
    cal = fit_affine(x, y)
    assert (cal.a, cal.b) == pytest.approx((2.0, 1.0))
    assert list(cal.apply([0.0, 1.5, 10.0])) == [1.0, 4.0, 5.0]


def test_bootstrap_is_reproducible_with_a_seed_and_brackets_a_clear_difference():
    human, good, poor = _data()
    first = paired_bootstrap_srcc(human, good, poor, resamples=10_000, seed=42)
    again = paired_bootstrap_srcc(human, good, poor, resamples=10_000, seed=42)
    other = paired_bootstrap_srcc(human, good, poor, resamples=10_000, seed=43)
    assert (first.ci_low, first.ci_high) == (again.ci_low, again.ci_high)
    assert (first.ci_low, first.ci_high) != (other.ci_low, other.ci_high)
    assert first.resamples == 10_000
    assert 0 < first.ci_low < first.difference < first.ci_high
    assert first.p_value < 0.01


def test_bootstrap_resample_srcc_matches_scipy_on_one_resample():
    from apps.listening.evaluation import _rowwise_spearman

    human, good, _ = _data(n=30)
    idx = np.random.default_rng(1).integers(0, 30, size=(1, 30))
    assert _rowwise_spearman(human[idx], good[idx])[0] == pytest.approx(
        sps.spearmanr(human[idx][0], good[idx][0]).statistic
    )


def test_a_constant_predictor_gets_a_reason_not_an_interval():
    from apps.listening.evaluation import NoInterval

    human, good, _ = _data(n=40)
    constant = np.full(40, 3.2)
    assert correlations(human, constant).reason == "the prediction is the same for every clip here"
    with pytest.raises(NoInterval, match=r"no interval: the prediction is the same for every clip here \(predictor B\)"):
        paired_bootstrap_srcc(human, good, constant, resamples=200)


def test_fewer_than_three_clips_get_a_reason_not_an_interval():
    from apps.listening.evaluation import NoInterval

    assert correlations([3.0, 4.0], [1.0, 2.0]).reason == "only 2 clips (a correlation needs at least 3)"
    with pytest.raises(NoInterval, match=r"only 2 clips"):
        paired_bootstrap_srcc([3.0, 4.0], [1.0, 2.0], [2.0, 1.0], resamples=100)


def test_resamples_where_a_predictor_is_constant_are_counted_as_dropped():
    # A predictor that varies on one clip only: most resamples of ten clips miss that clip and have no SRCC.
    human = np.linspace(1, 5, 10)
    near_constant = np.array([3.0] * 9 + [4.0])
    result = paired_bootstrap_srcc(human, human, near_constant, resamples=2000, seed=0)
    expected_share = (9 / 10) ** 10  # the chance a resample never draws the tenth clip
    assert result.dropped == pytest.approx(expected_share * 2000, rel=0.15)
    assert result.kept == 2000 - result.dropped


def test_a_p_value_no_resample_reached_is_reported_as_below_the_resolution():
    human, good, poor = _data(n=200)
    result = paired_bootstrap_srcc(human, good, poor, resamples=500, seed=1)
    assert result.p_value == 0 and result.p_below_resolution and result.kept == 500
