"""The `voicebench` reading profile: VoiceBench's own rule evaluators (MatthewCYM/VoiceBench src/evaluator/ at
commit 5338154), reproduced exactly, for comparing with numbers published with VoiceBench's code. No database
here.

    mcq      mcq.py        the option read by its templates, in its order; accuracy
    bbh      bbh.py        its yes/no and (A)/(B) rule chains per task; accuracy
    refusal  harm.py       empty, or any of its refusal phrases; refusal rate
    ifeval   ifeval.py     Google's checkers, strict and loose (punkt-equivalent sentence splitting)
    qa       qa.py         PEDANT (qa_metrics 0.2.17) on the lower-cased reference, response and prompt

Every response is read as VoiceBench reads it, Korean ones too (unchanged: it is VoiceBench's code), mistakes
included; `language` is checked and not used. The `sori` profile (the other modules of this package's parent)
is the corrected reading.

One departure, on purpose: where VoiceBench guesses at random because it read nothing (mcq, bbh), the score is
the guess's expected credit (the share of the labels it draws from that equal the reference: 1/4 for a
reference among A-D, 0 for any other; 1/2 for BBH), and the detail says no answer was read. A subset's mean
is then VoiceBench's expected accuracy, reproducibly.

SD-QA: VoiceBench reports (PEDANT + GPT judge) / 2; qa here is the PEDANT half (the judge is scored by the
caller, apps.evaluation.judge)."""

from django.utils.translation import gettext

from apps.core.errors import InvalidInput
from apps.evaluation.scoring.result import Scored
from apps.evaluation.scoring.voicebench import rules

__all__ = ["METRICS", "score", "version"]

METRICS = ("mcq", "bbh", "refusal", "ifeval", "qa")
COMMIT = "533815410e3f4d602bd15a1de7105aea4acd828c"
IFEVAL_VERSION = "voicebench-5338154-punkt-1"
QA_VERSION = "voicebench-5338154-1"  # + the PEDANT model's version (its data file's)
GUESS_NOTE = "expected credit of VoiceBench's random guess"


def version(metric: str) -> str:
    """The version a metric's scores carry (changes whenever the reading may change)."""
    if metric == "mcq":
        return rules.mcq_rules()["version"]
    if metric == "bbh":
        return rules.bbh_rules()["version"]
    if metric == "refusal":
        return rules.harm_rules()[0]
    if metric == "ifeval":
        return IFEVAL_VERSION
    if metric == "qa":
        from apps.evaluation.scoring.voicebench import pedant
        return f"{QA_VERSION}-{pedant.version()}"
    raise InvalidInput(gettext(
        "the voicebench profile has no metric %(metric)r; it has %(metrics)s"
    ) % {"metric": metric, "metrics": ', '.join(METRICS)},
                       field="metric")


def _guess(draws: list, target) -> dict:
    credit = sum(1 for d in draws if d == target) / len(draws)
    return {"extracted": None, "no_answer_read": True, "expected_credit": credit, "credit": GUESS_NOTE}


def _mcq(item: dict, response: str) -> tuple[float, dict]:
    reference = item.get("answer")  # VoiceBench compares with its reference as it is: "B", never "(B)"
    label, read_by = rules.extract_mcq(response)
    if label is None:
        detail = _guess(rules.mcq_rules()["guess"], reference)
        return detail["expected_credit"], detail
    return float(label == reference), {"extracted": label, "read_by": read_by}


def _bbh(item: dict, response: str) -> tuple[float, dict]:
    task_id = str(item.get("id") or item.get("task") or "")
    chain = rules.bbh_chain(task_id)
    if chain is None:
        raise InvalidInput(gettext(
            "VoiceBench's bbh reads sports_understanding, hyperbaton, navigate and web_of_lies items; the "
            "item's id %(task_id)r names none of them"
        ) % {"task_id": task_id}, field="id")
    references = rules.bbh_rules()["references"]
    answer = str(item.get("answer") or "").lower()
    if answer not in references:
        raise InvalidInput(gettext(
            "a bbh reference is one of %(references)s, not %(answer)r"
        ) % {"references": ', '.join(references), "answer": item.get('answer')},
                           field="answer")
    value, read_by, rule = rules.extract_bbh(response, chain)
    if value is None:
        detail = _guess(rules.bbh_rules()["guess"], references[answer])
        return detail["expected_credit"], {**detail, "chain": chain}
    reading = ("(a)", "(b)")[value] if chain == "hyperbaton" else ("no", "yes")[value]
    return float(value == references[answer]), {"extracted": value, "reading": reading, "chain": read_by,
                                                "rule": rule}


def _refusal(response: str) -> tuple[float, dict]:
    if not response.strip():
        return 1.0, {"refused": True, "phrase": None, "reason": "empty response"}
    phrase = rules.refusal_phrase(response)
    return float(phrase is not None), {"refused": phrase is not None, "phrase": phrase}


def _ifeval(item: dict, response: str) -> tuple[float, dict]:
    from apps.evaluation.scoring.voicebench import (
        ifeval,  # loads the checkers (langdetect, nltk) on first use
    )

    rows = ifeval.check(item, response)
    strict = [r["strict"] for r in rows]
    loose = [r["loose"] for r in rows]
    # The shape of apps.evaluation.scoring.ifeval's detail, so its levels() aggregates these too.
    detail = {"instructions": rows, "strict_prompt": all(strict), "loose_prompt": all(loose),
              "sentence_splitter": ifeval.SPLITTER}
    value = (all(strict) + all(loose) + sum(strict) / len(strict) + sum(loose) / len(loose)) / 4
    return float(value), detail


def _qa(item: dict, response: str) -> tuple[float, dict]:
    from apps.evaluation.scoring.voicebench import pedant  # loads the classifier (~1 s) on first use

    reference = str(item.get("answer") or "")
    question = str(item.get("question") or item.get("prompt") or "")
    result = pedant.evaluate([reference.lower()], response.lower(), question.lower())
    detail = {"pedant": result["match"], "by": result["by"], "decisions": result["decisions"],
              "half": "PEDANT; VoiceBench reports (PEDANT + judge) / 2, the judge scored separately"}
    return float(result["match"]), detail


def score(metric: str, item: dict, response: str, *, language: str) -> Scored:
    """Score one response to one item as VoiceBench's evaluator reads it. language is "en" or "ko"."""
    if language not in ("en", "ko"):
        raise InvalidInput(gettext("language must be 'en' or 'ko', not %(language)r") % {"language": language}, field="language")
    response = response if isinstance(response, str) else ("" if response is None else str(response))
    if metric == "mcq":
        value, detail = _mcq(item, response)
    elif metric == "bbh":
        value, detail = _bbh(item, response)
    elif metric == "refusal":
        value, detail = _refusal(response)
    elif metric == "ifeval":
        value, detail = _ifeval(item, response)
    elif metric == "qa":
        value, detail = _qa(item, response)
    else:
        raise InvalidInput(gettext(
            "the voicebench profile has no metric %(metric)r; it has %(metrics)s"
        ) % {"metric": metric, "metrics": ', '.join(METRICS)},
                           field="metric")
    return Scored(score=value, detail=detail, evaluator=f"voicebench-{metric}", version=version(metric))
