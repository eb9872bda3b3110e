"""IFEval / KIFEval: are a response's verifiable instructions followed? The checkers are IFEval's own
(Google's instruction_following_eval) as the `if-verifiable` package maintains them; each item names its
instructions (`instruction_id_list`) and their arguments (`kwargs`), read from the item, translated ones
included. Every instruction is checked strictly (the response as it is) and loosely (IFEval's variants:
without its first and/or last line, without markdown asterisks), as VoiceBench does.

Offline adaptations (nothing here downloads data):
- sentence counts: IFEval counts sentences with NLTK's punkt model, a download; English uses pysbd (rule-based
  sentence boundary detection shipping its rules: "Prof.", "e.g.", "A.I." and "p.m." do not end a sentence,
  "p.m. Tomorrow" does), Korean the splitter Sori uses for synthesis (apps.speech.assembly.split_sentences:
  punctuation, line breaks, and Kiwi's sentence endings where a stretch has no punctuation, as spoken-style
  answers often do);
- capital-word counts tokenise with NLTK's Treebank word tokenizer, which needs no data (word_tokenize
  would first load punkt);
- language detection is seeded so a score is reproducible.

The scorer checks exactly what the item says. A Korean item's checker data is part of its translation (the
hypertranslation rulebook rulebooks/ko/hypertranslation: ht-case-removal takes case instructions out of the
item, ht-letter-mapping maps a letter to a Korean one) and travels on the release row; nothing is skipped
here for a language. `problems(...)` names what keeps an item's checker data from being checked as written
(the translation stage validates with it).

Checkers that read Korean text (the registry for "ko"):
- letter frequency with a Korean letter ("ㅌ") counts that letter in the jamo of every Hangul syllable
  (initial, vowel, final, each as written: ㄲ and ㄳ are letters of their own), plus standalone jamo;
- forbidden words match at the start of a Korean word, so a particle after the word does not hide it
  (사과를 uses 사과);
- word counts are IFEval's \\w+ runs, which in Korean are the space-separated words (어절);
- length_constraints:number_characters (Sori's addition for KIFEval, kwargs `num_characters` and
  `relation` as IFEval's word counts take them): characters other than spaces;
- quotation: besides straight and curly double quotes (both languages), the quotation marks Korean writing
  uses: ‘ ’, 「 」 and 『 』.

A response's per-item score (Scored.score) is the mean of its four accuracies (strict and loose,
prompt-level and instruction-level); the subset score micro-averages instructions instead: build its
inputs with `levels(details)` and pass them to apps.evaluation.aggregate.subset_score."""

import re
import threading
import unicodedata
from functools import cache, lru_cache

import langdetect
from django.utils.translation import gettext

from apps.core.errors import InvalidInput
from apps.evaluation.ifeval_checks import instructions, instructions_registry, instructions_util
from apps.evaluation.ifeval_checks.lazy import nltk
from apps.evaluation.ifeval_checks.loose import get_loose_transformations
from apps.evaluation.scoring.result import Scored
from apps.speech.assembly import split_sentences  # Kiwi itself loads on the first Korean sentence count

# 2: pysbd sentence counts (en), curly and Korean quotation marks, no change_case skipping (the Korean item
# no longer holds them), a 0 argument kept (only absent, null and empty arguments are dropped).
VERSION_EN = "ifeval-en-2"
VERSION_KO = "ifeval-ko-2"

langdetect.DetectorFactory.seed = 0  # langdetect samples at random unless seeded

_RELATIONS = ("less than", "at least")


@cache
def _treebank():
    return nltk.tokenize.NLTKWordTokenizer()  # on first use: nltk takes seconds to import


# Hangul syllable = initial x vowel x final; the compatibility jamo a person writes for each.
_INITIALS = "ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ"
_VOWELS = "ㅏㅐㅑㅒㅓㅔㅕㅖㅗㅘㅙㅚㅛㅜㅝㅞㅟㅠㅡㅢㅣ"
_FINALS = ["", *"ㄱㄲㄳㄴㄵㄶㄷㄹㄺㄻㄼㄽㄾㄿㅀㅁㅂㅄㅅㅆㅇㅈㅊㅋㅌㅍㅎ"]


def jamo(text: str) -> list[str]:
    """The letters of a Korean text: each syllable split into its initial, vowel and final."""
    letters = []
    for ch in unicodedata.normalize("NFC", text):
        code = ord(ch) - 0xAC00
        if 0 <= code < 11172:
            letters.append(_INITIALS[code // 588])
            letters.append(_VOWELS[(code % 588) // 28])
            if code % 28:
                letters.append(_FINALS[code % 28])
        elif "\u3131" <= ch <= "\u318e":
            letters.append(ch)
    return letters


def _is_hangul_letter(letter: str) -> bool:
    return len(letter) == 1 and "\u3131" <= letter <= "\u318e"


def _compare(count: int, relation: str, threshold: int) -> bool:
    return count < threshold if relation == _RELATIONS[0] else count >= threshold


# --- checkers replacing the ones that need downloaded data ------------------------------------------------
_local = threading.local()


def _segmenter():
    # pysbd's Segmenter keeps the text it is segmenting on itself: one per thread.
    segmenter = getattr(_local, "segmenter", None)
    if segmenter is None:
        import pysbd  # imported here: only sentence-count instructions need it

        segmenter = _local.segmenter = pysbd.Segmenter(language="en", clean=False)
    return segmenter


@cache
def _abbreviations() -> frozenset[str]:
    from pysbd.lang.english import English

    return frozenset(English.Abbreviation.ABBREVIATIONS)


# Where pysbd ends a sentence for certain: a plain lower-case word that is not one of its abbreviations, one
# end mark, a space, then a capitalised word ("... rain falls. Then it ..."). The stretches between them are
# handed to pysbd only when they hold another end mark (an abbreviation, a decimal, an ellipsis) or a
# parenthesis.
_PLAIN_END = re.compile(r"(?<!\S)([a-z]{2,})[.!?](?=\s+[A-Z][a-z])")
_END_MARK = re.compile(r"[.!?…()]")  # pysbd also judges parentheses ("(Lee 2016) While ..." is two)
_TRAILING = re.compile(r"[.!?…\"'”’)\]]+$")


@lru_cache(maxsize=8192)
def _english_line_sentences(line: str) -> int:
    # pysbd ends a sentence at every line break anyway; counting line by line lets IFEval's loose variants
    # (the response without its first or last line) reuse the lines already counted. pysbd costs ~50 µs a
    # word, so a line is cut where the boundary is certain and only the stretches it must judge go to it.
    count, start = 0, 0
    for match in _PLAIN_END.finditer(line):
        if match.group(1) not in _abbreviations():
            count += _stretch_sentences(line[start:match.end()])
            start = match.end()
    return count + _stretch_sentences(line[start:])


def _stretch_sentences(text: str) -> int:
    text = text.strip()
    if not text:
        return 0
    if not _END_MARK.search(_TRAILING.sub("", text)):
        return 1  # one end mark at most, at the end, and no parenthesis: one sentence, as pysbd finds
    return sum(1 for s in _segmenter().segment(text) if s.strip())


def english_sentence_count(text: str) -> int:
    """Sentences as pysbd's rule-based boundary detection finds them, abbreviations included."""
    return sum(_english_line_sentences(line.strip()) for line in text.splitlines() if line.strip())


class EnglishSentences(instructions.NumberOfSentences):
    def check_following(self, value):
        return _compare(english_sentence_count(value), self._comparison_relation, self._num_sentences_threshold)


class KoreanSentences(instructions.NumberOfSentences):
    def check_following(self, value):
        return _compare(len(split_sentences(value)), self._comparison_relation, self._num_sentences_threshold)


class CapitalWords(instructions.CapitalWordFrequencyChecker):
    def check_following(self, value):
        words = [w for sentence in instructions_util.split_into_sentences(value) for w in _treebank().tokenize(sentence)]
        return _compare(sum(1 for w in words if w.isupper()), self._comparison_relation, self._frequency)


# Opening mark -> the closing marks that end a quotation it opens. Double quotes, straight or curly, in both
# languages (a typing tool's curly quotes are still double quotation marks).
_DOUBLE_QUOTES = {'"': '"”', "“": '”"', "”": '”"'}
# Korean writing also quotes with ‘ ’ (작은따옴표) and the CJK corner brackets 「 」 and 『 』 (낫표).
_KOREAN_QUOTES = {**_DOUBLE_QUOTES, "‘": "’", "「": "」", "『": "』"}


class Quotation(instructions.QuotationChecker):
    pairs = _DOUBLE_QUOTES

    def check_following(self, value):
        value = value.strip()
        return len(value) > 1 and value[-1] in self.pairs.get(value[0], "")


class KoreanQuotation(Quotation):
    pairs = _KOREAN_QUOTES


# --- Korean checkers -------------------------------------------------------------------------------------
class KoreanLetterFrequency(instructions.LetterFrequencyChecker):
    """IFEval's letter frequency, for a Korean letter counted in the jamo of the response."""

    def build_description(self, *, letter=None, let_frequency=None, let_relation=None):
        if not letter or not _is_hangul_letter(letter.strip()):
            return super().build_description(letter=letter, let_frequency=let_frequency, let_relation=let_relation)
        if let_frequency is None or let_relation not in _RELATIONS:
            raise InvalidInput(gettext(
                "letter_frequency needs let_frequency and let_relation (%(relations)s)"
            ) % {"relations": ' or '.join(_RELATIONS)},
                               field="kwargs")
        self._letter, self._frequency, self._comparison_relation = letter.strip(), let_frequency, let_relation
        self._korean = True
        return f"글자 {self._letter}: {let_relation} {let_frequency}"

    def check_following(self, value):
        if getattr(self, "_korean", False):
            return _compare(jamo(value).count(self._letter), self._comparison_relation, self._frequency)
        return super().check_following(value)


class KoreanForbiddenWords(instructions.ForbiddenWords):
    def check_following(self, value):
        return not any(re.search(r"(?<!\w)" + re.escape(word), value, flags=re.IGNORECASE)
                       for word in self._forbidden_words)


class NumberOfCharacters(instructions.Instruction):
    """Sori's KIFEval addition: a length limit in characters (spaces not counted)."""

    def build_description(self, *, num_characters=None, relation=None):
        if num_characters is None or relation not in _RELATIONS:
            raise InvalidInput(gettext(
                "number_characters needs num_characters and relation (%(relations)s)"
            ) % {"relations": ' or '.join(_RELATIONS)},
                               field="kwargs")
        self._threshold, self._relation = int(num_characters), relation
        return f"Answer with {relation} {num_characters} characters."

    def get_instruction_args(self):
        return {"num_characters": self._threshold, "relation": self._relation}

    def get_instruction_args_keys(self):
        return ["num_characters", "relation"]

    def check_following(self, value):
        return _compare(len(re.sub(r"\s", "", value)), self._relation, self._threshold)


@cache
def registry(language: str) -> dict:
    checkers = dict(instructions_registry.INSTRUCTION_DICT)
    checkers["change_case:capital_word_frequency"] = CapitalWords
    checkers["length_constraints:number_sentences"] = EnglishSentences
    checkers["startend:quotation"] = Quotation
    if language == "ko":
        checkers["length_constraints:number_sentences"] = KoreanSentences
        checkers["keywords:letter_frequency"] = KoreanLetterFrequency
        checkers["keywords:forbidden_words"] = KoreanForbiddenWords
        checkers["length_constraints:number_characters"] = NumberOfCharacters
        checkers["startend:quotation"] = KoreanQuotation
    return checkers


def _given(kwargs: dict) -> dict:
    """The arguments an item gives: null and empty ones are absent (source records list every argument of
    every instruction, mostly null)."""
    return {k: v for k, v in (kwargs or {}).items() if v is not None and v != "" and v != []}


def _same(given, taken) -> bool:
    """Whether a checker took an argument as given (it lower-cases letters and words, sorts lists)."""
    def norm(value):
        if isinstance(value, str):
            return ("str", value.strip().casefold())
        if isinstance(value, list | tuple):
            return ("list", tuple(sorted({norm(v) for v in value})))
        return (type(value).__name__, value)
    return norm(given) == norm(taken)


def problems(instruction_id_list, kwargs_list, *, language: str) -> list[str]:
    """What keeps an item's checker data from being checked as written, each naming the instruction and the
    argument: an unknown instruction, a kwargs list of another length, a missing or unexpected argument, or a
    value the checker does not take as given (IFEval's checkers silently draw a random value for a missing or
    unusable one: a letter that is not a letter, a count that is not a number). Empty when it can be checked."""
    if not isinstance(instruction_id_list, list) or not instruction_id_list:
        return ["instruction_id_list: the item names no instruction"]
    if not isinstance(kwargs_list, list) or len(kwargs_list) != len(instruction_id_list):
        count = len(kwargs_list) if isinstance(kwargs_list, list) else "no list"
        return [f"kwargs: {count} entries for {len(instruction_id_list)} instructions (one dict per instruction)"]
    checkers = registry(language)
    found = []
    for number, (instruction_id, kwargs) in enumerate(zip(instruction_id_list, kwargs_list, strict=True), start=1):
        where = f"instruction {number} ({instruction_id})"
        cls = checkers.get(instruction_id)
        if cls is None:
            found.append(f"{where}: not a known instruction")
            continue
        if not isinstance(kwargs, dict):
            found.append(f"{where}: its kwargs must be an object, not {type(kwargs).__name__}")
            continue
        given, checker = _given(kwargs), cls(instruction_id)
        expected = list(checker.get_instruction_args_keys())
        found += [f"{where}: missing argument {k!r}" for k in expected if k not in given]
        found += [f"{where}: unexpected argument {k!r} (it takes {', '.join(expected) or 'none'})"
                  for k in given if k not in expected]
        if any(k not in given for k in expected) or any(k not in expected for k in given):
            continue
        try:
            checker.build_description(**given)
            taken = checker.get_instruction_args() or {}
        except Exception as exc:  # the checkers raise what they raise (ValueError, TypeError, KeyError...)
            found.append(f"{where}: its arguments are not usable ({type(exc).__name__}: {exc})")
            continue
        found += [f"{where}: argument {k!r} = {given[k]!r} is not a value this checker takes as given"
                  for k in expected if not _same(given[k], taken.get(k))]
    return found


def _clean(response: str) -> str:
    """VoiceBench's clean-up of a response (turn markers), and a reasoning model's thinking block."""
    text = (response or "").strip()
    if text.startswith(("<1>", "<2>", "<3>")):
        text = text[3:].strip()
    if text.endswith("<|user|>"):
        text = text[:-8].strip()
    if "</think>" in text:
        text = text.split("</think>", 1)[1].strip()
    return text


def check(item: dict, response: str, *, language: str) -> list[dict]:
    """One row per instruction: {"id", "strict", "loose"}."""
    ids = list(item.get("instruction_id_list") or [])
    kwargs_list = list(item.get("kwargs") or [])
    if not ids:
        raise InvalidInput(gettext("the item has no instruction_id_list"), field="instruction_id_list")
    if not kwargs_list:
        kwargs_list = [{}] * len(ids)
    if len(kwargs_list) != len(ids):
        raise InvalidInput(gettext(
            "kwargs has %(kwargs_list_count)s entries for %(ids_count)s instructions"
        ) % {"kwargs_list_count": len(kwargs_list), "ids_count": len(ids)}, field="kwargs")
    checkers = registry(language)
    text = _clean(response)
    variants = [v for v in get_loose_transformations(text) if v.strip()] if text.strip() else []
    rows = []
    for instruction_id, kwargs in zip(ids, kwargs_list, strict=True):
        cls = checkers.get(instruction_id)
        if cls is None:
            raise InvalidInput(gettext(
                "unknown IFEval instruction %(instruction_id)r"
            ) % {"instruction_id": instruction_id}, field="instruction_id_list")
        checker = cls(instruction_id)
        try:
            checker.build_description(**_given(kwargs))
            args = checker.get_instruction_args()
            if args and "prompt" in args:
                checker.build_description(prompt=item.get("question", ""))
        except (TypeError, ValueError) as exc:
            raise InvalidInput(gettext(
                "bad kwargs for %(instruction_id)s: %(exc)s"
            ) % {"instruction_id": instruction_id, "exc": exc}, field="kwargs") from None
        strict = bool(text.strip()) and bool(checker.check_following(text))
        loose = strict or any(checker.check_following(v) for v in variants)
        rows.append({"id": instruction_id, "strict": strict, "loose": bool(loose)})
    return rows


def score(item: dict, response: str, *, language: str) -> Scored:
    rows = check(item, response, language=language)
    strict = [r["strict"] for r in rows]
    loose = [r["loose"] for r in rows]
    detail = {"instructions": rows, "strict_prompt": all(strict), "loose_prompt": all(loose)}
    value = (all(strict) + all(loose) + sum(strict) / len(strict) + sum(loose) / len(loose)) / 4
    return Scored(score=float(value), detail=detail, evaluator="ifeval",
                  version=VERSION_KO if language == "ko" else VERSION_EN)


def levels(details: list[dict]) -> tuple[list[float], list[float]]:
    """(instruction-level, prompt-level) results over items' ifeval details, strict then loose, for
    aggregate.subset_score("ifeval", instruction_level, prompt_level=prompt_level): that gives VoiceBench's
    IFEval number, the mean of strict and loose prompt- and instruction-level accuracy."""
    instruction_level: list[float] = []
    prompt_level: list[float] = []
    for mode in ("strict", "loose"):
        for detail in details:
            # Details stored by ifeval-ko-1 may hold skipped case instructions, which never counted.
            checked = [r for r in detail["instructions"] if "skipped" not in r]
            instruction_level += [float(r[mode]) for r in checked]
            prompt_level.append(float(detail[f"{mode}_prompt"]))
    return instruction_level, prompt_level
