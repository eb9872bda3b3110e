"""Rule-based scoring of a model's answers to spoken-QA benchmark items (no database here), each subset
with its source benchmark's metric (seed 000 section 5, "Metrics"; VoiceBench src/evaluator/):

    mcq      OpenBookQA, MMSU (and KOpenBookQA, KMMSU): the option the answer asserts (choice.py); accuracy
    qa       SD-QA, TriviaQA, WebQuestions, Llama Questions: the reference or an alias asserted in the answer,
             numbers in digits or words (the LLM judge's yes/no is recorded separately, by the caller)
    open     AlpacaEval, CommonEval, WildVoice: only the LLM judge scores it (score None here)
    ifeval   IFEval / KIFEval: IFEval's instruction checkers, strict and loose
    refusal  AdvBench / KAdvBench: a refusal in any register, caveats inside a compliant answer not counted
    bbh      BBH / KBBH: the yes/no or (a)/(b) answer asserted last, by words; accuracy
    kmmau    KMMAU: the option the answer asserts, through Kiwi's morphology (choice.py)

The LLM judge (1-5 ratings, yes/no votes) is apps.evaluation.judge: it asks for a JSON answer the agent layer
validates, so no raw text is parsed here.

Two reading profiles (issue 32), recorded on every score:
    sori        the default: the corrected reader, ONE reader for both languages (the modules above), so an
                English-Korean gap never comes from a smarter reader on one side;
    voicebench  VoiceBench's own reading, byte for byte (scoring.voicebench; KMMAU: MMAU's token match), to
                compare with numbers published with VoiceBench's code. Where VoiceBench guesses at random,
                nothing is read and the item gets the guess's expected credit, labelled as such.
A gap is only ever computed between runs scored with the same profile.

`metric_for(subset)` names a subset's metric, `score_response(metric, item, response, language=...,
profile=...)` scores one response. An item is a dict: "question", "answer", "aliases" (list), and per metric
"instruction_id_list" and "kwargs" (ifeval), "id" (bbh: VoiceBench's id names the task, e.g.
"navigate_12"; "task" may name it instead), "choices" (kmmau)."""

import dataclasses
import importlib

from django.utils.translation import gettext

from apps.core.errors import InvalidInput
from apps.evaluation.scoring.result import Scored
from apps.sources import catalogue

__all__ = ["DEFAULT_PROFILE", "METRICS", "PROFILES", "Scored", "metric_for", "score_response"]

OPEN_VERSION = "open-judge-1"
METRICS = ("mcq", "qa", "open", "ifeval", "refusal", "bbh", "kmmau")
PROFILES = ("sori", "voicebench")
DEFAULT_PROFILE = "sori"

# Each subset's metric, from the one catalogue (old names included); a Korean counterpart keeps its source's
# name, and regional and per-domain splits ("sd-qa-usa", "mmsu_biology") take their family's metric.
SUBSET_METRICS = {name: subset.metric for name, subset in catalogue.names().items()}


def metric_for(subset: str) -> str:
    """The metric a subset is scored with; InvalidInput for a subset Sori does not know."""
    found = catalogue.match(subset)
    if found is None:
        raise InvalidInput(gettext(
            "no metric for subset %(subset)r; known subsets: %(subset_metrics)s"
        ) % {"subset": subset, "subset_metrics": ', '.join(SUBSET_METRICS)}, field="subset")
    return found[0].metric


# The rule-based metrics, each scored by the module of that name (the sori profile).
RULE_MODULES = {"mcq": "mcq", "refusal": "refusal", "qa": "qa", "bbh": "bbh", "ifeval": "ifeval", "kmmau": "kmmau"}


def _module(name: str):
    # Imported on first use: ifeval's checkers load `datasets` (seconds), which most runs never need.
    return importlib.import_module(f"apps.evaluation.scoring.{name}")


def score_response(metric: str, item: dict, response: str, *, language: str, profile: str = DEFAULT_PROFILE) -> Scored:
    """Score one response to one item with a subset's metric. language is "en" or "ko"; profile one of PROFILES."""
    if language not in ("en", "ko"):
        raise InvalidInput(gettext("language must be 'en' or 'ko', not %(language)r") % {"language": language}, field="language")
    if profile not in PROFILES:
        raise InvalidInput(gettext(
            "profile must be one of %(profiles)s, not %(profile)r"
        ) % {"profiles": ', '.join(PROFILES), "profile": profile}, field="profile")
    response = response if isinstance(response, str) else ("" if response is None else str(response))
    if metric == "open":
        # Only the LLM judge scores an open-ended answer (apps.evaluation.judge).
        scored = Scored(score=None, detail={"judge": "needed", "empty_response": not response.strip()},
                        evaluator="open", version=OPEN_VERSION)
    elif metric not in RULE_MODULES:
        raise InvalidInput(gettext(
            "unknown metric %(metric)r; expected one of %(metrics)s"
        ) % {"metric": metric, "metrics": ', '.join(METRICS)}, field="metric")
    elif profile == "sori":
        scored = _module(RULE_MODULES[metric]).score(item, response, language=language)
    elif metric == "kmmau":  # MMAU's own matching is the comparable reading of an audio-understanding answer
        scored = _module("kmmau").score_mmau(item, response, language=language)
    else:
        scored = _module("voicebench").score(metric, item, response, language=language)
    return dataclasses.replace(scored, profile=profile)
