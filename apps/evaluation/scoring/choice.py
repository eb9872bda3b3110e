"""Which option a free-text answer asserts: the one engine behind the `sori` multiple-choice reader (mcq) and
the `sori` KMMAU reader (kmmau), the same for English and Korean (an English-Korean gap must never come from a
smarter reader on one side; DESIGN.md section 5).

An option can be named by its label in any script (A-J, ㄱ-ㅊ, 1-10, ①-⑩, mapped by position), by a Korean
label's letter name (기역, 니은, 디귿, 리을: how TTS reads the labels), by an ordinal (the second option, 두 번째,
셋째), by its own text (case, punctuation, particles and copulas ignored; an option of several words also
with other particles and endings inside it) or, for an option that is a number (2명, 40대), by the same
number in digits or words (두 명, 마흔다섯 살). An article or a word's first letter is never a label.

Every mention is weighed by the words around it (data/choice_cues.yaml, versioned):
  - a negated mention is dropped ("not B", "B is wrong", "ㄴ이 아니라", "ㄱ번은 오답", "남성은 아니고"); on a
    question asking for the wrong option ("Which is NOT...", "옳지 않은 것은?"), calling an option wrong
    names it instead;
  - the others get a tier: 4 a final answer (\\boxed), 3 an explicit answer ("the answer is", "정답은",
    "B is correct", "ㄴ을 고르겠"), 2 a bare assertion ("it's B", "ㄴ입니다", "여성으로 보입니다", a label
    opening the response unless the response lists the options), 1 a passing mention or an assertion
    conceded in its clause ("B seems right, but"), 0 a mention inside a question;
  - mentions joined only by "or", "and", "또는", "과" share one tier (the answer "A or C" asserts both);
  - after a correction or a narrowing ("Actually, ...", "다시 생각해 보니", "A or C, but C is more likely")
    only the later answers count.
The strongest tier present decides. Two different options on it make the response ambiguous (no option);
the same option asserted twice is fine. With no mention left but every option except one negated, that one
is the answer (by elimination).

Korean morphology: a mention is followed inside its word by a particle or copula from the data file (the
cheap path); any other Hangul ending is read by Kiwi (apps.authoring.morphology), once per word, which says
whether the option ends a morpheme there (여성으로, 여성분이세요) or is part of another word (사과나무)."""

import bisect
import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache, lru_cache

from apps.evaluation.scoring.result import data_file

LATIN = tuple("ABCDEFGHIJ")
KOREAN = ("ㄱ", "ㄴ", "ㄷ", "ㄹ", "ㅁ", "ㅂ", "ㅅ", "ㅇ", "ㅈ", "ㅊ")
DIGITS = tuple(str(n) for n in range(1, 11))
CIRCLED = tuple("①②③④⑤⑥⑦⑧⑨⑩")
SCRIPTS = {"latin": LATIN, "korean": KOREAN, "digit": DIGITS, "circled": CIRCLED}
# Names of the Korean labels (normalisation rulebook: "ㄱ." is read "기역."), common misspellings beside them.
KOREAN_NAMES = {"기역": 0, "기윽": 0, "니은": 1, "디귿": 2, "디읃": 2, "리을": 3, "미음": 4, "비읍": 5, "시옷": 6}
ORDINALS_EN = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4, "sixth": 5, "1st": 0, "2nd": 1,
               "3rd": 2, "4th": 3, "5th": 4, "6th": 5}
NUMBER_WORDS_EN = {"one": 0, "two": 1, "three": 2, "four": 3, "five": 4, "six": 5}
ORDINALS_KO = {"첫": 0, "한": 0, "두": 1, "둘": 1, "세": 2, "셋": 2, "네": 3, "넷": 3, "다섯": 4, "여섯": 5}

# Characters folded before reading: full-width forms, typographic quotes and dashes, odd spaces.
_FOLD = {c: chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F)}
_FOLD.update({ord(c): "'" for c in "‘’‚‛"} | {ord(c): '"' for c in "“”„‟"} | {ord(c): "-" for c in "–—―−"})
_FOLD.update({ord("："): ":"} | {ord(c): " " for c in "\u00a0\u2009\u202f\u3000"})
_FOLD.update({ord(z): None for z in "\u200b\u200c\u200d\ufeff"})
_TURN = re.compile(r"^\s*<[123]>|<\|[^|>]*\|>")
_LATEX = re.compile(r"\\(?:text(?:bf|rm|it)?|math(?:bf|rm|it)?|bf|textsf)\s*\{|\\[()\[\]]|\$")
_BOXED = re.compile(r"\\boxed\s*\{")
_MARKDOWN = re.compile(r"[*_#`>]+")
_HANGUL = re.compile(r"[가-힣]+")
_SENTENCE_END = re.compile(r"[.!?\n。]")


@dataclass(frozen=True)
class Options:
    """What an item offers. texts: each option's text in label order (None where unknown); count: the
    number of options; numeric_labels: the item's own labels are 1, 2, 3... (so a bare digit names one);
    negative_question: the question asks for the wrong option (is_negative_question)."""

    count: int
    texts: tuple[str | None, ...] = ()
    numeric_labels: bool = False
    negative_question: bool = False


@dataclass
class Mention:
    start: int
    end: int
    index: int
    form: str  # label, letter name, ordinal, number label, text, number, bare number
    tier: int = 1
    cue: str = "passing mention"
    negated: bool = False


@dataclass
class Reading:
    """The option a response asserts (index into the options), or None; how: which cue decided;
    ambiguous: the options asserted equally when more than one; negated: options the response ruled out."""

    index: int | None
    how: str | None = None
    ambiguous: list[int] = field(default_factory=list)
    negated: list[int] = field(default_factory=list)


@cache
def _rules() -> dict:
    raw = data_file("choice_cues.yaml")
    fill, fill_ko, adv = raw["fill"], raw["fill_ko"], raw["adv"]

    # Each list is one pattern: one regex call per cue kind and mention.
    def before(patterns):
        alternatives = "|".join(f"(?:{p.format(fill=fill, fill_ko=fill_ko, adv=adv)})" for p in patterns)
        return re.compile(f"(?:{alternatives})$", re.I)

    def after(patterns):
        return re.compile("|".join(f"(?:{p.replace('{nom_ko}', raw['nom_ko'])})" for p in patterns), re.I)

    particles = sorted(raw["particles"], key=len, reverse=True)
    endings = sorted(raw["endings"], key=len, reverse=True)
    return {
        "version": raw["version"],
        "final_before": before(raw["final_before"]),
        "answer_before": before(raw["answer_before"]),
        "answer_after": after(raw["answer_after"]),
        "soft_before": before(raw["soft_before"]),
        "soft_after": after(raw["soft_after"]),
        "negate_before": before(raw["negate_before"]),
        "negate_after": after(raw["negate_after"]),
        "judged_wrong_after": after(raw["judged_wrong_after"]),
        "negative_question": re.compile(raw["negative_question"], re.I),
        "concession_en": re.compile(raw["concession_en"], re.I),
        "concession_ko": re.compile(raw["concession_ko"]),
        "correction": re.compile(raw["correction"], re.I),
        "coordinator": re.compile(raw["coordinator"], re.I),
        "partitive_before": re.compile(raw["partitive_before"], re.I),
        "partitive_after": re.compile(raw["partitive_after"], re.I),
        "label_a_verbs": frozenset(raw["label_a_verbs"]),
        "not_label_before": frozenset(raw["not_label_before"]),
        "suffix": re.compile(f"(?:{'|'.join(particles)})*(?:{'|'.join(endings)})?"),
        "aliases": {_norm(k): tuple(_norm(a) for a in v) for k, v in raw["aliases"].items()},
    }


def version() -> str:
    return _rules()["version"]


def is_negative_question(question: str) -> bool:
    """Whether a question asks for the wrong option ("Which is NOT a mammal?", "옳지 않은 것은?"): there,
    "B is false" or "ㄴ은 틀렸어요" names the answer instead of ruling B out."""
    return bool(_rules()["negative_question"].search(question or ""))


def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", str(text)).translate(_FOLD).lower().split())


def prepare(response: str) -> str:
    """The response as the engine reads it: NFC, full-width and typographic characters folded, turn markers
    dropped, \\boxed{X} written "final answer: X" and other LaTeX wrappers removed."""
    text = unicodedata.normalize("NFC", response or "").translate(_FOLD)
    text = _TURN.sub(" ", text)
    text = _BOXED.sub(" final answer: ", text)
    return _LATEX.sub(" ", text)


# ---------------------------------------------------------------------------------------------- Korean words

@lru_cache(maxsize=65536)
def _ends_a_morpheme(surface: str, rest: str) -> bool:
    """Whether `surface` (an option, label or name) followed by `rest` inside one written word is that
    option with particles or an ending (여성으로, 니은이요), not part of another word (사과나무, A형)."""
    if not rest or _rules()["suffix"].fullmatch(rest):
        return True
    from apps.core.korean import kiwi  # the one Kiwi loader (one analyser, shared)

    word = surface + rest
    tokens = kiwi().tokenize(word)
    boundary = len(surface)
    if not any(t.start + t.len == boundary for t in tokens):
        return False
    following = [t for t in tokens if t.start >= boundary]
    if not following:
        return True
    first = following[0]
    # Particles, the copula, endings, plural/honorific suffixes and 분 (여성분) keep the option whole.
    return first.tag.startswith(("J", "E", "VCP")) or (first.form in ("들", "님", "분") and first.tag in
                                                        ("XSN", "NNB", "NNG"))


def _word_ok(text: str, start: int, end: int) -> bool:
    """A mention at text[start:end] stands as its own word: nothing letter-like glued before it, and what
    follows inside the word is grammar (a Korean particle or ending), not more word."""
    if start > 0:
        prev, first = text[start - 1], text[start]
        if (_is_hangul(prev) and _is_hangul(first)) or (prev.isascii() and prev.isalnum() and first.isascii()):
            return False
    if end < len(text) and _is_hangul(text[end]):
        rest = _HANGUL.match(text, end).group()
        return _ends_a_morpheme(text[start:end], rest)
    return end >= len(text) or not (text[end].isalnum())


def _is_hangul(ch: str) -> bool:
    return "가" <= ch <= "힣"


# ---------------------------------------------------------------------------------------------- finding options

_LABEL = re.compile(
    r"(?=[A-Ja-j①-⑩ㄱㄴㄷㄹㅁㅂㅅㅇㅈㅊ기니디리미비시1-9])"  # a cheap first test at each position (3x faster)
    r"(?:(?P<circled>[①-⑩])"
    r"|(?<![A-Za-z0-9'.\-])(?P<latin>[A-Ja-j])(?![A-Za-z0-9'+#]|\.[A-Za-z]|-[A-Za-z])"
    r"|(?<![ㄱ-ㅎㅏ-ㅣ])(?P<jamo>[ㄱㄴㄷㄹㅁㅂㅅㅇㅈㅊ])(?![ㄱ-ㅎㅏ-ㅣ])"
    r"|(?<![가-힣])(?P<name>기역|기윽|니은|디귿|디읃|리을|미음|비읍|시옷)"
    r"|(?<![0-9.,/:\-])(?P<digit>10|[1-9])(?![0-9]|[.,:][0-9]|\s*[%/]))"
)
_ORDINAL = re.compile(
    r"\b(?:the\s+)?(?P<en>first|second|third|fourth|fifth|sixth|last|1st|2nd|3rd|4th|5th|6th)"
    r"(?P<en_noun>\s+(?:option|choice|answer|one|alternative|statement|item|possibility|label))?\b"
    r"|\b(?:option|choice|number|answer)\s+(?P<en_word>one|two|three|four|five|six)\b"
    r"|(?<![가-힣])(?P<ko>첫|두|세|네|다섯|여섯|[1-6])\s*번\s*째"
    r"|(?<![가-힣])(?P<ko_short>첫|둘|셋|넷|다섯|여섯)째"
    r"|(?<![가-힣])(?P<ko_last>마지막)",
    re.I,
)
_ORDINAL_NOUN_KO = re.compile(r"\s*(?:보기|선택지|옵션|항목|답변|정답|답|것|거|문항)")
_CUE_LABEL_BEFORE = re.compile(r"\b(?:option|choice|letter|answer|number|no\.)\s*[:(\[\"']*\s*$", re.I)
_OPTION_WORD_BEFORE = re.compile(r"\b(?:option|choice|number|no\.)\s*[(\[\"']*\s*$|(?:보기|선택지|옵션)\s*$", re.I)
_PUNCT_AFTER = re.compile(r"[.:)\]},;!?/=*]|\s+[-=]\s|\s*$|\s*\n")


def _latin_is_label(text: str, start: int, letter: str) -> bool:
    """An A-J letter standing alone is a label unless it is the article "a"/"A", the pronoun "I", or part of
    a name (vitamin C, plan B); lower-case letters need a cue or label punctuation."""
    end = start + 1
    after = text[end:end + 3]
    before = text[max(0, start - 30):start]
    if after.startswith((")", "]", "}")):  # (B), B), [B]
        return True
    rules = _rules()
    prev_word = re.search(r"([A-Za-z가-힣]+)\W*$", before)
    if prev_word and prev_word.group(1).lower() in rules["not_label_before"]:
        return False
    if end < len(text) and _is_hangul(text[end]):
        return True  # checked as a Korean word by _word_ok (B입니다, B번; not A형)
    if _PUNCT_AFTER.match(text, end):
        return letter not in "Ii" or bool(_CUE_LABEL_BEFORE.search(before))
    next_word = re.match(r"\s+([^\s]+)", text[end:end + 20])
    word = next_word.group(1).lower().rstrip(".,;:!?") if next_word else ""
    if letter in "Aa":
        return word in rules["label_a_verbs"] and (letter == "A" or bool(_CUE_LABEL_BEFORE.search(before)))
    if letter in "Ii":
        return False
    if letter.isupper():
        return True
    return bool(_CUE_LABEL_BEFORE.search(before)) or word in rules["label_a_verbs"]


def _digit_is_label(text: str, start: int, end: int, options: Options) -> bool:
    """A digit names an option by position when the item's labels are digits and it stands like a label
    (bracketed, "2.", "2번", "option 2", before a particle), or on other items only as "2번" or "option 2";
    never when the options themselves are numbers."""
    if _numeric_texts(options.texts):
        return False
    before = text[max(0, start - 20):start]
    after = text[end:end + 3]
    if after.startswith("번") and not text.startswith("째", end + 1):
        return True
    if _OPTION_WORD_BEFORE.search(before):
        return True
    if not options.numeric_labels:
        return False
    if before.rstrip(" *").endswith(("(", "[")) or after.startswith((")", "]")):
        return True
    if end < len(text) and _is_hangul(text[end]):
        return not _COUNTER.match(text, end)
    if _PUNCT_AFTER.match(text, end) and not re.match(r"\.\d", after):
        return True
    if _CUE_LABEL_BEFORE.search(before) or _rules()["answer_before"].search(before):
        return True
    next_word = re.match(r"\s+([a-z']+)", text[end:end + 20], re.I)
    return bool(next_word and next_word.group(1).lower() in _rules()["label_a_verbs"])


# Counters after a digit that make it a quantity, not a label (3명, 2개, 40대).
_COUNTER = re.compile(r"(?:명|개|대|살|세|년|월|일|시|분|초|원|층|마리|사람|가지|회|배|퍼센트|프로|점|도|주|권|잔|병|장)")


@lru_cache(maxsize=4096)
def _numeric_texts(texts: tuple) -> bool:
    return any(t is not None and re.fullmatch(r"\s*\d[\d,.]*\s*\S{0,3}\s*", t) for t in texts)


def _find_labels(text: str, options: Options) -> list[Mention]:
    found = []
    for m in _LABEL.finditer(text):
        kind = m.lastgroup
        value = m.group(kind)
        start, end = m.span()
        if kind == "latin":
            index = LATIN.index(value.upper())
            if not _latin_is_label(text, start, value):
                continue
            form = "label"
        elif kind == "jamo":
            index, form = KOREAN.index(value), "label"
        elif kind == "name":
            index, form = KOREAN_NAMES[value], "letter name"
        elif kind == "circled":
            index, form = CIRCLED.index(value), "number label"
        else:
            index, form = int(value) - 1, "number label"
            if not _digit_is_label(text, start, end, options):
                continue
        if index >= options.count:
            continue
        if text.startswith("번", end) and not text.startswith("째", end + 1):
            end += 1  # "ㄴ번", "2번": the label with its counter
        if not _word_ok(text, start, end):
            continue
        found.append(Mention(start, end, index, form))
    return found


# Words without which no ordinal can be found: most answers have none, and the ordinal pattern is slow.
_ORDINAL_WORDS = ("first", "second", "third", "fourth", "fifth", "sixth", "last", "1st", "2nd", "3rd", "4th", "5th",
                  "6th", "one", "two", "three", "four", "five", "six", "째", "마지막")


def _find_ordinals(text: str, low: str, options: Options) -> list[Mention]:
    if not any(word in low for word in _ORDINAL_WORDS):
        return []
    found = []
    for m in _ORDINAL.finditer(text):
        start, end = m.span()
        if m.group("en"):
            word = m.group("en").lower()
            index = options.count - 1 if word == "last" else ORDINALS_EN[word]
            # "First, ..." is a discourse marker; "the second" alone needs an answer cue before it.
            if not m.group("en_noun") and not _has_answer_cue_before(text, start):
                continue
        elif m.group("en_word"):
            index = NUMBER_WORDS_EN[m.group("en_word").lower()]
        else:
            word = m.group("ko") or m.group("ko_short") or m.group("ko_last")
            index = options.count - 1 if word == "마지막" else (
                int(word) - 1 if word.isdigit() else ORDINALS_KO[word])
            noun = _ORDINAL_NOUN_KO.match(text, end)
            if noun:
                end = noun.end()
            elif m.group("ko_last") or not _ordinal_stands_alone(text, end):
                if not _has_answer_cue_before(text, start):
                    continue
            if end < len(text) and _is_hangul(text[end]) and not _ends_a_morpheme(text[start:end],
                                                                                 _HANGUL.match(text, end).group()):
                continue
        if index >= options.count:
            continue
        found.append(Mention(start, end, index, "ordinal"))
    return found


def _ordinal_stands_alone(text: str, end: int) -> bool:
    """두 번째 followed by a particle or copula (두 번째가, 두 번째입니다) or ending the sentence, not by
    로/으로 or a comma ("첫째로, ...", "둘째, ..." list an argument's points)."""
    rest = text[end:end + 4]
    if not rest or rest[0] in ".!?)\n":
        return True
    if rest.startswith(("로", "으로", ",")):
        return False
    return _is_hangul(rest[0])


def _has_answer_cue_before(text: str, start: int) -> bool:
    before = _MARKDOWN.sub("", text[max(0, start - 60):start])
    rules = _rules()
    return bool(rules["final_before"].search(before) or rules["answer_before"].search(before))


@lru_cache(maxsize=4096)
def _text_pattern(texts: tuple) -> tuple[re.Pattern | None, dict[str, int]]:
    """One pattern for every option's text and its aliases, longest first, and which option each names."""
    aliases = _rules()["aliases"]
    owners: dict[str, set[int]] = {}
    for index, raw in enumerate(texts):
        if raw is None:
            continue
        text = _norm(raw).strip(" .,;:!?\"'")
        variants = {text, re.sub(r"^(?:a|an|the)\s+", "", text)}
        variants |= set(aliases.get(text, ()))
        for v in variants:
            if v and not (len(v) == 1 and v.isascii()):  # a one-letter text would be read as a label
                owners.setdefault(v, set()).add(index)
    # A spelling two options share names neither.
    owner = {v: min(i) for v, i in owners.items() if len(i) == 1}
    if not owner:
        return None, owner
    alternatives = "|".join(re.escape(v).replace(r"\ ", r"\s+") for v in sorted(owner, key=len, reverse=True))
    return re.compile(rf"(?<![a-z0-9])(?:{alternatives})", re.I), owner


def _find_texts(text: str, low: str, options: Options) -> list[Mention]:
    pattern, owner = _text_pattern(options.texts)
    if pattern is None:
        return []
    found = []
    for m in pattern.finditer(low):
        start, end = m.span()
        key = " ".join(m.group().split())
        if key not in owner:
            continue
        # An English plural (whales) still names the option (whale).
        plural = re.match(r"(?:e?s)(?![a-z])", low[end:end + 3]) if key[-1].isascii() and key[-1].isalpha() else None
        if plural:
            end += plural.end()
        if not _word_ok(text, start, end):
            continue
        found.append(Mention(start, end, owner[key], "text"))
    return found


# Options that are numbers (2명, 40대, 3번, 4): the same number in the response, in digits or words
# (apps.evaluation.scoring.numbers), with a counter of the same kind or none. An age decade (40대) is also
# named by an age inside it (마흔다섯 살, 45세, forty-five years old) or its English word (forties).
_COUNTER_KINDS = [
    ("decade", r"대|'?s\b"),
    ("age", r"살|세|years?[\s-]*old|year-old|yo\b"),
    ("people", r"명|사람|분|인|people|persons?|speakers?|voices?|individuals?|men|women|talkers?"),
    ("times", r"번|회|times?"),
    ("things", r"개|가지|마리|items?|things?|words?"),
]
_COUNTER_AFTER = re.compile(
    r"[ \t]*(?:" + "|".join(f"(?P<{k}>{p})" for k, p in _COUNTER_KINDS) + ")", re.I)
_OPTION_NUMBER = re.compile(r"\s*(\d+)\s*(.*?)\s*", re.S)
_DECADE_WORDS = re.compile(r"\b(twenties|thirties|forties|fifties|sixties|seventies|eighties|nineties)\b", re.I)
_DECADE_VALUES = {w: 20 + 10 * i for i, w in enumerate(
    ("twenties", "thirties", "forties", "fifties", "sixties", "seventies", "eighties", "nineties"))}


@lru_cache(maxsize=4096)
def _option_numbers(texts: tuple) -> tuple[tuple[int, int, str | None], ...]:
    """(option index, value, counter kind or None) for each option that is a number with a counter."""
    out = []
    for index, raw in enumerate(texts):
        m = _OPTION_NUMBER.fullmatch(raw or "")
        if not m:
            continue
        unit = m.group(2)
        kind = None
        if unit:
            c = _COUNTER_AFTER.fullmatch(unit)
            if not c:
                continue
            kind = c.lastgroup
        out.append((index, int(m.group(1)), kind))
    return tuple(out)


# Where a number of each kind can be: numbers.py asks Kiwi about single syllables (열 is ten or heat), so it
# reads only a few words around these hints, never a whole long answer.
_HINTS = {
    "decade": r"\d|[A-Za-z]+|스물|스무|서른|마흔|쉰|예순|일흔|여든|아흔|[이삼사오육칠팔구]십|대|살|세",
    "people": r"\d|[A-Za-z]+|명|사람|분|인",
    "times": r"\d|[A-Za-z]+|번|회",
    "things": r"\d|[A-Za-z]+|개|가지|마리",
}
_HINTS["age"] = _HINTS["decade"]
_WORD = re.compile(r"\S+")


@lru_cache(maxsize=4096)
def _hint(kinds: frozenset) -> re.Pattern | None:
    if None in kinds:
        return None  # an option that is a bare number: any numeral may name it
    return re.compile("|".join(_HINTS[k] for k in sorted(kinds)))


def _numbers_in(text: str, hint: re.Pattern | None) -> list[tuple[int, int, int, bool]]:
    """(value, start, end, ordinal) of the numbers in text, read in windows of two words before a hint to
    one word after the word it is in (마흔다섯 살, 두 명, forty-five years)."""
    from apps.evaluation.scoring.numbers import find_numbers

    if hint is None:
        windows = [(0, len(text))]
    else:
        words = [w.span() for w in _WORD.finditer(text)]
        starts = [w[0] for w in words]
        windows = []
        for m in hint.finditer(text):
            i = max(bisect.bisect_right(starts, m.start()) - 1, 0)
            start, end = words[max(i - 2, 0)][0], words[min(i + 1, len(words) - 1)][1]
            if windows and start <= windows[-1][1]:
                windows[-1] = (windows[-1][0], max(end, windows[-1][1]))
            else:
                windows.append((start, end))
    out = []
    for start, end in windows:
        out += [(n.value, start + n.start, start + n.end, n.ordinal) for n in find_numbers(text[start:end])]
    return out


def _find_numbers(text: str, options: Options) -> list[Mention]:
    wanted = _option_numbers(options.texts)
    found = []
    spans = _numbers_in(text, _hint(frozenset(kind for _, _, kind in wanted)))
    spans += [(_DECADE_VALUES[m.group(1).lower()], m.start(), m.start(), False) for m in _DECADE_WORDS.finditer(text)]
    for value, start, end, ordinal in spans:
        if ordinal:
            continue
        kind = None
        if start == end:  # a decade word: its span is the word
            kind, end = "decade", start + len(_DECADE_WORDS.match(text, start).group())
        elif c := _COUNTER_AFTER.match(text, end):
            kind, end = c.lastgroup, c.end()
        for index, option_value, option_kind in wanted:
            if _same_number(value, kind, option_value, option_kind) and _word_ok(text, start, end):
                # A number without a counter names a counted option only when it is asserted ("정답은 2",
                # "2입니다"), not in passing ("one of them").
                bare = kind is None and option_kind is not None
                found.append(Mention(start, end, index, "bare number" if bare else "number"))
                break
    return found


def _same_number(value: int, kind: str | None, option_value: int, option_kind: str | None) -> bool:
    if option_kind == "decade":
        if kind == "decade":
            return value == option_value
        return kind in ("age", None) and option_value <= value < option_value + 10 and value >= 10
    if option_kind is None or kind is None:
        return value == option_value
    return kind == option_kind and value == option_value


# An option of several words, said with other particles or endings ("물이 100도에서 끓는다" answered "물은
# 100도에서 끓습니다", "boils at 100 degrees" answered "boiling at 100 degrees"): its content words in order,
# nothing but grammar between them. Korean through Kiwi's morphemes (stems and nouns, particles and endings
# dropped), English words lower-cased with function words dropped and a light stem, so both languages are
# read alike. Only tried when nothing else names an option (Kiwi reads the whole answer here).
_CONTENT_TAGS = frozenset(("NNG", "NNP", "NNB", "NR", "SN", "SL", "SH", "VV", "VA", "XR", "MAG", "MM"))
_LIGHT_NOUNS = frozenset(("것", "거", "수", "등", "때문", "점", "데"))
_STOP_EN = frozenset("a an the of to in at on for by with and or is are was were be been being it its this "
                     "that these those as from into than then there".split())
_LATIN_WORD = re.compile(r"[A-Za-z0-9]+")
_STEM_EN = re.compile(r"(?<=[a-z]{3})(?:ing|ed|es|s)$")


def _english_key(word: str) -> str | None:
    word = word.lower()
    return None if word in _STOP_EN else _STEM_EN.sub("", word)


@lru_cache(maxsize=8192)
def _content_keys(text: str) -> tuple[tuple[str, int, int], ...]:
    """(key, start, end) of each content word of text, in order."""
    if not _HANGUL.search(text):
        words = ((_english_key(m.group()), m.start(), m.end()) for m in _LATIN_WORD.finditer(text))
        return tuple(w for w in words if w[0])
    from apps.core.korean import kiwi

    out = []
    for t in kiwi().tokenize(text):
        if t.tag not in _CONTENT_TAGS or (t.tag == "NNB" and t.form in _LIGHT_NOUNS):
            continue
        key = _english_key(t.form) if t.tag == "SL" else t.form
        if key:
            out.append((key, t.start, t.start + t.len))
    return tuple(out)


def _find_by_words(text: str, options: Options) -> list[Mention]:
    wanted = [(i, tuple(k for k, _, _ in _content_keys(_norm(t)))) for i, t in enumerate(options.texts) if t]
    wanted = [(i, keys) for i, keys in wanted if len(keys) >= 2]
    if not wanted:
        return []
    said = _content_keys(text)
    keys = [k for k, _, _ in said]
    found = []
    for index, option in wanted:
        n = len(option)
        for start in range(len(keys) - n + 1):
            if tuple(keys[start:start + n]) == option:
                # The mention ends with its written word, so the words after it are weighed as for any
                # option ("...끓는다는 건 틀렸어요"); a verb negated in that word ("움직이지 않고") is ruled out.
                end = said[start + n - 1][2]
                word = _HANGUL.match(text, end)
                rest = text[end:]
                end = word.end() if word else end
                m = Mention(said[start][1], end, index, "text")
                m.negated = bool(_PREDICATE_NEGATED.match(rest))
                found.append(m)
    return found


_PREDICATE_NEGATED = re.compile(r"[가-힣]*지\s*(?:않|못)(?!\S*(?:을까|나요|잖))")


# ---------------------------------------------------------------------------------------------- weighing

def _clean(fragment: str) -> str:
    return _MARKDOWN.sub("", fragment)


def _weigh(text: str, m: Mention, first_start: int, options: Options) -> None:
    """Set the mention's negation and tier from the words around it."""
    rules = _rules()
    before = _clean(text[max(0, m.start - 60):m.start])
    after = _clean(text[m.end:m.end + 60])
    counted = m.form in ("number", "bare number") or (m.form == "text" and _numeric_texts((options.texts[m.index],)))
    if counted and (rules["partitive_before"].search(before) or rules["partitive_after"].match(after)):
        m.tier, m.cue = -1, "part of a group"  # dropped by read
        return
    if rules["negate_after"].match(after) or rules["negate_before"].search(before):
        m.negated = True
        return
    judged_wrong = rules["judged_wrong_after"].match(after)
    if judged_wrong and not options.negative_question:
        m.negated = True
        return
    tier, cue = 1, "passing mention"
    if judged_wrong:
        tier, cue = 2, "judged wrong, as the question asks"
    elif rules["final_before"].search(before):
        tier, cue = 4, "final answer"
    elif rules["answer_before"].search(before):
        tier, cue = 3, "answer cue before"
    elif rules["answer_after"].match(after):
        tier, cue = 3, "answer cue after"
    elif rules["soft_after"].match(after):
        tier, cue = 2, "copula or ending after"
    elif rules["soft_before"].search(before):
        tier, cue = 2, "assertion before"
    elif m.start == first_start and m.form != "text":
        tier, cue = 2, "opening the response"
    elif text[max(0, m.start - 2):m.start] in ("**", "__") or text[m.end:m.end + 2] in ("**", "__"):
        tier, cue = 2, "bold"
    if 2 <= tier <= 3 and cue != "answer cue before" and _concedes(after):
        tier, cue = 1, "conceded"
    if tier < 4 and _in_question(text, m.end):
        tier, cue = 0, "inside a question"
    m.tier, m.cue = tier, cue


def _concedes(after: str) -> bool:
    rules = _rules()
    return bool(rules["concession_en"].match(after) or rules["concession_ko"].match(after.lstrip()))


def _in_question(text: str, end: int) -> bool:
    m = _SENTENCE_END.search(text, end)
    return bool(m and m.group() == "?")


def _group(text: str, mentions: list[Mention]) -> None:
    """Mentions joined only by coordinators ("A or C", "남성 또는 여성", "ㄱ과 ㄴ") share their strongest tier,
    and a negation on either end of the group covers it ("neither", "ㄱ과 ㄴ은 틀렸습니다")."""
    coordinator = _rules()["coordinator"]
    groups, current = [], [mentions[0]]
    for m in mentions[1:]:
        gap = text[current[-1].end:m.start]
        if len(gap) <= 12 and coordinator.match(gap) and m.index != current[-1].index:
            current.append(m)
        else:
            groups.append(current)
            current = [m]
    groups.append(current)
    for g in groups:
        if len(g) < 2:
            continue
        negated = g[0].negated or g[-1].negated
        best = max(g, key=lambda m: m.tier)
        for m in g:
            if negated:
                m.negated = True
            elif not m.negated and m.tier < best.tier:
                m.tier, m.cue = best.tier, best.cue + " (joined)"


def _merge(text: str, mentions: list[Mention]) -> list[Mention]:
    """Overlaps resolved (the longer mention wins: the label inside an option's text is no label), and a
    label next to its own text ("B. whale", "whale (B)", "ㄴ, 사암") made one mention."""
    mentions.sort(key=lambda m: (m.start, -(m.end - m.start)))
    kept: list[Mention] = []
    for m in mentions:
        if kept and m.start < kept[-1].end:
            continue
        if kept and kept[-1].index == m.index and re.fullmatch(r"[\s.:)(\[\]\-,*_\"'=]*", text[kept[-1].end:m.start]):
            prev = kept[-1]
            forms = prev.form if prev.form == m.form else f"{prev.form} and {m.form}"
            kept[-1] = Mention(prev.start, m.end, m.index, forms)
            continue
        kept.append(m)
    return kept


def find_mentions(response: str, options: Options) -> tuple[str, list[Mention]]:
    """(the prepared text, every mention of an option in it, in order, merged)."""
    text = prepare(response)
    low = text.lower()
    if len(low) != len(text):  # a character whose lower case is longer (İ): match on the original
        low = text
    found = _find_texts(text, low, options) + _find_labels(text, options) + _find_ordinals(text, low, options)
    if _numeric_texts(options.texts):
        found += _find_numbers(text, options)
    if not found and any(options.texts):
        found = _find_by_words(text, options)
    return text, _merge(text, found)


def read(response: str, options: Options) -> Reading:
    """The option the response asserts (see the module docstring)."""
    text, mentions = find_mentions(response, options)
    if not mentions:
        return Reading(None)
    opening = re.match(r"[\W_]*(?:(?:final\s+)?answer|정답|답)?[\W_]*", text, re.I).end()
    first_start = mentions[0].start if mentions[0].start <= opening and not _enumerates(text, mentions) else -1
    for m in mentions:
        _weigh(text, m, first_start, options)
    _group(text, mentions)
    _whole_response(text, mentions)
    mentions = [m for m in mentions if m.tier >= 0 and (m.form != "bare number" or m.tier >= 2)]
    mentions = _after_correction(text, mentions)
    negated = sorted({m.index for m in mentions if m.negated} - {m.index for m in mentions if not m.negated})
    standing = [m for m in mentions if not m.negated]
    if not standing:
        left = [i for i in range(options.count) if i not in negated]
        if len(left) == 1 and len(negated) == options.count - 1:
            return Reading(left[0], "elimination: every other option ruled out", negated=negated)
        return Reading(None, negated=negated)
    top = max(m.tier for m in standing)
    chosen = sorted({m.index for m in standing if m.tier == top})
    if len(chosen) > 1:
        how = "two options asserted" if top >= 2 else "several options mentioned, none asserted"
        return Reading(None, how, ambiguous=chosen, negated=negated)
    last = [m for m in standing if m.tier == top][-1]
    return Reading(chosen[0], f"{last.form}: {last.cue}", negated=negated)


_LINE_START = re.compile(r"(?:^|\n)[ \t]*(?:[-*•>#]+[ \t]*)*$")


def _enumerates(text: str, mentions: list[Mention]) -> bool:
    """Whether the response lists options line by line ("A) shark - fish", then "B) whale - mammal" on the
    next line): its first label then opens a list, not an answer."""
    at_line_start = {m.index for m in mentions if _LINE_START.search(text, 0, m.start)}
    return len(at_line_start) >= 2


def _whole_response(text: str, mentions: list[Mention]) -> None:
    """A response that is nothing but one option ("B", "(ㄴ)", "**whale**", "여성", "두 번째") asserts it."""
    if len({m.index for m in mentions}) != 1 or any(m.negated for m in mentions):
        return
    if len(text) - sum(m.end - m.start for m in mentions) > 40:
        return  # more words than "final answer:" and punctuation
    rest = text
    for m in reversed(mentions):
        rest = rest[:m.start] + " " + rest[m.end:]
    rest = re.sub(r"(?i)\b(?:final\s+)?answer\b|정답|답|option|choice", " ", rest)
    if re.fullmatch(r"[\W_]*", rest):
        for m in mentions:
            if m.tier < 3:
                m.tier, m.cue = 3, "the whole response"


def _after_correction(text: str, mentions: list[Mention]) -> list[Mention]:
    """After a correction word that is followed by an assertion, earlier mentions no longer count."""
    asserted = [m for m in mentions if not m.negated and m.tier >= 2]
    if len({m.index for m in asserted}) < 2:
        return mentions
    cut = None
    for c in _rules()["correction"].finditer(text):
        earlier = {m.index for m in asserted if m.end <= c.start()}
        later = {m.index for m in asserted if m.start >= c.end()}
        if earlier and later and later != earlier:
            cut = c.start()
    if cut is None:
        return mentions
    return [m for m in mentions if m.start >= cut]
