"""KMMAU through score_response: which of the item's choices the answer asserts. The item needs "answer" (the
correct choice's text) and "choices" (the choices' texts); the subset score is the unweighted mean over
capabilities (aggregate.KMMAU_CAPABILITIES).

`score` is the `sori` reader (apps.evaluation.scoring.choice, the engine multiple choice uses): a choice is
named by its text through Korean morphology (여성입니다, 여성으로 보입니다, 2명입니다, 40대로 추정됩니다), by a
number in digits or words (두 명 = 2명, 마흔다섯 살 = 40대), by an ordinal or a label; a negated choice is not
the answer ("남성이 아니라 여성입니다"), and two asserted choices score 0, marked ambiguous.

`score_mmau` is MMAU's matching, as apps.authoring.scoring implements it (the words of the correct choice all
in the answer, none of the words only wrong choices have): the `voicebench`-style profile, for comparability
with English MMAU numbers."""

import unicodedata

from django.utils.translation import gettext

from apps.authoring.scoring import matches
from apps.core.errors import InvalidInput
from apps.evaluation.scoring import choice
from apps.evaluation.scoring.choice import Options
from apps.evaluation.scoring.result import Scored

EVALUATOR = "kmmau"
VERSION = "kmmau-mmau-match-1"  # score_mmau's version (the `sori` reader's is version())


def version() -> str:
    return f"kmmau-{choice.version()}"


def _choices(item: dict) -> list[str]:
    choices = item.get("choices")
    if not isinstance(choices, list) or not choices:
        raise InvalidInput(gettext("a KMMAU item needs its choices"), field="choices")
    return [str(c) for c in choices]


def _same(a: str, b: str) -> bool:
    def fold(s: str) -> str:
        return " ".join(unicodedata.normalize("NFC", s).casefold().split())

    return fold(a) == fold(b)


def score(item: dict, response: str, *, language: str) -> Scored:
    choices = _choices(item)
    answer = str(item.get("answer", ""))
    reading = choice.read(response, Options(count=len(choices), texts=tuple(choices)))
    extracted = choices[reading.index] if reading.index is not None else None
    detail = {"extracted": extracted, "how": reading.how, "reference": answer, "choices": choices}
    if reading.ambiguous:
        detail["ambiguous"] = True
        detail["options"] = [choices[i] for i in reading.ambiguous]
    if reading.negated:
        detail["negated"] = [choices[i] for i in reading.negated]
    if not any(_same(answer, c) for c in choices):
        detail["problem"] = f"the answer {answer!r} is not one of the choices"
    correct = extracted is not None and _same(extracted, answer)
    return Scored(score=float(correct), detail=detail, evaluator=EVALUATOR, version=version())


def score_mmau(item: dict, response: str, *, language: str) -> Scored:
    """MMAU's whole-token matching (the `voicebench`-style profile)."""
    choices = _choices(item)
    answer = str(item.get("answer", ""))
    correct = matches(answer, response, choices)
    return Scored(score=float(correct), detail={"matched": correct, "answer": answer}, evaluator=EVALUATOR,
                  version=VERSION)
