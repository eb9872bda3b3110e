"""From item scores to the leaderboard's numbers, the way seed 000 computes them (no database here).

- subset_score: one subset's 0-100 score from its items' scores (see its docstring for the inputs per metric).
- benchmark_score: a benchmark row of Table 1, the plain mean of its subsets' scores (VoiceBench and
  KVoiceBench over nine subsets, OpenAudioBench and KOpenAudioBench over four, KMMAU over nine capabilities).
  Checked against the paper in tests/evaluation/test_aggregate.py: Table 5's subset rows give Table 1's rows.
- rank_agreement: how two rankings of the same models agree (Spearman and Kendall, scipy), with each
  model's rank on each (the paper's "SpokenQA and audio understanding rankings diverge").
- paired_bootstrap: the mean difference of two runs on the same items, with a 95% bootstrap confidence
  interval (scipy), so a leaderboard gap can be told from noise."""

import math

import numpy as np
from django.utils.translation import gettext
from scipy import stats

from apps.core.errors import InvalidInput
from apps.sources import catalogue

# The subsets each mean averages, from the catalogue. OpenAudioBench's AlpacaEval is the
# complete set (seed 000 §4.2: 614 KAlpacaEval prompts; VoiceBench's alpacaeval_full); scores stored under the
# old name count for it (SUBSET_ALIASES).
VOICEBENCH_SUBSETS = catalogue.averaged(catalogue.VOICEBENCH)
OPENAUDIOBENCH_SUBSETS = catalogue.averaged(catalogue.OPENAUDIOBENCH)
SUBSET_ALIASES = catalogue.aliases()
# The nine capabilities of KMMAU (apps.authoring.capabilities.Capability values), averaged unweighted.
KMMAU_CAPABILITIES = ("age", "gender", "num_speakers", "word_order", "word_frequency", "fact_extraction",
                      "topic_summary", "role_profession", "general_counting")
BENCHMARK_SUBSETS = {
    "voicebench": VOICEBENCH_SUBSETS,
    "openaudiobench": OPENAUDIOBENCH_SUBSETS,
    "kmmau": KMMAU_CAPABILITIES,
}

_ACCURACY = ("mcq", "qa", "bbh", "refusal", "kmmau")


def _numbers(values, what: str) -> np.ndarray:
    try:
        array = np.asarray(list(values), dtype=float)
    except (TypeError, ValueError):
        raise InvalidInput(gettext("%(what)s must be numbers") % {"what": what}, field=what) from None
    if array.size == 0:
        raise InvalidInput(gettext("%(what)s is empty: there is nothing to score") % {"what": what}, field=what)
    if not np.all(np.isfinite(array)):
        raise InvalidInput(gettext(
            "%(what)s holds a missing or infinite value (an unscored item?)"
        ) % {"what": what}, field=what)
    return array


def subset_score(metric: str, scores: list[float], *, prompt_level: list[float] | None = None) -> float:
    """A subset's score on the 0-100 scale of seed 000 Table 5.

    mcq, qa, bbh, kmmau: `scores` are the items' 0/1 scores; accuracy x 100.
    refusal: `scores` are the items' 0/1 refusals; refusal rate x 100.
    open: `scores` are the judge's 1-5 ratings (every sample of every item, as VoiceBench averages them, or
        one mean per item when every item has the same number of samples); mean x 20.
    ifeval: `scores` are instruction-level results (0/1, one per instruction of every item) and
        `prompt_level` the prompt-level results (0/1, one per item: all its instructions followed); the
        score is the mean of the two accuracies x 100. VoiceBench's IFEval number averages strict and loose
        prompt- and instruction-level accuracy (four numbers); pass strict and loose results concatenated
        in both lists to get exactly that (`ifeval.levels(details)` builds the two lists from the items'
        Scored.detail).
    """
    if metric in _ACCURACY:
        values = _numbers(scores, "scores")
        if not np.all((values >= 0) & (values <= 1)):
            raise InvalidInput(gettext("%(metric)s item scores must lie between 0 and 1") % {"metric": metric}, field="scores")
        return float(values.mean() * 100)
    if metric == "open":
        values = _numbers(scores, "scores")
        if not np.all((values >= 1) & (values <= 5)):
            raise InvalidInput(gettext("open-ended judge ratings must lie between 1 and 5"), field="scores")
        return float(values.mean() * 20)
    if metric == "ifeval":
        if prompt_level is None:
            raise InvalidInput(gettext("ifeval needs prompt_level (one 0/1 per item) besides the instruction-level scores"),
                               field="prompt_level")
        instruction = _numbers(scores, "scores")
        prompt = _numbers(prompt_level, "prompt_level")
        if prompt.size > instruction.size:
            raise InvalidInput(gettext("ifeval has more prompt-level results than instruction-level ones: every item has "
                               "at least one instruction"), field="prompt_level")
        return float((prompt.mean() + instruction.mean()) / 2 * 100)
    raise InvalidInput(gettext("unknown metric %(metric)r") % {"metric": metric}, field="metric")


def benchmark_score(subset_scores: dict[str, float], subsets: tuple[str, ...]) -> float:
    """The mean of the named subsets' scores; refuses when one is missing (a benchmark row over fewer
    subsets than its definition would not be the benchmark's score). A score under an old subset name
    (SUBSET_ALIASES) counts for the name it stands for."""
    if not subsets:
        raise InvalidInput(gettext("a benchmark needs at least one subset"), field="subsets")
    subset_scores = {**{SUBSET_ALIASES[k]: v for k, v in subset_scores.items() if k in SUBSET_ALIASES},
                     **{k: v for k, v in subset_scores.items() if k not in SUBSET_ALIASES}}  # the new name wins
    missing = [name for name in subsets if subset_scores.get(name) is None]
    if missing:
        raise InvalidInput(gettext(
            "cannot average the benchmark: no score for %(missing)s"
        ) % {"missing": ', '.join(missing)}, field="subset_scores")
    return float(np.mean([float(subset_scores[name]) for name in subsets]))


def _ranks(values: np.ndarray) -> np.ndarray:
    """1 = best; tied models share the better rank (1, 2, 2, 4)."""
    return stats.rankdata(-values, method="min").astype(int)


def _finite(value) -> float | None:
    value = float(value)
    return None if math.isnan(value) else value


def rank_agreement(a: dict[str, float], b: dict[str, float]) -> dict:
    """Spearman's rho and Kendall's tau (tau-b) between two scorings of the same models, with each model's
    rank on each (1 = best). Only models scored on both count; the others are listed in `left_out`."""
    models = [m for m in a if m in b and a[m] is not None and b[m] is not None]
    left_out = sorted((set(a) | set(b)) - set(models))
    if len(models) < 3:
        raise InvalidInput(gettext(
            "rank correlation needs at least three models scored on both; %(models_count)s are"
        ) % {"models_count": len(models)},
                           field="models")
    xa = np.array([float(a[m]) for m in models])
    xb = np.array([float(b[m]) for m in models])
    spearman = stats.spearmanr(xa, xb)
    kendall = stats.kendalltau(xa, xb)
    ranks_a, ranks_b = _ranks(xa), _ranks(xb)
    return {
        "n": len(models),
        "spearman": {"rho": _finite(spearman.statistic), "p": _finite(spearman.pvalue)},
        "kendall": {"tau": _finite(kendall.statistic), "p": _finite(kendall.pvalue)},
        "ranks": {m: {"a": int(ra), "b": int(rb)} for m, ra, rb in zip(models, ranks_a, ranks_b, strict=True)},
        "left_out": left_out,
    }


def paired_bootstrap(a: list[float], b: list[float], *, resamples: int = 10000, seed: int = 0,
                     confidence: float = 0.95) -> dict:
    """The mean of a - b over paired items (the same items, in the same order, scored for two runs) and its
    percentile bootstrap confidence interval: items are resampled with replacement, pairs kept together.
    Results are in the units of the inputs (item scores 0..1 give a difference in 0..1; multiply by 100 for
    points). Deterministic for a given seed. `p` is the two-sided bootstrap share of resampled differences on
    the other side of zero (how often noise alone could flip the sign)."""
    xa, xb = _numbers(a, "a"), _numbers(b, "b")
    if xa.size != xb.size:
        raise InvalidInput(gettext(
            "paired scores must cover the same items: %(size)s against %(size2)s"
        ) % {"size": xa.size, "size2": xb.size}, field="b")
    if xa.size < 2:
        raise InvalidInput(gettext("a bootstrap needs at least two paired items"), field="a")
    if resamples < 100:
        raise InvalidInput(gettext("use at least 100 resamples"), field="resamples")
    diff = xa - xb
    observed = float(diff.mean())
    if np.all(diff == diff[0]):  # every pair differs by the same amount: no spread to resample
        low = high = observed
        p = 0.0 if observed != 0 else 1.0
    else:
        rng = np.random.default_rng(seed)
        result = stats.bootstrap((diff,), np.mean, n_resamples=resamples, confidence_level=confidence,
                                 method="percentile", rng=rng, batch=1000)
        low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
        distribution = result.bootstrap_distribution
        if observed == 0:
            p = 1.0
        else:
            flipped = np.mean(distribution <= 0) if observed > 0 else np.mean(distribution >= 0)
            p = float(min(1.0, 2 * flipped))
    return {"n": int(xa.size), "mean_a": float(xa.mean()), "mean_b": float(xb.mean()), "mean_diff": observed,
            "ci_low": low, "ci_high": high, "confidence": confidence, "resamples": resamples, "seed": seed, "p": p}


# Below this many paired items a comparison says "too few items to tell": even n identical differences give an
# exact sign-flip p of 2 / 2**n, which first falls under 0.05 at n = 6 (5 items: 0.0625).
MIN_PAIRED_ITEMS = 6
CLEAR, NOISE, TOO_FEW = "clear", "noise", "too_few"
SIGN_FLIP_NORMAL_ABOVE = 500  # differing items beyond which the sign-flip test takes its normal approximation


def paired_comparison(a: list[float], b: list[float], *, resamples: int = 10000, seed: int = 0,
                      confidence: float = 0.95) -> dict:
    """Two runs' scores on the same items, compared: the mean difference, its paired bootstrap interval
    (paired_bootstrap), the two-sided p of a paired sign-flip test (scipy's permutation_test: each item's
    difference keeps or flips its sign; exact while 2**n <= resamples, else `resamples` random flips, and its
    normal approximation beyond SIGN_FLIP_NORMAL_ABOVE differing items), and a verdict:

    - "too_few" under MIN_PAIRED_ITEMS pairs (no interval or p is computed: no outcome could tell);
    - "clear" when the test rejects equal means at 1 - confidence and the interval excludes 0;
    - "noise" otherwise.

    The test is what guards small and tied samples: n identical differences have no spread, so the bootstrap's
    interval shrinks to a point and would exclude 0 on four items; the sign-flip test counts the 2**n ways the
    signs could have fallen and gives p = 2 / 2**n. Zero differences (ties) weigh nothing in either direction."""
    xa, xb = _numbers(a, "a"), _numbers(b, "b")
    if xa.size != xb.size:
        raise InvalidInput(gettext(
            "paired scores must cover the same items: %(size)s against %(size2)s"
        ) % {"size": xa.size, "size2": xb.size}, field="b")
    out = {"n": int(xa.size), "mean_a": float(xa.mean()), "mean_b": float(xb.mean()),
           "mean_diff": float((xa - xb).mean()), "ci_low": None, "ci_high": None, "p": None, "verdict": TOO_FEW}
    if xa.size < MIN_PAIRED_ITEMS:
        return out
    interval = paired_bootstrap(xa, xb, resamples=resamples, seed=seed, confidence=confidence)
    # A tie flips to itself, so only the items that differ are flipped, and their sum orders the flips as the mean
    # over all items does: the same p, in a fraction of the work on a large run.
    differing = (xa - xb)[xa != xb]
    if differing.size < 2:  # nothing, or one item, differs: either sign is as likely as the other
        p = 1.0
    elif differing.size > SIGN_FLIP_NORMAL_ABOVE:
        # Many differing items: the flipped sum is a sum of many independent +-|d| terms, normal by the central
        # limit theorem with variance sum(d**2); the same p as resampling, without 10,000 passes over the items.
        p = float(2 * stats.norm.sf(abs(differing.sum()) / np.sqrt(np.square(differing).sum())))
    else:
        test = stats.permutation_test((differing,), np.sum, permutation_type="samples", alternative="two-sided",
                                      n_resamples=resamples, rng=np.random.default_rng(seed), batch=1000)
        p = float(test.pvalue)
    excludes_zero = interval["ci_low"] > 0 or interval["ci_high"] < 0
    verdict = CLEAR if p < 1 - confidence and excludes_zero else NOISE
    return {**out, "ci_low": interval["ci_low"], "ci_high": interval["ci_high"], "p": p, "verdict": verdict}
