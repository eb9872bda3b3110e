"""Multiple choice (OpenBookQA, MMSU and KOpenBookQA, KMMSU): which option a free-text answer chose, read by
the `sori` reader (apps.evaluation.scoring.choice), the same for both languages.

The item's reference is a label ("B", "(B)", "ㄴ", "2", "②"); its options are parsed from the question as
VoiceBench and KVoiceBench write them ("A. shark B. whale", "(A) ...", "ㄱ. 상어 ㄴ. 고래", "1. ... 2. ...", one
per line or inline), or taken from item["choices"], so an answer that gives only an option's text is read.
Labels of any script map by position (a Korean item answered "B" chose ㄴ); the detail records the label in
the reference's script.

When no option can be read, VoiceBench picks one at random; here the response scores 0 and the detail says
nothing was extracted, so a score is reproducible and the failure rate can be shown. VoiceBench's own reading
(its templates, data/voicebench_mcq.yaml) is the `voicebench` profile's (scoring.voicebench)."""

import re
import unicodedata
from functools import lru_cache

from apps.evaluation.scoring import choice
from apps.evaluation.scoring.choice import CIRCLED, DIGITS, KOREAN, KOREAN_NAMES, LATIN, SCRIPTS, Options
from apps.evaluation.scoring.result import Scored

EVALUATOR = "mcq"
_REFERENCE = re.compile(r"^[(\[]?\s*([A-Ja-jㄱㄴㄷㄹㅁㅂㅅㅇㅈㅊ①-⑩]|10|[1-9])\s*[)\]]?\s*(?:\.|번)?$")


def version() -> str:
    return f"mcq-{choice.version()}"


def script_of(label: str) -> str:
    for name, labels in SCRIPTS.items():
        if label in labels:
            return name
    raise ValueError(f"not an option label: {label!r}")


def reference_label(answer: str) -> str | None:
    """The option label of a reference answer ("B", "(B)", "b.", "ㄴ", "(ㄴ)", "2", "(2)", "2번", "②"),
    Latin letters upper-cased; None if the reference is not a label."""
    m = _REFERENCE.match(unicodedata.normalize("NFC", str(answer or "")).strip())
    return m.group(1).upper() if m else None


# An option marker in a question: "A.", "a)", "(A)", "A:", "ㄱ.", "기역." (a normalised transcript reads the
# Korean labels by name), "1.", "(1)", "①", at the start or after a space.
_LABEL_NAMES = {index: name for name, index in reversed(KOREAN_NAMES.items())}


@lru_cache(maxsize=64)
def _marker(script: str, index: int) -> re.Pattern:
    label = SCRIPTS[script][index]
    if script == "circled":
        return re.compile(re.escape(label) + r"\s*")
    if script == "latin":
        spelled = f"[{label}{label.lower()}]"
    elif script == "korean":
        spelled = f"(?:{label}|{_LABEL_NAMES[index]})" if index in _LABEL_NAMES else label
    else:
        spelled = label + r"(?!\d)"
    after = r"[.)](?!\d)" if script == "digit" else r"[.):,]" if script == "korean" else r"[.):]"
    return re.compile(rf"(?:^|(?<=[\s:?(\[/]))(?:\({spelled}\)|{spelled}{after})\s*")


@lru_cache(maxsize=4096)
def parse_options(question: str) -> tuple[str | None, tuple[str, ...]]:
    """(the label script, the option texts in label order) of options written inline in a question, or
    (None, ()) when no run of at least two labels in order is found."""
    text = unicodedata.normalize("NFC", question or "")
    best: tuple[str | None, list[tuple[int, int]]] = (None, [])
    for script, labels in SCRIPTS.items():
        spans, pos = [], 0
        for index in range(len(labels)):
            m = _marker(script, index).search(text, pos)
            if not m:
                break
            spans.append((m.start(), m.end()))
            pos = m.end()
        if len(spans) >= 2 and len(spans) > len(best[1]):
            best = (script, spans)
    script, spans = best
    if script is None:
        return None, ()
    texts = []
    for i, (_, end) in enumerate(spans):
        stop = spans[i + 1][0] if i + 1 < len(spans) else len(text)
        body = text[end:stop]
        if i + 1 == len(spans):
            body = body.split("\n")[0]  # the last option ends its line (an instruction may follow)
        texts.append(re.sub(r"[\s,;]+(?:or|또는)?$", "", body.strip()).strip(" ,;"))
    return script, tuple(texts)


def item_options(item: dict, language: str) -> tuple[str, Options]:
    """(the script the item's labels are written in, its options)."""
    reference = reference_label(item.get("answer", ""))
    parsed_script, texts = parse_options(str(item.get("question") or ""))
    choices = item.get("choices")
    if isinstance(choices, list) and choices:
        texts = tuple(str(c) for c in choices)
    script = (script_of(reference) if reference else None) or parsed_script or (
        "korean" if language == "ko" else "latin")
    count = len(texts) or 4
    if reference:
        count = max(count, SCRIPTS[script].index(reference) + 1)
    count = min(count, len(SCRIPTS[script]))
    texts = tuple(texts[:count]) + (None,) * (count - len(texts))
    numeric = script in ("digit", "circled") or parsed_script in ("digit", "circled")
    negative = choice.is_negative_question(str(item.get("question") or ""))
    return script, Options(count=count, texts=texts, numeric_labels=numeric, negative_question=negative)


def extract_choice(response: str, labels: tuple[str, ...]) -> tuple[str | None, str | None]:
    """(the label the response asserts, the cue that decided), or (None, None): the options are known only
    by their labels (bbh calls this with ("ㄱ", "ㄴ") for KBBH's grammar judgments)."""
    script = script_of(labels[0])
    options = Options(count=len(labels), numeric_labels=script in ("digit", "circled"))
    reading = choice.read(response, options)
    if reading.index is None:
        return None, None
    return labels[reading.index], reading.how


def score(item: dict, response: str, *, language: str) -> Scored:
    reference = reference_label(item.get("answer", ""))
    script, options = item_options(item, language)
    labels = SCRIPTS[script][:options.count]
    reading = choice.read(response, options)
    extracted = labels[reading.index] if reading.index is not None else None
    detail = {"extracted": extracted, "how": reading.how, "reference": reference, "labels": list(labels)}
    if reading.ambiguous:
        detail["ambiguous"] = True
        detail["options"] = [labels[i] for i in reading.ambiguous]
    if reading.negated:
        detail["negated"] = [labels[i] for i in reading.negated]
    if reference is None:
        detail["problem"] = f"the reference {item.get('answer', '')!r} is not an option label"
    return Scored(score=float(extracted is not None and extracted == reference), detail=detail,
                  evaluator=EVALUATOR, version=version())


__all__ = ["CIRCLED", "DIGITS", "KOREAN", "LATIN", "extract_choice", "item_options", "parse_options",
           "reference_label", "score", "version"]
