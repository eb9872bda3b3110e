"""Numbers in a text, written in digits or in words, English and Korean (no database here).

`find_numbers(text)` lists every number with its character offsets; `parse_number(text)` is the value of a
text that is just a number ("1945년", "세 명이요", "Seven."). Readers compare these values, so 7, seven,
일곱 and 칠 are one answer, and 1945, 천구백사십오 and nineteen forty-five another.

Digits: ASCII, full-width, subscript and superscript digits (H₂O reads 2, x² reads 2), with thousands
separators (1,945); a decimal (3.5) is not an integer and is not read. 3rd, 2번째 and 제3 are ordinals;
3천, 2천5백 and 3 million carry their unit.

English words: cardinals and ordinals to the billions ("forty-two", "one thousand nine hundred and
forty-five", "twenty-first"), and years said in pairs ("nineteen forty-five", "twenty twenty-four",
"nineteen oh five"). "one" as a pronoun ("the right one") and "second" as time ("wait a second") are not
read. The PyPI parsers were tried and not used: word2number only converts a whole string (no offsets, no
ordinals, no years), and text2num 3.1 reads "nineteen forty-five" as "19 45", skips "one" and "second", and
gives offsets only through its own token protocol.

Korean: Sino-Korean (칠, 삼십, 천구백사십오, 이천이십사, 3만) and native (일곱, 스물, 마흔다섯) numerals,
the native forms before a counter (한/두/세/네/스무 + 명, 살, 개, 번...), and ordinals (첫째, 둘째, 두 번째,
세번째, 제3). A Sino-Korean single syllable is also a word or particle (이 "this"/subject particle, 일
"work", 사 in 사과, 구 in 구분), and the native adnominals are words too (네 "yes", 세 in 세대): a single
syllable is read as a number only when the whole answer is that numeral (칠, 칠이요), or, before a counter
or a copula, when Kiwi tags it a numeral (NR). Kiwi runs only there, once per text (cached). The counters
and endings are the versioned data file data/numbers.yaml.

Offsets are in the text as given; Hangul is read as precomposed syllables, so callers pass NFC text."""

import re
from dataclasses import dataclass
from functools import cache, lru_cache

from apps.evaluation.scoring.result import data_file


@dataclass(frozen=True)
class Number:
    value: int
    start: int
    end: int
    ordinal: bool


# Full-width, subscript and superscript digits -> ASCII, one character for one, so offsets do not move.
_DIGIT_FOLD = str.maketrans("０１２３４５６７８９₀₁₂₃₄₅₆₇₈₉⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789" * 3)


def fold_digits(text: str) -> str:
    return text.translate(_DIGIT_FOLD)


def version() -> str:
    return _rules()["version"]


# ---------------------------------------------------------------------------------------------- English

_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_TEENS = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
          "nineteen"]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
             "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
             "eighteenth", "nineteenth"]
_TENS_ORDINALS = ["twentieth", "thirtieth", "fortieth", "fiftieth", "sixtieth", "seventieth", "eightieth",
                  "ninetieth"]
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}


def _kind(value: int) -> str:
    return "zero" if value == 0 else "unit" if value < 10 else "teen" if value < 20 else "tens"


# word -> (kind, value, ordinal)
_LEXICON: dict[str, tuple[str, int, bool]] = {}
for _v, _w in enumerate(_UNITS + _TEENS):
    _LEXICON[_w] = (_kind(_v), _v, False)
for _i, _w in enumerate(_TENS):
    _LEXICON[_w] = ("tens", 20 + 10 * _i, False)
_LEXICON["fourty"] = _LEXICON["forty"]  # a common misspelling
for _v, _w in enumerate(_ORDINALS, start=1):
    _LEXICON[_w] = (_kind(_v), _v, True)
for _i, _w in enumerate(_TENS_ORDINALS):
    _LEXICON[_w] = ("tens", 20 + 10 * _i, True)
_LEXICON.update({"hundred": ("hundred", 100, False), "hundredth": ("hundred", 100, True)})
for _w, _v in _SCALES.items():
    _LEXICON[_w] = ("scale", _v, False)
    _LEXICON[_w + "th"] = ("scale", _v, True)

_WORD = re.compile(r"[A-Za-z]+")
_JOIN = re.compile(r"[ \t]*-?[ \t]*")  # what may stand between two words of one number
# Words before "one" that make it a pronoun ("the right one", "which one"), and before "second" that make
# it a unit of time ("a second", "per second").
_PRONOUN_ONE_BEFORE = {"the", "this", "that", "which", "each", "any", "every", "no", "some", "another", "a",
                       "an", "other", "last", "next", "right", "wrong", "correct", "same", "such", "only",
                       "little", "big", "new", "old", "good", "best", "latter", "former"}
_TIME_SECOND_BEFORE = {"a", "one", "per", "split", "every", "each", "just", "half"}


def _english(text: str) -> list[Number]:
    words = [(m.group().lower(), m.start(), m.end()) for m in _WORD.finditer(text)]
    out, i = [], 0
    while i < len(words):
        read = _english_number(text, words, i)
        if read is None:
            i += 1
            continue
        number, i = read
        if number is not None:
            out.append(number)
    return out


def _english_number(text: str, words: list, i: int) -> tuple[Number | None, int] | None:
    """The number starting at words[i] and the index after it; None when words[i] starts none."""
    def joined(k: int) -> bool:
        return _JOIN.fullmatch(text, words[k - 1][2], words[k][1]) is not None

    first = words[i][0]
    if first in ("a", "an") and i + 1 < len(words) and _LEXICON.get(words[i + 1][0], ("",))[0] in ("hundred", "scale") \
            and joined(i + 1):
        total, current, prev, k = 0, 1, "unit", i + 1  # "a hundred", "a thousand"
    elif _LEXICON.get(first, ("",))[0] in ("unit", "teen", "tens", "zero"):
        total, current, prev, k = 0, 0, None, i
    else:
        return None
    last_scale, year, ordinal = float("inf"), False, False
    while k < len(words):
        w = words[k][0]
        if k > i and not joined(k):
            break
        if w == "and" and prev in ("hundred", "scale") and k + 1 < len(words) and joined(k + 1) \
                and _LEXICON.get(words[k + 1][0], ("",))[0] in ("unit", "teen", "tens"):
            k += 1
            continue
        year_start = not year and total == 0 and prev in ("teen", "tens") and 10 <= current <= 29
        if w == "oh" and year_start and k + 1 < len(words) and _LEXICON.get(words[k + 1][0], ("",))[0] == "unit":
            total, current, year, prev, k = current * 100, 0, True, "oh", k + 1
            continue
        entry = _LEXICON.get(w)
        if entry is None:
            break
        kind, value, is_ordinal = entry
        if prev is None:
            ok = kind != "hundred" and kind != "scale"
        elif kind == "unit":
            ok = (prev == "tens" and current % 10 == 0) or prev in ("hundred", "scale", "oh")
        elif kind in ("teen", "tens"):
            ok = prev in ("hundred", "scale") or year_start
            if year_start and prev not in ("hundred", "scale"):
                total, current, year = current * 100, 0, True
        elif kind == "hundred":
            ok = not year and prev in ("unit", "teen", "tens") and 0 < current < 100
        elif kind == "scale":
            ok = not year and prev in ("unit", "teen", "tens", "hundred") and value < last_scale
        else:
            ok = False
        if not ok:
            break
        if kind == "hundred":
            current *= 100
        elif kind == "scale":
            total, current, last_scale = total + current * value, 0, value
        else:
            current += value
        prev, k = kind, k + 1
        if is_ordinal:
            ordinal = True
            break
    if k == i or prev is None:
        return None
    start, end = words[i][1], words[k - 1][2]
    if k - i == 1 and _not_a_number(text, words, i):
        return None, k
    return Number(total + current, start, end, ordinal), k


def _not_a_number(text: str, words: list, i: int) -> bool:
    """A lone "one" that is a pronoun, or a lone "second" that is time."""
    w = words[i][0]
    if w not in ("one", "second"):
        return False
    # Only a word in the same phrase counts (nothing but spaces between).
    before = words[i - 1][0] if i > 0 and text[words[i - 1][2]:words[i][1]].isspace() else ""
    if w == "second":
        return before in _TIME_SECOND_BEFORE
    if before in _PRONOUN_ONE_BEFORE or before in _LEXICON and _LEXICON[before][2]:
        return True
    # "the blue one": an article two words back
    two_before = words[i - 2][0] if i > 1 and text[words[i - 2][2]:words[i - 1][1]].isspace() else ""
    return bool(before) and two_before in ("the", "this", "that", "which", "a", "an")


# ---------------------------------------------------------------------------------------------- digits

_DIGITS = re.compile(r"(?<![\d.])(\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?!\d)(?!\.\d)")
_ENGLISH_SUFFIX = re.compile(r"(st|nd|rd|th)\b", re.IGNORECASE)
_ENGLISH_SCALE = re.compile(r"[ \t]+(hundred|thousand|million|billion|trillion)\b", re.IGNORECASE)
_KOREAN_UNITS_AFTER_DIGITS = re.compile(r"(?:[십백천만억]|\d+)*[십백천만억]")
_NTH = re.compile(r"[ \t]?번째")
_JE_BEFORE = re.compile(r"(?<![가-힣])제[ \t]?$")


def _digits(text: str) -> list[Number]:
    out = []
    for m in _DIGITS.finditer(text):
        start, end = m.span()
        value, ordinal = int(m.group().replace(",", "")), False
        if suffix := _ENGLISH_SUFFIX.match(text, end):
            end, ordinal = suffix.end(), True
        elif units := _KOREAN_UNITS_AFTER_DIGITS.match(text, end):
            combined = _sino_value([value] + _sino_pieces(units.group()))
            if combined is not None:
                value, end = combined, units.end()
        elif scale := _ENGLISH_SCALE.match(text, end):
            value, end = value * _SCALES.get(scale.group(1).lower(), 100), scale.end()
        if nth := _NTH.match(text, end):
            end, ordinal = nth.end(), True
        if je := _JE_BEFORE.search(text, 0, start):
            start, ordinal = je.start(), True
        out.append(Number(value, start, end, ordinal))
    return out


# ---------------------------------------------------------------------------------------------- Korean

_SINO_DIGITS = {"영": 0, "공": 0, "일": 1, "이": 2, "삼": 3, "사": 4, "오": 5, "육": 6, "륙": 6, "칠": 7,
                "팔": 8, "구": 9}
_SINO_SMALL = {"십": 10, "백": 100, "천": 1000}
_SINO_BIG = {"만": 10**4, "억": 10**8}
_SINO_UNITS = {**_SINO_SMALL, **_SINO_BIG}
_SINO_RUN = re.compile("[" + "".join(_SINO_DIGITS) + "".join(_SINO_SMALL) + "".join(_SINO_BIG) + "]+")
_MONTHS = {"유월": 6, "시월": 10}  # June and October drop the final consonant of 육 and 십

_NATIVE_TENS = {"열": 10, "스물": 20, "서른": 30, "마흔": 40, "쉰": 50, "예순": 60, "일흔": 70, "여든": 80,
                "아흔": 90}
_NATIVE_UNITS = {"하나": 1, "한": 1, "둘": 2, "두": 2, "셋": 3, "세": 3, "석": 3, "넷": 4, "네": 4, "넉": 4,
                 "다섯": 5, "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9}
_ADNOMINAL = {"한", "두", "세", "석", "네", "넉", "스무"}  # the forms that stand only before a counter
_AMBIGUOUS_NATIVE = {"열", "쉰"}  # also "heat" / "open", and "sour" / "rests"
_UNIT_ALTERNATIVES = "|".join(_NATIVE_UNITS)
_NATIVE = re.compile(f"(?:({'|'.join(_NATIVE_TENS)})({_UNIT_ALTERNATIVES})?|(스무)|({_UNIT_ALTERNATIVES}))")
_HANGUL_RUN = re.compile(r"[가-힣]+")


@cache
def _rules() -> dict:
    rules = data_file("numbers.yaml")

    def alternatives(words) -> str:
        return "|".join(map(re.escape, sorted(set(words), key=len, reverse=True)))

    particles, copulas = alternatives(rules["particles"]), alternatives(rules["copulas"])
    return {
        "version": rules["version"],
        "counters": tuple(sorted(set(rules["counters"]), key=len, reverse=True)),
        "attached_after_native": frozenset(rules["attached_after_native"]),
        "not_numbers": tuple(rules["not_numbers"]),
        # what may close a word after a number or its counter: particles, then a copula or ending
        "tail": re.compile(f"(?:{particles}){{0,2}}(?:{copulas})?"),
        "copula": re.compile(f"(?:{copulas})"),
        "copula_start": re.compile(f"(?:{copulas})"),
    }


def _sino_pieces(run: str) -> list:
    out: list = []
    for m in re.finditer(r"\d+|.", run):
        piece = m.group()
        out.append(int(piece) if piece.isdigit() else piece)
    return out


def _sino_value(pieces: list) -> int | None:
    """The value of Sino-Korean digits and units (digit strings allowed as digits: 3만, 2천5백), or None
    when they do not form one numeral (two digits in a row: 이사, 사이; units out of order)."""
    total = section = 0
    digit = None
    last_small = last_big = float("inf")
    for piece in pieces:
        if isinstance(piece, int) or piece in _SINO_DIGITS:
            if digit is not None:
                return None
            digit = piece if isinstance(piece, int) else _SINO_DIGITS[piece]
        elif piece in _SINO_SMALL:
            unit = _SINO_SMALL[piece]
            if unit >= last_small or digit == 0:
                return None
            section, digit, last_small = section + (1 if digit is None else digit) * unit, None, unit
        else:
            unit = _SINO_BIG[piece]
            if unit >= last_big or digit == 0:
                return None
            amount = section + (digit or 0) or 1
            total, section, digit, last_small, last_big = total + amount * unit, 0, None, float("inf"), unit
    return total + section + (digit or 0)


@lru_cache(maxsize=4096)
def _kiwi_numerals(text: str) -> dict[int, int]:
    """Where Kiwi reads a numeral (NR) in text, start -> end: the only analysis this module runs."""
    from apps.core.korean import kiwi

    return {t.start: t.start + t.len for t in kiwi().tokenize(text) if t.tag == "NR"}


class _Korean:
    """Reads the Hangul words of one text, each word being a run of syllables."""

    def __init__(self, text: str):
        self.text = text
        self.runs = [(m.start(), m.end()) for m in _HANGUL_RUN.finditer(text)]
        self.run_at = {start: i for i, (start, _) in enumerate(self.runs)}
        self.rules = _rules()
        self._compact = None

    def whole(self, start: int, end: int) -> bool:
        """Is this word all the response says (apart from spaces and punctuation)?"""
        if self._compact is None:
            self._compact = re.sub(r"[\W_]+", "", self.text)
        return self._compact == self.text[start:end]

    def kiwi_numeral(self, start: int) -> int | None:
        """The end of the numeral Kiwi reads at the word starting at start, or None. Kiwi reads only that word
        with its neighbours (its cost grows faster than the text: 0.05 ms for three words, 3 ms for twenty):
        the word before gives context (이천이십사년 일이에요 is "a matter of 2024", not 1), the word after
        may be the counter (사 층) or tell a noun (열이 나요). The snippets repeat across answers, so the cache answers most."""
        index = self.run_at[start]
        begin = self.runs[index - 1][0] if index > 0 and self.text[self.runs[index - 1][1]:start].strip(" \t") == "" \
            else start
        # A short word (사, 열이) needs the next (층, 나요); a longer one carries its copula (칠입니다).
        following = self.next_word(index) if self.runs[index][1] - start <= 2 else None
        end = following[0] + len(following[1]) if following else self.runs[index][1]
        found = _kiwi_numerals(self.text[begin:end]).get(start - begin)
        return None if found is None else begin + found

    def counter(self, word: str) -> str | None:
        """The counter word starts with, when only particles or a copula follow it."""
        tail = self.rules["tail"]
        for counter in self.rules["counters"]:
            if word.startswith(counter) and tail.fullmatch(word, len(counter)):
                return counter
        return None

    def numbers(self) -> list[Number]:
        out = []
        for index, (start, end) in enumerate(self.runs):
            if start > 0 and self.text[start - 1].isdigit():
                continue  # 8개, 3천: read with the digits
            number = self.read(index, start, end)
            if number is not None:
                out.append(number)
        return out

    def next_word(self, index: int) -> tuple[int, str] | None:
        """The next word, when only spaces stand between (두 명, 칠 년)."""
        if index + 1 >= len(self.runs):
            return None
        start, end = self.runs[index + 1]
        between = self.text[self.runs[index][1]:start]
        return (start, self.text[start:end]) if between.strip(" \t") == "" else None

    def after(self, index: int, rest: str, rest_start: int):
        """What follows a numeral: ("counter", counter, end), ("nth", end) for 번째/째, ("tail", rest) for
        particles or a copula, ("bare", None) when the word ends there, or None."""
        if rest:
            if rest.startswith("번째") or rest.startswith("째"):
                size = 2 if rest.startswith("번째") else 1
                return ("nth", rest_start + size) if self.rules["tail"].fullmatch(rest, size) else None
            counter = self.counter(rest)
            if counter:
                return "counter", counter, rest_start + len(counter), False
            return ("tail", rest) if self.rules["tail"].fullmatch(rest) else None
        following = self.next_word(index)
        if following is not None:
            start, word = following
            if word.startswith("번째") and self.rules["tail"].fullmatch(word, 2):
                return "nth", start + 2
            counter = self.counter(word)
            if counter:
                return "counter", counter, start + len(counter), True
        return "bare", following

    def read(self, index: int, start: int, end: int) -> Number | None:
        word = self.text[start:end]
        if any(word.startswith(w) for w in self.rules["not_numbers"]):
            return None
        if word.startswith("첫"):
            after = self.after(index, word[1:], start + 1)
            return Number(1, start, after[1], True) if after and after[0] == "nth" else None
        if word[:2] in _MONTHS and self.rules["tail"].fullmatch(word, 2):
            return Number(_MONTHS[word[:2]], start, start + 2, False)
        if word.startswith("제") and (sino := _SINO_RUN.match(word, 1)) and len(sino.group()) > 1:
            value = _sino_value(_sino_pieces(sino.group()))
            if value is not None:
                return Number(value, start, start + sino.end(), True)
        if native := _NATIVE.match(word):
            number = self.native(index, start, word, native)
            if number is not None:
                return number
        if sino := _SINO_RUN.match(word):
            return self.sino(index, start, word, sino.group())
        return None

    def native(self, index: int, start: int, word: str, m: re.Match) -> Number | None:
        tens, unit, twenty, alone = m.groups()
        value = _NATIVE_TENS.get(tens, 0) + _NATIVE_UNITS.get(unit or alone, 0) + (20 if twenty else 0)
        form = m.group()
        end = start + len(form)
        after = self.after(index, word[len(form):], end)
        if after is None:
            return None
        if after[0] == "nth":
            return Number(value, start, after[1], True)
        if after[0] == "counter":
            _, counter, _, spaced = after
            if form in _AMBIGUOUS_NATIVE and not spaced:
                return Number(value, start, end, False) if self.kiwi_numeral(start) is not None else None
            if form[-1:] in _ADNOMINAL or form == "스무" or (form[-2:] == "스무"):
                if not spaced and counter not in self.rules["attached_after_native"]:
                    return None
            return Number(value, start, end, False)
        if form in _ADNOMINAL or (unit in _ADNOMINAL) or twenty:
            return None  # 한, 두, 세, 네 stand only before a counter
        if form in _AMBIGUOUS_NATIVE and not self.whole(start, start + len(word)):
            return Number(value, start, end, False) if self.kiwi_numeral(start) is not None else None
        return Number(value, start, end, False)

    def sino(self, index: int, start: int, word: str, run: str) -> Number | None:
        # The longest prefix that is one numeral: 이사 is not one (two digits), so only 이 is tried.
        for size in range(len(run), 0, -1):
            value = _sino_value(list(run[:size]))
            if value is not None:
                break
        else:
            return None
        form, rest = run[:size], word[size:]
        if form in _SINO_DIGITS and _SINO_DIGITS[form] == 0 and size > 1:
            return None
        # 삼십이에요 is 30 + 이에요 or 32 + 에요: Kiwi decides (it reads 30, as 32 is usually spelt 삼십이예요).
        if size > 1 and form.endswith("이") and form[-2] in _SINO_UNITS and rest and not rest.startswith("예") \
                and self.rules["copula"].fullmatch("이" + rest):
            if self.kiwi_numeral(start) == start + size - 1:
                form, rest, value = form[:-1], "이" + rest, value - 2
        end = start + len(form)
        after = self.after(index, rest, end)
        if after is None:
            return None
        if after[0] == "nth":
            return Number(value, start, after[1], True)
        ambiguous = len(form) == 1 or (len(form) == 2 and form[-1] == "만")  # 일만 "only work", 오만 "pride"
        if not ambiguous:
            return Number(value, start, end, False)
        if after[0] == "counter" and after[1] == "월" and not after[3]:
            return Number(value, start, end, False)  # 구월, 칠월: the months
        if self.whole(start, start + len(word)) and (not rest or self.rules["copula"].fullmatch(rest)):
            return Number(value, start, end, False)  # the whole answer: 칠, 칠이요
        if after[0] == "counter" or (after[0] == "tail" and self.rules["copula_start"].match(rest)) \
                or (after[0] == "bare" and self._clause_end(index, after[1])):
            return Number(value, start, end, False) if self.kiwi_numeral(start) is not None else None
        return None

    def _clause_end(self, index: int, following) -> bool:
        """A bare syllable at the end of its clause (정답은 칠.) or before a spaced copula (칠 입니다)."""
        if following is None:
            return True
        return self.rules["copula"].fullmatch(following[1]) is not None


# ---------------------------------------------------------------------------------------------- API

@lru_cache(maxsize=4096)
def _find(text: str) -> tuple[Number, ...]:
    folded = fold_digits(text)
    found = _digits(folded)
    if re.search("[A-Za-z]", folded):
        found += _english(folded)
    if re.search("[가-힣]", folded):
        found += _Korean(folded).numbers()
    found.sort(key=lambda n: (n.start, -n.end))
    out: list[Number] = []
    for number in found:  # the first and longest of overlapping readings
        if out and number.start < out[-1].end:
            continue
        out.append(number)
    return tuple(out)


def find_numbers(text: str) -> list[Number]:
    """Every number in text, in order, with character offsets into text."""
    return list(_find(str(text or "")))


_LEFTOVER = re.compile(r"[\W_]+")


def is_particle_tail(text: str) -> bool:
    """Is text (the rest of a Korean word) only particles and a copula or ending: 이, 은요, 입니다, 이에요?"""
    return _rules()["tail"].fullmatch(text) is not None


def parse_number(text: str) -> int | None:
    """The value of a text that is only a number, maybe with a counter, particles or a copula ("1945년",
    "세 명이요", "Seven.", "일곱 살입니다"); None otherwise."""
    text = str(text or "")
    numbers = _find(text)
    if len(numbers) != 1:
        return None
    number = numbers[0]
    rest = _LEFTOVER.sub("", text[:number.start]) + _LEFTOVER.sub("", text[number.end:])
    if not rest:
        return number.value
    korean = _Korean("")
    counter = korean.counter(rest)
    if _LEFTOVER.sub("", text[:number.start]) == "" and (counter or korean.rules["tail"].fullmatch(rest)):
        return number.value
    return None
