"""Short answer (SD-QA, TriviaQA, WebQuestions, Llama Questions and their Korean counterparts), the `sori`
reading: does the response assert the reference or one of its aliases? One reader for both languages
(issue 32); VoiceBench's own reading (PEDANT) is a separate profile.

A reference is mentioned when it is found in the response after normalisation:
- English as PEDANT's first step does (qa-metrics, the matcher VoiceBench's qa evaluator uses): lower-cased,
  punctuation removed, articles a/an/the removed, spaces collapsed; but the reference must stand as whole
  words (7 is not in 17, Paris is not in comparison), a plural s allowed after it.
- Korean: NFC, case-folded, punctuation removed and spaces ignored on both sides (세종대왕 / 세종 대왕), so a
  particle or copula after the noun is accepted (네덜란드는, 네덜란드입니다). A one-syllable reference must
  be a whole word or a word followed only by particles or a copula (금 in "금입니다", not in "지금"); one
  that starts or ends with a digit or a Latin letter must not continue into another.
- Numbers count in digits and in words, in both languages (apps.evaluation.scoring.numbers): when the
  reference contains a number, both texts are also compared with every number written as its value (Apollo
  eleven = Apollo 11, 천구백사십오 년 = 1945년), and a reference that is a number, maybe with a unit ("8",
  "1945년", "8 legs", "eight"), is mentioned by any number of that value (여덟 개, 8개, eight).
- Both texts are NFKC-normalised first: subscript, superscript and full-width digits and letters are folded
  (H₂O = H2O, x² = x2, Ｈ２Ｏ = H2O).

A mention in denial does not count: "서울이 아니라 부산입니다", "It is not Canberra, it's Sydney",
"Canberra? No — Sydney", "캔버라는 아니고", "X가 아닙니다", "X는 틀렸어". Each mention is judged by its own
clause (data/qa_denials.yaml), so "Canberra, not Sydney" still asserts Canberra. A reference mentioned only
in denial is listed in the detail's "denied" and does not match.

PEDANT itself is not used here: constructing it downloads its classifier and its import downloads NLTK data,
neither possible offline. Its classifier only decides the cases containment misses, which the LLM judge
(recorded by the caller) decides here."""

import bisect
import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache

from apps.evaluation.scoring import numbers
from apps.evaluation.scoring.result import Scored, data_file

RULE = ("normalised containment (PEDANT's first step) on whole words, numbers by value, denials excluded",
        "Korean normalised containment, spaces ignored, numbers by value, denials excluded")

# Particles and copula endings that may follow a noun in an answer (longest first when matching).
PARTICLES = tuple(sorted({
    "이", "가", "은", "는", "을", "를", "의", "에", "에서", "로", "으로", "와", "과", "도", "만", "요", "이요",
    "입니다", "이에요", "예요", "이다", "다", "이죠", "죠", "이야", "야", "라고", "이라고", "랍니다", "이랍니다",
    "인데요", "인데", "이고", "고", "입니다만",
}, key=len, reverse=True))
_LATIN = re.compile(r"[a-z]")


def _prepare(text: str) -> str:
    """NFKC (full-width letters and digits, subscripts and superscripts folded: H₂O -> H2O, Ｈ２Ｏ -> H2O) and
    plain apostrophes: the text every offset below refers to."""
    return unicodedata.normalize("NFKC", str(text or "")).replace("’", "'").replace("‘", "'")


def _with_values(text: str) -> tuple[str, list[int]]:
    """text with each number written as its value in digits, and for each character its offset in text."""
    out, offsets, at = [], [], 0
    for number in numbers.find_numbers(text):
        out.append(text[at:number.start])
        offsets.extend(range(at, number.start))
        digits = str(number.value)
        out.append(digits)
        offsets.extend([number.start] * (len(digits) - 1) + [number.end - 1])
        at = number.end
    out.append(text[at:])
    offsets.extend(range(at, len(text)))
    return "".join(out), offsets


# ---------------------------------------------------------------------------- indexed normalised forms

@dataclass
class _Indexed:
    """A normalised form of a text, made of pieces (runs of letters and digits): where each piece starts in
    the form, where it came from in the text, and which word it belongs to. Offsets are worked out only for
    the occurrences found, so a response costs one pass."""

    text: str
    starts: list[int]
    sources: list[int]
    words: list[int]
    source_offsets: list[int] | None  # when the text was itself rewritten (numbers as values)

    def piece(self, pos: int) -> int:
        return bisect.bisect_right(self.starts, pos) - 1

    def offset(self, pos: int) -> int:
        k = self.piece(pos)
        at = self.sources[k] + pos - self.starts[k]
        if self.source_offsets is None:
            return at
        return self.source_offsets[min(at, len(self.source_offsets) - 1)]

    def span(self, start: int, end: int) -> tuple[int, int]:
        return self.offset(start), self.offset(end - 1) + 1


_EN_WORDS = re.compile(r"[^\s/\u2010-\u2015-]+")  # a dash or slash separates words (Canberra—Sydney)
_LETTERS = re.compile(r"[^\W_]+")  # what is kept of a text: punctuation and symbols go


def _index_en(text: str, offsets: list[int] | None = None) -> _Indexed:
    """PEDANT's normalisation, indexed: lower-cased words without punctuation (D.C. -> dc) or articles."""
    chars, starts, sources, size = [], [], [], 0
    for word in _EN_WORDS.finditer(text):
        if _LETTERS.fullmatch(word.group()):  # most words: no punctuation inside
            pieces = [(word.group().lower(), word.start())]
        else:
            pieces = [(m.group().lower(), m.start()) for m in _LETTERS.finditer(text, *word.span())]
            if not pieces:
                continue
        if len(pieces) == 1 and pieces[0][0] in ("a", "an", "the"):
            continue
        if chars:
            chars.append(" ")
            size += 1
        for piece, source in pieces:
            chars.append(piece)
            starts.append(size)
            sources.append(source)
            size += len(piece)
    return _Indexed("".join(chars), starts, sources, list(range(len(starts))), offsets)


def _index_ko(text: str, offsets: list[int] | None = None) -> _Indexed:
    """Case-folded words without punctuation, joined without spaces (spacing varies in Korean)."""
    chars, starts, sources, size = [], [], [], 0
    for m in _LETTERS.finditer(text):
        piece = m.group().casefold()
        chars.append(piece)
        starts.append(size)
        sources.append(m.start())
        size += len(piece)
    return _Indexed("".join(chars), starts, sources, list(range(len(starts))), offsets)


_NOT_KEPT = re.compile(r"[^\w\s/\u2010-\u2015-]|_")
_EN_GAPS = re.compile(r"[\s/\u2010-\u2015-]+")
_NOT_LETTERS = re.compile(r"[\W_]+")


def _flat_en(text: str) -> str:
    """_index_en(text).text without the index (the same string, made in C): a quick test before indexing."""
    return " ".join(w for w in _EN_GAPS.split(_NOT_KEPT.sub("", text).lower()) if w and w not in ("a", "an", "the"))


def _flat_ko(text: str) -> str:
    return _NOT_LETTERS.sub("", text).casefold()


class _Response:
    """The response, prepared once; its normalised forms are made on demand, and indexed only when the
    reference is in them (most wrong answers never are)."""

    def __init__(self, text: str, language: str):
        self.text = _prepare(text)
        self.language = language
        self.ko = language == "ko"

    def _flat(self, text: str) -> str:
        return _flat_ko(text) if self.ko else _flat_en(text)

    @cached_property
    def flat_plain(self) -> str:
        return self._flat(self.text)

    @cached_property
    def plain(self) -> _Indexed:
        return (_index_ko if self.ko else _index_en)(self.text)

    @cached_property
    def with_values(self) -> tuple[str, list[int]]:
        return _with_values(self.text)

    @cached_property
    def flat_valued(self) -> str:
        return self._flat(self.with_values[0])

    @cached_property
    def valued(self) -> _Indexed:
        return (_index_ko if self.ko else _index_en)(*self.with_values)

    @cached_property
    def numbers(self) -> list[numbers.Number]:
        return numbers.find_numbers(self.text)


@lru_cache(maxsize=8192)
def _reference_forms(reference: str, language: str) -> tuple[str, str | None, int | None]:
    """The reference normalised; again with its numbers as values (None when it has none); and its value
    when it is a number, maybe with a unit ("8", "1945년", "8 legs")."""
    text = _prepare(reference)
    index = _index_ko if language == "ko" else _index_en
    found = numbers.find_numbers(text)
    plain = _compact(index(text).text, language)
    if not found:
        return plain, None, None
    valued = _compact(index(*_with_values(text)).text, language)
    value = numbers.parse_number(text)
    if value is None and len(found) == 1 and not re.sub(r"[\W_]+", "", text[:found[0].start]) \
            and len(text[found[0].end:].split()) <= 2:
        value = found[0].value  # "8 legs", "100 degrees"
    return plain, valued, value


def _compact(text: str, language: str) -> str:
    return text.replace(" ", "") if language == "ko" else text


def _find_en(wanted: str, form: _Indexed) -> list[tuple[int, int]]:
    """Whole-word occurrences (a plural s or es may follow) -> spans in the prepared response."""
    out, haystack = [], form.text
    start = haystack.find(wanted)
    while start != -1:
        end = start + len(wanted)
        before_ok = start == 0 or haystack[start - 1] == " "
        after_ok = end == len(haystack) or haystack[end] == " " or _PLURAL.match(haystack, end) is not None
        if before_ok and after_ok:
            out.append(form.span(start, end))
        start = haystack.find(wanted, start + 1)
    return out


_PLURAL = re.compile(r"e?s(?: |$)")


def _find_ko(wanted: str, form: _Indexed) -> list[tuple[int, int]]:
    """Occurrences with spaces ignored, under the one-syllable, digit and Latin-letter guards (a neighbour in
    the same word must not continue the reference's first or last digit or Latin letter)."""
    out, haystack = [], form.text
    start = haystack.find(wanted)
    while start != -1:
        end = start + len(wanted)
        first, last = form.piece(start), form.piece(end - 1)
        ok = True
        if len(wanted) == 1 and not wanted.isdigit():
            word_end = form.starts[first + 1] if first + 1 < len(form.starts) else len(haystack)
            rest = haystack[end:word_end]
            ok = form.starts[first] == start and (rest in PARTICLES or numbers.is_particle_tail(rest))
        if ok and start > 0 and form.piece(start - 1) == first:
            ok = not _continues(wanted[0], haystack[start - 1])
        if ok and end < len(haystack) and form.piece(end) == last:
            ok = not _continues(wanted[-1], haystack[end])
        if ok:
            out.append(form.span(start, end))
        start = haystack.find(wanted, start + 1)
    return out


def _continues(edge: str, neighbour: str) -> bool:
    """7 continued by 1 (17), or a Latin letter by another (pie in applepie)."""
    return (edge.isdigit() and neighbour.isdigit()) or bool(_LATIN.match(edge) and _LATIN.match(neighbour))


# ---------------------------------------------------------------------------------------------- denial

@cache
def _denial_rules() -> dict:
    rules = data_file("qa_denials.yaml")

    def any_of(patterns) -> re.Pattern:
        return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)

    return {
        "version": rules["version"],
        "boundary": any_of(rules["boundaries"]),
        "en_before": any_of(rules["en"]["before"]),
        "en_after": any_of(rules["en"]["after"]),
        "en_ignore": any_of(rules["en"]["ignore"]),
        "retort": re.compile(rules["retort"], re.IGNORECASE),
        "ko_after": any_of(rules["ko"]["after"]),
        "ko_ignore": any_of(rules["ko"]["ignore"]),
        "ko_connective": re.compile(rules["ko"]["connective_endings"]),
        "ko_words_after": int(rules["ko"]["words_after"]),
    }


def version() -> str:
    """The reader's version: its denial rules' and the number reader's, so a change of either shows."""
    return f"{_denial_rules()['version']}/{numbers.version()}"


_SENTENCE_END = re.compile(r"[.!?\n。]")


def _denied(text: str, start: int, end: int) -> bool:
    """Is the mention text[start:end] made only to deny it?"""
    rules = _denial_rules()
    if rules["retort"].match(text[end:end + 40]):
        return True  # "Canberra? No — Sydney"
    sentence_end = _SENTENCE_END.search(text, end)
    if sentence_end and sentence_end.group() == "?":
        return False  # a question does not deny ("Isn't it Canberra?", "서울 아니에요?")
    clause_start = 0
    for m in rules["boundary"].finditer(text, 0, start):
        clause_start = m.end()
    following = rules["boundary"].search(text, end)
    clause_end = following.start() if following else len(text)
    before = rules["en_ignore"].sub(" ", text[clause_start:start])
    after = text[end:clause_end]
    if rules["en_before"].search(before) or rules["en_after"].match(rules["en_ignore"].sub(" ", after)):
        return True
    return _denied_ko(text, end, clause_end, rules)


def _denied_ko(text: str, end: int, clause_end: int, rules: dict) -> bool:
    """서울이 아니라 / 서울은 정답이 아닙니다 / 서울 말고: a denial in the mention's word or the next few."""
    # The rest of the mention's word ("" when a space follows it), then the next words of the clause.
    words = re.split(r"\s+", rules["ko_ignore"].sub(" ", text[end:clause_end]))
    for word in words[:rules["ko_words_after"] + 1]:
        if rules["ko_after"].search(word):
            return True
        if word and rules["ko_connective"].search(word):
            return False  # 서울이 맞고 부산은 아니에요: the clause about 서울 ended
    return False


# ---------------------------------------------------------------------------------------------- reading

def references(item: dict) -> list[str]:
    """The reference and its aliases, without blanks or repeats, reference first."""
    out: list[str] = []
    for value in [item.get("answer", "")] + list(item.get("aliases") or []):
        text = str(value or "").strip()
        if text and text not in out:
            out.append(text)
    return out


@dataclass
class Reading:
    matched: str | None = None
    via: str | None = None  # "text" or "number"
    denied: list[str] = field(default_factory=list)


def _mentions(reference: str, response: _Response, language: str) -> list[tuple[tuple[int, int], str]]:
    plain, valued, value = _reference_forms(reference, language)
    find = _find_ko if language == "ko" else _find_en
    spans = [(span, "text") for span in find(plain, response.plain)] if plain and plain in response.flat_plain else []
    if valued and valued in response.flat_valued:
        spans += [(span, "text") for span in find(valued, response.valued)]
    if value is not None:
        spans += [((n.start, n.end), "number") for n in response.numbers if n.value == value]
    return sorted(set(spans))


def read(item: dict, response: str, *, language: str) -> Reading:
    """The first reference (in order) that the response mentions outside a denial."""
    prepared = _Response(response, language)
    reading = Reading()
    for reference in references(item):
        mentions = _mentions(reference, prepared, language)
        asserted = [(span, via) for span, via in mentions if not _denied(prepared.text, *span)]
        if asserted:
            reading.matched = reference
            reading.via = "text" if any(via == "text" for _, via in asserted) else "number"
            return reading
        if mentions:
            reading.denied.append(reference)
    return reading


def matched_alias(item: dict, response: str, *, language: str) -> str | None:
    return read(item, response, language=language).matched


def score(item: dict, response: str, *, language: str) -> Scored:
    refs = references(item)
    reading = read(item, response, language=language) if refs else Reading()
    detail = {"matched_alias": reading.matched, "references": len(refs), "denied": reading.denied,
              "rule": RULE[language == "ko"]}
    if reading.via:
        detail["matched_by"] = reading.via
    if not refs:
        detail["problem"] = "the item has no reference answer"
    return Scored(score=float(reading.matched is not None), detail=detail, evaluator="qa", version=version())
