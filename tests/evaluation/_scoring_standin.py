"""TEMPORARY, tests only: stand-ins for the parts of eval-scorers' apps.evaluation.scoring and aggregate
that have not landed yet, installed by conftest.py only for what is missing (a metric whose evaluator "is not
written yet", a module not there). Delete when that branch is complete."""

import re
import sys
import types
from dataclasses import dataclass

METRICS = {"sd-qa": "qa", "mmsu": "mcq", "openbookqa": "mcq", "commoneval": "open", "alpacaeval": "open",
           "wildvoice": "open", "ifeval": "ifeval", "advbench": "refusal", "bbh": "bbh"}


@dataclass(frozen=True)
class Scored:
    score: float | None
    detail: dict
    evaluator: str
    version: str


def metric_for(subset: str) -> str:
    return METRICS[subset.lower()]


def score_response(metric, item, response, *, language):
    if metric == "open":
        return Scored(None, {}, "judge-needed", "0")
    if metric == "mcq":
        found = re.search(r"\b([A-D])\b", response)
        chosen = found.group(1) if found else None
        return Scored(float(chosen == item["answer"]), {"extracted": chosen}, "standin-mcq", "0")
    for ref in [item["answer"], *item.get("aliases", [])]:
        if ref and ref.lower() in response.lower():
            return Scored(1.0, {"matched": ref}, "standin-qa", "0")
    return Scored(0.0, {"matched": None}, "standin-qa", "0")


def subset_score(metric, scores, *, prompt_level=None):
    return 100 * sum(scores) / len(scores)


def install():
    try:
        import apps.evaluation.scoring as scoring
    except ImportError:
        scoring = types.ModuleType("apps.evaluation.scoring")
        scoring.Scored, scoring.metric_for, scoring.score_response = Scored, metric_for, score_response
        sys.modules["apps.evaluation.scoring"] = scoring
    else:
        from apps.core.errors import InvalidInput

        real = scoring.score_response

        def score_or_standin(metric, item, response, *, language):
            try:
                return real(metric, item, response, language=language)
            except InvalidInput as exc:
                if "not written yet" not in str(exc):
                    raise
                return score_response(metric, item, response, language=language)

        scoring.score_response = score_or_standin
    try:
        import apps.evaluation.aggregate  # noqa: F401
    except ImportError:
        aggregate = types.ModuleType("apps.evaluation.aggregate")
        aggregate.subset_score = subset_score
        sys.modules["apps.evaluation.aggregate"] = aggregate
