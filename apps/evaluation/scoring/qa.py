"""Short answer (SD-QA, TriviaQA, WebQuestions, Llama Questions and their Korean counterparts): is the
reference, or one of its aliases, in the response?

English follows the first step of PEDANT (qa-metrics, the matcher VoiceBench's qa evaluator uses): both
texts are lower-cased, stripped of punctuation (any Unicode P* character) and of the articles a/an/the,
spaces collapsed, and the item is correct when a normalised reference is a substring of the normalised
response. PEDANT itself is not used: constructing it downloads its classifier from GitHub and its import
downloads NLTK data, neither possible offline, and it pins scikit-learn 1.3.2. Its classifier only decides
the cases the containment test misses, which the LLM judge (VoiceBench's second qa number, recorded by the
caller) decides here.

Korean: NFC, case-folded, punctuation removed, and spaces ignored on both sides (spacing varies: 세종대왕 /
세종 대왕). Containment already accepts a particle or copula after the noun (네덜란드는, 네덜란드입니다).
Two guards keep short aliases from matching inside other words: an alias of one syllable must be a whole
word or a word followed only by a particle or copula (금 in "금입니다", not in "지금"), and an alias that
starts or ends with a digit must not continue into other digits (7 is not in 17)."""

import re
import string
import unicodedata

from apps.evaluation.scoring.result import Scored

VERSION_EN = "qa-en-1"
VERSION_KO = "qa-ko-1"

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_ASCII_PUNCT = str.maketrans("", "", string.punctuation)
# Particles and copula endings that may follow a noun in an answer (longest first when matching).
PARTICLES = tuple(sorted({
    "이", "가", "은", "는", "을", "를", "의", "에", "에서", "로", "으로", "와", "과", "도", "만", "요", "이요",
    "입니다", "이에요", "예요", "이다", "다", "이죠", "죠", "이야", "야", "라고", "이라고", "랍니다", "이랍니다",
    "인데요", "인데", "이고", "고", "입니다만",
}, key=len, reverse=True))


def _strip_punctuation(text: str) -> str:
    return "".join(" " if unicodedata.category(ch).startswith("P") else ch for ch in text)


def normalise_en(text: str) -> str:
    """PEDANT's normalize_answer: lower, Unicode punctuation out, ASCII punctuation out, articles out, spaces."""
    text = unicodedata.normalize("NFC", str(text)).replace("’", "'").lower()
    text = "".join(ch for ch in text if not unicodedata.category(ch).startswith("P"))
    text = text.translate(_ASCII_PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def normalise_ko(text: str) -> str:
    """Korean words, space-separated: NFC, case-folded, punctuation as spaces, digit groups joined (1,000)."""
    text = unicodedata.normalize("NFC", str(text)).casefold()
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    text = _strip_punctuation(text).translate(str.maketrans(string.punctuation, " " * len(string.punctuation)))
    return " ".join(text.split())


def _korean_match(alias: str, response: str) -> bool:
    alias_words = normalise_ko(alias)
    compact_alias = alias_words.replace(" ", "")
    if not compact_alias:
        return False
    words = normalise_ko(response).split()
    if len(compact_alias) == 1 and not compact_alias.isdigit():
        return any(w == compact_alias or (w.startswith(compact_alias) and w[1:] in PARTICLES) for w in words)
    compact = "".join(words)
    start = compact.find(compact_alias)
    while start != -1:
        end = start + len(compact_alias)
        before_ok = not (compact_alias[0].isdigit() and start > 0 and compact[start - 1].isdigit())
        after_ok = not (compact_alias[-1].isdigit() and end < len(compact) and compact[end].isdigit())
        if before_ok and after_ok:
            return True
        start = compact.find(compact_alias, start + 1)
    return False


def references(item: dict) -> list[str]:
    """The reference and its aliases, without blanks or repeats, reference first."""
    out: list[str] = []
    for value in [item.get("answer", "")] + list(item.get("aliases") or []):
        text = str(value or "").strip()
        if text and text not in out:
            out.append(text)
    return out


def matched_alias(item: dict, response: str, *, language: str) -> str | None:
    for reference in references(item):
        if language == "ko":
            if _korean_match(reference, response):
                return reference
        else:
            wanted = normalise_en(reference)
            if wanted and wanted in normalise_en(response):
                return reference
    return None


def score(item: dict, response: str, *, language: str) -> Scored:
    refs = references(item)
    matched = matched_alias(item, response, language=language) if refs else None
    detail = {"matched_alias": matched, "references": len(refs),
              "rule": "normalised containment (PEDANT's first step)" if language != "ko"
              else "Korean normalised containment, spaces ignored"}
    if not refs:
        detail["problem"] = "the item has no reference answer"
    return Scored(score=float(matched is not None), detail=detail, evaluator="qa",
                  version=VERSION_KO if language == "ko" else VERSION_EN)
