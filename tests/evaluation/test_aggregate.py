"""Leaderboard numbers: subset scores, benchmark means checked against seed 000 (Table 5 -> Table 1, Table 6),
rank agreement and the paired bootstrap."""

from pathlib import Path

import pytest
import yaml

from apps.core.errors import InvalidInput
from apps.evaluation.aggregate import (
    KMMAU_CAPABILITIES,
    OPENAUDIOBENCH_SUBSETS,
    VOICEBENCH_SUBSETS,
    benchmark_score,
    paired_bootstrap,
    paired_comparison,
    rank_agreement,
    subset_score,
)

SEED = yaml.safe_load((Path(__file__).parent / "seed000_tables.yaml").read_text(encoding="utf-8"))
MODELS = SEED["models"]
# Table 5 prints one AlpacaEval row for VoiceBench's alpacaeval and OpenAudioBench's alpaca_eval.
ROWS = {
    "VoiceBench": ("en", VOICEBENCH_SUBSETS),
    "OpenAudioBench": ("en", OPENAUDIOBENCH_SUBSETS),
    "KVoiceBench": ("ko", VOICEBENCH_SUBSETS),
    "KOpenAudioBench": ("ko", OPENAUDIOBENCH_SUBSETS),
}
# The one cell where the paper's Table 1 and the mean of its own Table 5 part by more than Table 5's
# rounding allows (at most 0.05): Step-Audio 2 Mini on OpenAudioBench, printed 59.6, while
# (72.3 + 52.3 + 52.4 + 60.6) / 4 = 59.4.
DISAGREEING = {("OpenAudioBench", "Step-Audio 2 Mini")}


def _subset_scores(language: str, model: int) -> dict[str, float]:
    table = SEED["table5"][language]
    scores = {name: row[model] for name, row in table.items()}
    scores["alpaca_eval"] = scores["alpacaeval"]
    return scores


def _gaps() -> dict[tuple[str, str], float]:
    gaps = {}
    for benchmark, (language, subsets) in ROWS.items():
        for index, model in enumerate(MODELS):
            computed = benchmark_score(_subset_scores(language, index), subsets)
            gaps[(benchmark, model)] = computed - SEED["table1"][benchmark][index]
    return gaps


def test_table5_subsets_give_table1_rows_for_the_eight_models_within_a_tenth():
    gaps = _gaps()
    assert len(gaps) == 32
    off = {cell for cell, gap in gaps.items() if abs(gap) > 0.1}
    assert off == DISAGREEING
    for cell, gap in gaps.items():
        if cell not in DISAGREEING:
            assert abs(gap) <= 0.06, cell  # Table 5 rounding: at most 0.05 plus float noise


def test_the_paper_disagrees_with_itself_on_step_audio_openaudiobench_by_two_tenths():
    gap = _gaps()[("OpenAudioBench", "Step-Audio 2 Mini")]
    assert gap == pytest.approx(59.4 - 59.6, abs=1e-9)


def test_table6_capabilities_give_the_kmmau_average_and_table1_row():
    for index, model in enumerate(MODELS):
        scores = {cap: SEED["table6"][cap][index] for cap in KMMAU_CAPABILITIES}
        computed = benchmark_score(scores, KMMAU_CAPABILITIES)
        assert computed == pytest.approx(SEED["table6"]["average"][index], abs=0.06), model
        assert computed == pytest.approx(SEED["table1"]["KMMAU"][index], abs=0.06), model


def test_it_refuses_a_benchmark_with_a_missing_subset():
    scores = _subset_scores("en", 0)
    del scores["ifeval"]
    with pytest.raises(InvalidInput, match="ifeval"):
        benchmark_score(scores, VOICEBENCH_SUBSETS)


@pytest.mark.parametrize("metric, scores, expected", [
    ("mcq", [1, 0, 1, 1], 75.0),
    ("qa", [0, 0, 1, 0], 25.0),
    ("bbh", [1, 1], 100.0),
    ("refusal", [1, 1, 1, 0, 0], 60.0),
    ("open", [5, 4, 3, 4, 4, 4], 80.0),
])
def test_subset_scores_follow_each_metric(metric, scores, expected):
    assert subset_score(metric, scores) == pytest.approx(expected)


def test_ifeval_averages_prompt_and_instruction_level_accuracy():
    # Two items: the first with instructions [followed, followed], the second [followed, missed, missed].
    instruction = [1, 1, 1, 0, 0]  # 3/5 = 0.6
    prompt = [1, 0]                # 1/2 = 0.5
    assert subset_score("ifeval", instruction, prompt_level=prompt) == pytest.approx(55.0)
    with pytest.raises(InvalidInput, match="prompt_level"):
        subset_score("ifeval", instruction)


def test_it_refuses_scores_off_the_metric_scale_or_empty():
    with pytest.raises(InvalidInput):
        subset_score("open", [0, 3])
    with pytest.raises(InvalidInput):
        subset_score("mcq", [2])
    with pytest.raises(InvalidInput, match="empty"):
        subset_score("mcq", [])
    with pytest.raises(InvalidInput):
        subset_score("mcq", [None, 1])


def test_rank_agreement_finds_the_papers_diverging_rankings():
    # SpokenQA (KVoiceBench) against audio understanding (KMMAU), Table 1.
    kvb = dict(zip(MODELS, SEED["table1"]["KVoiceBench"], strict=True))
    kmmau = dict(zip(MODELS, SEED["table1"]["KMMAU"], strict=True))
    result = rank_agreement(kvb, kmmau)
    assert result["n"] == 8 and result["left_out"] == []
    assert result["ranks"]["Raon-Speech"] == {"a": 1, "b": 1}
    assert result["ranks"]["Step-Audio 2 Mini"] == {"a": 6, "b": 3}
    # Qwen2.5-Omni and MiniCPM-o 4.5 tie on KMMAU (62.9): both rank 4.
    assert result["ranks"]["Qwen2.5-Omni"]["b"] == result["ranks"]["MiniCPM-o 4.5"]["b"] == 4
    assert 0 < result["spearman"]["rho"] < 1 and 0 < result["kendall"]["tau"] < 1
    assert result["spearman"]["rho"] != pytest.approx(1.0)


def test_identical_rankings_agree_perfectly_and_reversed_ones_not_at_all():
    a = {"x": 3, "y": 2, "z": 1}
    assert rank_agreement(a, {"x": 30, "y": 20, "z": 10})["spearman"]["rho"] == pytest.approx(1.0)
    assert rank_agreement(a, {"x": 1, "y": 2, "z": 3})["kendall"]["tau"] == pytest.approx(-1.0)


def test_rank_agreement_leaves_out_models_scored_on_one_side_only():
    result = rank_agreement({"x": 3, "y": 2, "z": 1, "w": 0}, {"x": 3, "y": 1, "z": 2})
    assert result["left_out"] == ["w"] and result["n"] == 3
    with pytest.raises(InvalidInput):
        rank_agreement({"x": 1, "y": 2}, {"x": 1, "y": 2})


def test_a_paired_bootstrap_separates_a_real_gap_from_noise():
    a = [1, 1, 1, 0, 1, 1, 0, 1, 1, 1] * 20   # 0.8
    b = [0, 1, 0, 0, 1, 0, 0, 1, 0, 1] * 20   # 0.4
    real = paired_bootstrap(a, b, resamples=2000, seed=1)
    assert real["mean_diff"] == pytest.approx(0.4)
    assert 0 < real["ci_low"] < 0.4 < real["ci_high"]
    assert real["p"] < 0.01
    same = paired_bootstrap(a, a[5:] + a[:5], resamples=2000, seed=1)
    assert same["ci_low"] < 0 < same["ci_high"]


def test_the_paired_bootstrap_is_reproducible_for_a_seed():
    a, b = [1, 0, 1, 1, 0, 1], [0, 0, 1, 0, 1, 1]
    assert paired_bootstrap(a, b, resamples=500, seed=3) == paired_bootstrap(a, b, resamples=500, seed=3)


def test_the_paired_bootstrap_refuses_unpaired_items():
    with pytest.raises(InvalidInput, match="same items"):
        paired_bootstrap([1, 0, 1], [1, 0])


@pytest.mark.parametrize(("n", "verdict"), [(4, "too_few"), (5, "too_few"), (6, "clear"), (10, "clear")])
def test_identical_differences_need_six_items_before_they_are_beyond_noise(n, verdict):
    result = paired_comparison([1.0] * n, [0.0] * n, resamples=2000)  # 2**10 < 2000: every flip counted

    assert result["verdict"] == verdict and result["mean_diff"] == 1.0
    if verdict == "clear":
        assert result["p"] == pytest.approx(2 / 2**n)  # the exact sign-flip test: all of one sign, either way


def test_no_item_differing_is_within_noise_and_ties_do_not_count_as_evidence():
    assert paired_comparison([0.5] * 8, [0.5] * 8)["verdict"] == "noise"
    # One item differs among twenty ties: p = 1 (the flip of one sign is as likely as not).
    result = paired_comparison([1.0] + [0.0] * 19, [0.0] * 20, resamples=1000)
    assert result["verdict"] == "noise" and result["p"] == pytest.approx(1.0)


def test_a_real_gap_is_beyond_noise_by_both_the_interval_and_the_test():
    a, b = [1.0] * 27 + [0.0] * 3, [1.0] * 9 + [0.0] * 21

    result = paired_comparison(a, b, resamples=2000, seed=1)

    assert result["verdict"] == "clear" and result["p"] < 0.01 and result["ci_low"] > 0.3


def test_on_a_large_run_the_sign_flip_p_takes_its_normal_approximation_and_agrees_with_resampling():
    import numpy as np
    from scipy import stats

    from apps.evaluation import aggregate

    rng = np.random.default_rng(4)
    a, b = rng.binomial(1, 0.52, 3000).astype(float), rng.binomial(1, 0.48, 3000).astype(float)
    differing = (a - b)[a != b]
    assert differing.size > aggregate.SIGN_FLIP_NORMAL_ABOVE

    result = paired_comparison(a, b, resamples=1000)

    resampled = stats.permutation_test((differing,), np.sum, permutation_type="samples", n_resamples=20000,
                                       rng=np.random.default_rng(0)).pvalue
    assert result["p"] == pytest.approx(resampled, abs=0.01)
