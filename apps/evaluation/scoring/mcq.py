"""Multiple choice (OpenBookQA, MMSU and KOpenBookQA, KMMSU): which option a free-text answer chose.

VoiceBench's rule (src/evaluator/mcq.py): lower-case the response, drop a leading "<1>"/"<2>"/"<3>" turn
marker, then try its answer templates in order, each with every label; the first template found decides.
Failing that, a response that is just a label, or starts with a label and ".", ",", ":" or ")", decides.
The templates are data (data/mcq_templates.yaml, versioned).

Korean items carry the labels hypertranslation wrote (ㄱ/ㄴ/ㄷ/ㄹ for A/B/C/D, rule ht-mc-labels); for them
the Korean phrasings ("정답은 ㄴ입니다", "ㄴ번", "답: ㄷ") are tried first, and a label read out by its name
(기역, 니은, 디귿, 리을: how the normalisation rulebook has TTS say them) counts as that label.

One difference from VoiceBench, on purpose: when no option can be read, VoiceBench picks one at random;
here the response scores 0 and the detail says nothing was extracted, so a score is reproducible and the
failure rate can be shown. (Seed 000's Korean multiple-choice scores fall far below chance, e.g. 6.5 on
KOpenBookQA, which a random fallback could not produce.)"""

import re
import unicodedata
from functools import cache

from apps.evaluation.scoring.result import Scored, data_file

LATIN = ("A", "B", "C", "D", "E")
KOREAN = ("ㄱ", "ㄴ", "ㄷ", "ㄹ", "ㅁ")
# A label read out by its name (normalisation rulebook: "ㄱ." is read "기역.").
KOREAN_NAMES = {"ㄱ": "기역", "ㄴ": "니은", "ㄷ": "디귿", "ㄹ": "리을", "ㅁ": "미음"}
_REFERENCE = re.compile(r"^\(?\s*([A-Ea-eㄱㄴㄷㄹㅁ])\s*\)?\.?$")
_TURN_MARKER = ("<1>", "<2>", "<3>")


@cache
def _templates() -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    rules = data_file("mcq_templates.yaml")
    return rules["version"], tuple(rules["korean"]), tuple(rules["voicebench"])


def version() -> str:
    return _templates()[0]


def reference_label(answer: str) -> str | None:
    """The option label of a reference answer ("B", "(B)", "b.", "ㄴ", "(ㄴ)"), upper-cased; None if the
    reference is not a label."""
    m = _REFERENCE.match(unicodedata.normalize("NFC", (answer or "").strip()))
    return m.group(1).upper() if m else None


def labels_for(reference: str | None, language: str, count: int = 4) -> tuple[str, ...]:
    """The label set an item uses: Korean when its reference is a Korean label (or, lacking a reference,
    when the language is Korean), else Latin. Four labels as VoiceBench reads, five when E/ㅁ is needed."""
    korean = reference in KOREAN if reference else language == "ko"
    labels = KOREAN if korean else LATIN
    if reference in ("E", "ㅁ"):
        count = 5
    return labels[:count]


def extract_choice(response: str, labels: tuple[str, ...]) -> tuple[str | None, str | None]:
    """(label, template) the response chose, or (None, None)."""
    _, korean_templates, voicebench_templates = _templates()
    text = unicodedata.normalize("NFC", response or "").lower()
    if text.startswith(_TURN_MARKER):
        text = text[3:].strip()
    korean = labels[0] == "ㄱ"
    # Each label with the spellings that stand for it in the response.
    spellings = [(label, [label.lower()] + ([KOREAN_NAMES[label]] if korean else [])) for label in labels]
    templates = (korean_templates + voicebench_templates) if korean else voicebench_templates
    for template in templates:
        for label, forms in spellings:
            for form in forms:
                if template.replace("[CHOICE]", form) in text:
                    return label, template
    for label, forms in spellings:
        for form in forms:
            if text == form:
                return label, "(the whole response)"
            for punct in (".", ",", ":", ")"):
                if text.startswith(form + punct):
                    return label, f"[CHOICE]{punct} (at the start)"
    # VoiceBench's last special cases, for option A only.
    if not korean:
        for phrase in ("would be a.", 'would be "a.', "the best option from the given choices would be a scorpion (a)"):
            if phrase in text:
                return "A", phrase
    return None, None


def score(item: dict, response: str, *, language: str) -> Scored:
    reference = reference_label(item.get("answer", ""))
    labels = labels_for(reference, language)
    chosen, template = extract_choice(response, labels)
    detail = {"extracted": chosen, "template": template, "reference": reference, "labels": list(labels)}
    if reference is None:
        detail["problem"] = f"the reference {item.get('answer', '')!r} is not an option label"
    return Scored(score=float(chosen is not None and chosen == reference), detail=detail,
                  evaluator="mcq", version=version())
