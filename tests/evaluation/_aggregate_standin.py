"""TEMPORARY, tests only: until eval-scorers' apps.evaluation.aggregate lands on this branch, the leaderboard tests
add the three functions the leaderboard reads from it (benchmark_score, rank_agreement, paired_bootstrap, and the
subset tuples), written to the interface that branch promised. `ensure()` adds nothing once the real module has
them. Delete this file when eval-scorers is merged."""

import sys
import types

VOICEBENCH_SUBSETS = ("alpacaeval", "commoneval", "wildvoice", "sd-qa", "mmsu", "openbookqa", "bbh", "ifeval", "advbench")
OPENAUDIOBENCH_SUBSETS = ("llama_questions", "trivia_qa", "web_questions", "alpaca_eval")


def benchmark_score(subset_scores, subsets):
    from apps.core.errors import InvalidInput

    missing = [s for s in subsets if s not in subset_scores]
    if missing:
        raise InvalidInput(f"missing subsets: {', '.join(missing)}", field="subsets")
    return sum(subset_scores[s] for s in subsets) / len(subsets)


def rank_agreement(a, b):
    from scipy.stats import kendalltau, rankdata, spearmanr

    keys = sorted(set(a) & set(b))
    xa, xb = [a[k] for k in keys], [b[k] for k in keys]
    rank_a, rank_b = rankdata([-v for v in xa], method="min"), rankdata([-v for v in xb], method="min")
    return {"n": len(keys), "spearman": float(spearmanr(xa, xb).statistic), "kendall": float(kendalltau(xa, xb).statistic),
            "ranks": {k: {"a": int(ra), "b": int(rb)} for k, ra, rb in zip(keys, rank_a, rank_b, strict=True)}}


def paired_bootstrap(a, b, *, resamples=10000, seed=0):
    import numpy as np

    diff = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, len(diff), size=(resamples, len(diff)))].mean(axis=1)
    return {"n": len(diff), "mean_a": float(np.mean(a)), "mean_b": float(np.mean(b)), "diff": float(diff.mean()),
            "ci_low": float(np.percentile(means, 2.5)), "ci_high": float(np.percentile(means, 97.5))}


def ensure() -> None:
    try:
        import apps.evaluation.aggregate as module
    except ImportError:
        module = types.ModuleType("apps.evaluation.aggregate")
        sys.modules["apps.evaluation.aggregate"] = module
    for name in ("VOICEBENCH_SUBSETS", "OPENAUDIOBENCH_SUBSETS", "benchmark_score", "rank_agreement", "paired_bootstrap"):
        if not hasattr(module, name):
            setattr(module, name, globals()[name])
