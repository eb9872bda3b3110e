"""KMMAU through score_response: MMAU's matching, as apps.authoring.scoring already implements it (the
words of the correct choice all in the answer, none of the words only wrong choices have). The item needs
"answer" and "choices"; the subset score is the unweighted mean over capabilities (aggregate.KMMAU_CAPABILITIES)."""

from apps.authoring.scoring import matches
from apps.core.errors import InvalidInput
from apps.evaluation.scoring.result import Scored

VERSION = "kmmau-mmau-match-1"


def score(item: dict, response: str, *, language: str) -> Scored:
    choices = item.get("choices")
    if not isinstance(choices, list) or not choices:
        raise InvalidInput("a KMMAU item needs its choices", field="choices")
    answer = str(item.get("answer", ""))
    correct = matches(answer, response, [str(c) for c in choices])
    return Scored(score=float(correct), detail={"matched": correct, "answer": answer}, evaluator="kmmau",
                  version=VERSION)
