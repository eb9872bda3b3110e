"""The deterministic speech-friendly Korean normalizer (seed 000, section 3.1.3 and Appendix C).

kiwipiepy finds the written-only spans: it tags numbers (SN), Latin (SL), symbols (SW, SO), labels (SB),
serials (W_SERIAL), e-mail addresses and URLs, and tells where the Korean around them starts, so a number's
counter is the Korean that follows it. Each span is read with the tables of the published normalization
rulebook version (`Rule.data`: numerals, counters, months, currency, units, letters...); every reading
names the rule whose table produced it. What the rulebook marks as context-dependent (번 after a number, a
colon or hyphen between numbers, inequality signs) is left as written and returned in `pending` for the
normalizer agent. `validate` checks what is left: no digit, Latin letter or symbol except preserved spans.

No library on PyPI reads counters correctly (num2words, g2pk, nemo-text-processing and kornorm all read
3명 as 삼명 or 20번째 as 스물 번째), hence this module.
"""

import re
import unicodedata
from dataclasses import dataclass, field

from apps.core.korean import kiwi
from apps.transfer.normalizer.numbers import NumberAt, read_number
from apps.transfer.normalizer.tables import Tables

# The longest text read at once (the page's box, the command, each benchmark sample): a spoken question is
# far shorter, and kiwipiepy's analysis of one long word grows faster than its length.
MAX_CHARS = 5000

# kiwipiepy tags that mark written-only material; Korean morphemes between them are copied as they are.
RAW_TAGS = {"SN", "SL", "SW", "SO", "SP", "SF", "SE", "SSO", "SSC", "SB", "SH", "W_URL", "W_EMAIL", "W_SERIAL",
            "W_HASHTAG", "W_MENTION", "W_EMOJI"}
HANGUL = re.compile(r"[가-힣]")
NEEDS_READING = re.compile(r"[^가-힣 .,?!]")
EMAIL = re.compile(r"^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$", re.ASCII)
URL = re.compile(r"^(?:https?://)?(?:www\.)?[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}(?:/[\w./-]*)?$", re.ASCII)
DOT_WORD = re.compile(r"^\.[A-Za-z0-9]+$")
DATE = re.compile(r"\d{4}[/.-]\d{1,2}[/.-]\d{1,2}")
BEFORE_TAIL = 200  # characters of the text before a span that its reading looks at (not all: quadratic)
LONG_RUN = 40
LONG_DIGITS = re.compile(rf"\d{{{LONG_RUN + 1},}}")
LATEX_MATH = re.compile(r"\$([^$]*[\\^_{][^$]*)\$")
LATEX_COMMANDS = {r"\times": "×", r"\cdot": "·", r"\div": "÷", r"\pm": "±", r"\le": "≤", r"\ge": "≥",
                  r"\neq": "≠", r"\infty": "∞"}
PIECES = re.compile(
    r"""(?P<pow>\^(?:\{(?P<bexp>[^}]*)\}|(?P<exp>[-−]?[\w.]+)))
    |(?P<sci>(?P<mant>\d+(?:\.\d+)?)[eE](?P<sexp>[+-]?\d+)(?![A-Za-z]))
    |(?P<date>\d{4}[/.-]\d{1,2}[/.-]\d{1,2})
    |(?P<frac>\d+/\d+)
    |(?P<colon>\d+:\d+)
    |(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)
    |(?P<deg>°[CF]|℃|℉|°)
    |(?P<latin>[A-Za-zμ][A-Za-zμ0-9²³]*)
    |(?P<greek>[α-ωΑ-Ω])
    |(?P<jamo>[ㄱ-ㅎ])
    |(?P<ellipsis>\.\.\.)
    |(?P<ch>\S)""",
    re.X,
)


DECADE_COUNTER = "대"  # 20대: the twenties, when the words after it name people (see _is_age_group)
AFTER_TAIL = 40  # characters after a span that its reading may look at

# Compatibility forms (see Normalizer._compatibility_forms).
COMPAT_UNIT = re.compile(r"[\u3380-\u33df\u2113]")  # ㎀-㏟ and ℓ
SUBSCRIPT = re.compile(r"[₀-₉]")
SUBSCRIPT_DIGITS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
SUPERSCRIPT_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
SUPERSCRIPT = re.compile(r"(?P<base>[A-Za-zμ]+|[\d)])?(?P<raised>⁻?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)")


def _folded_unit(symbol: str) -> str:
    """㎠ -> cm², ㎧ -> m/s: NFKC, with the division slash as / and a power as the units table writes it."""
    folded = unicodedata.normalize("NFKC", symbol).replace("∕", "/")
    return re.sub(r"(?<=[A-Za-z])([23])$", lambda m: "²" if m.group(1) == "2" else "³", folded)


@dataclass
class Pending:
    """A context-dependent span left as written for the agent; `start`/`end` are offsets in the output."""

    span: str
    kind: str
    start: int
    end: int


@dataclass
class Normalized:
    text: str
    readings: list[dict] = field(default_factory=list)
    rules_fired: list[str] = field(default_factory=list)
    pending: list[Pending] = field(default_factory=list)
    preserved: list[str] = field(default_factory=list)
    span_rules: list[str] = field(default_factory=list, repr=False)  # rules fired while reading one span

    def fire(self, rule_id: str) -> None:
        if rule_id not in self.rules_fired:
            self.rules_fired.append(rule_id)
        if rule_id not in self.span_rules:
            self.span_rules.append(rule_id)


class Normalizer:
    def __init__(self, tables: Tables):
        self.t = tables
        self.counters = sorted(
            [(c, "native") for c in tables["native_counters"]] + [(c, "sino") for c in tables["sino_counters"]]
            + [(c, "context") for c in tables["counters"]],
            key=lambda item: -len(item[0]),
        )
        self.elements = set(tables["elements"])
        symbols = "|".join(sorted(self.elements, key=len, reverse=True))
        self.formula = re.compile(rf"^(?:(?:{symbols})\d*)+$")
        self.context_patterns = {name: re.compile(p) for name, p in tables["patterns"].items()}
        self.preserve_terms = set(tables["preserve_terms"])

    # --- numerals ----------------------------------------------------------------------------------------

    def sino(self, digits: str) -> str:
        """Sino-Korean reading of an integer: 12345 -> 만 이천삼백사십오 (일 dropped before 십, 백, 천 and
        a leading 만; groups of four digits spaced as Korean writes them)."""
        d, places, groups = self.t["sino_digits"], self.t["sino_places"], self.t["sino_groups"]
        if len(digits) > 4 * len(groups):
            # Past the largest group (경: 20 digits) no Korean number word exists; such a run is a serial or
            # a code and is read digit by digit (which also keeps int() away from thousands of digits).
            return "".join(d[int(c)] for c in digits)
        n = int(digits)
        if n == 0:
            return d[0]
        parts = []
        for g in range(len(groups) - 1, -1, -1):
            chunk = (n // 10 ** (4 * g)) % 10000
            if not chunk:
                continue
            words = ""
            for p in range(3, -1, -1):
                digit = (chunk // 10**p) % 10
                if digit:
                    words += ("" if digit == 1 and p > 0 else d[digit]) + places[p]
            if g == 1 and chunk == 1:
                words = ""  # 10000 is 만, not 일만
            parts.append(words + groups[g])
        return " ".join(parts)

    def sino_number(self, text: str) -> str:
        """An integer or a decimal as written (commas allowed): 6.5 -> 육 점 오; 007 -> 영영칠."""
        text = text.replace(",", "")
        whole, _, frac = text.partition(".")
        d = self.t["sino_digits"]
        if len(whole) > 1 and whole.startswith("0"):
            reading = "".join(d[int(c)] for c in whole)
        else:
            reading = self.sino(whole)
        if frac:
            reading += f" {self.t['decimal_point']} " + "".join(d[int(c)] for c in frac)
        return reading

    def native(self, n: int) -> str:
        """Native Korean before a counter: 3 세, 20 스무, 21 스물한, 125 백스물다섯 (hundreds stay Sino)."""
        high, low = divmod(n, 100)
        head = self.sino(str(high * 100)) if high else ""
        if not low:
            return head or self.t["sino_digits"][0]
        if low == 20:
            return head + self.t["native_twenty_before_counter"]
        return head + self.t["native_tens"][low // 10] + self.t["native_units"][low % 10]

    def counter_at(self, text: str, pos: int) -> tuple[str, str] | None:
        for counter, kind in self.counters:
            if text.startswith(counter, pos):
                return counter, kind
        return None

    def number_with_counter(self, number: str, counter: str, kind: str, out: Normalized) -> str:
        """Reads `number` for the counter that follows it (the caller writes the counter)."""
        plain = number.replace(",", "")
        if counter in self.t["date_counters"].values():
            out.fire(self.t.rule("date_counters"))
        if counter == self.t["month_counter"] and plain in self.t["months"]:
            out.fire(self.t.rule("months"))
            return self.t["months"][plain]
        if kind == "native" and plain.isdigit() and len(plain) <= 20 and 0 < int(plain) and not plain.startswith("0"):
            out.fire(self.t.rule("native_counters"))
            first = self.t["native_first"].get(counter)
            if first and int(plain) == 1:
                return first
            return self.native(int(plain))
        out.fire(self.t.rule("sino_counters"))
        return self.sino_number(number)

    def possible_readings(self, span: str, kind: str) -> list[str]:
        """The readings a context-dependent span (a Pending's span and kind) can have, whatever the sentence
        means: 3번 is 세 번 or 삼 번; 1st is 첫 번째, 일 등 or 일 위; 3:2 is 삼 대 이 or a time; 1-2 is a
        range, a score, a subtraction, or digits read one by one (a phone number: 공일공 일이삼사). The ASR check
        accepts the text's chosen reading of such a span only if it is one of these. Empty when the span's
        readings cannot be listed (inequalities)."""
        scratch = Normalized(text="")
        if kind.startswith("counter "):
            counter = kind.removeprefix("counter ")
            digits = span.removesuffix(counter).replace(",", "")
            if not digits.isdigit() or len(digits) > 20:
                return []
            native = self.number_with_counter(digits, counter, "native", scratch)
            return [f"{native} {counter}", f"{self.sino_number(digits)} {counter}"]
        numbers = re.findall(r"\d+", span)
        if not numbers or any(len(n) > 20 for n in numbers):
            return []
        sino = [self.sino_number(n) for n in numbers]
        if kind == "ordinal":
            first = self.number_with_counter(numbers[0], "번째", "native", scratch)
            return [f"{first} 번째", f"{sino[0]} 등", f"{sino[0]} 위"]
        if kind == "colon_between_numbers" and len(numbers) == 2:
            readings = [f"{sino[0]} 대 {sino[1]}"]
            if self._is_time(span, " ".join(self.t["time_prefixes"][:1])):
                readings.append(self.time(span, scratch))
            return readings
        if kind == "hyphen_between_numbers":
            digit_names = self.t["sino_digits"]
            one_by_one = [" ".join("".join(digit_names[int(d)] for d in n) for n in numbers)]
            if "0" in "".join(numbers):  # 0 said 공 in a phone or account number
                one_by_one.append(" ".join("".join("공" if d == "0" else digit_names[int(d)] for d in n) for n in numbers))
            if len(numbers) != 2:
                return one_by_one
            a, b = sino
            return [f"{a}{self.t['range_word']} {b}", f"{a} 대 {b}", f"{a} 빼기 {b}", f"{a} 다시 {b}", *one_by_one]
        return []

    # --- the whole text ----------------------------------------------------------------------------------

    def normalize(self, text: str, *, preserve: tuple[str, ...] | list[str] = ()) -> Normalized:
        out = Normalized(text="")
        if not NEEDS_READING.search(text):
            out.text = re.sub(r"\s+", " ", text).strip()  # nothing written-only: kiwipiepy is not needed
            return out
        text = self._prepare(text, out)
        preserve_set = self.preserve_terms | set(preserve)
        tokens = [t for t in kiwi().tokenize(text) if t.tag in RAW_TAGS]
        chunks = []  # (start, end) of touching raw tokens
        for tok in tokens:
            start, end = tok.start, tok.start + tok.len
            if chunks and start <= chunks[-1][1]:
                chunks[-1] = (chunks[-1][0], max(end, chunks[-1][1]))
            else:
                chunks.append((start, end))
        pieces: list[str] = []
        pos = written = 0
        before = ""  # the end of what is written so far: a span's reading needs only its last word and space
        for start, end in chunks:
            if start < pos:
                continue
            between = text[pos:start]
            pieces.append(between)
            written, before = written + len(between), (before + between)[-BEFORE_TAIL:]
            chunk = text[start:end]
            counter = None
            if re.search(r"\d$", chunk):
                counter = self.counter_at(text, end)
            # What follows matters only for a counter's next word (20대 남성): a short slice keeps this linear.
            after = text[end:end + AFTER_TAIL]
            reading, consumed, joins_before = self._chunk(chunk, counter, before, out, preserve_set, written, after)
            if joins_before:  # "사 = 칠": the josa of = joins the word before it (사는 칠), across the space
                while pieces and not pieces[-1].strip():
                    written -= len(pieces.pop())
                if pieces:
                    kept = pieces[-1].rstrip()
                    written -= len(pieces[-1]) - len(kept)
                    pieces[-1] = kept
                before = before.rstrip()
            pieces.append(reading)
            written, before = written + len(reading), (before + reading)[-BEFORE_TAIL:]
            pos = end + consumed
        pieces.append(text[pos:])
        out.text = self._tidy("".join(pieces), out)
        return out

    def _prepare(self, text: str, out: Normalized) -> str:
        text = self._compatibility_forms(text, out)
        if LATEX_MATH.search(text):
            text = LATEX_MATH.sub(lambda m: m.group(1), text)
            for command, symbol in LATEX_COMMANDS.items():
                text = text.replace(command, symbol)
            out.fire(self.t.rule("operators"))
        if "\n" in text or "\r" in text:
            text = re.sub(r"\s*[\r\n]+\s*", " ", text)
            out.fire(self.t.rule("remove"))
        return text

    def _compatibility_forms(self, text: str, out: Normalized) -> str:
        """Unicode compatibility forms, each folded where folding gives what is said: a unit symbol from the
        CJK compatibility block by NFKC (㎖ -> ml, ㎠ -> cm², ㎧ -> m/s), a subscript digit by NFKC (CO₂ ->
        CO2, a formula the chemical rule reads). A superscript is not folded by NFKC (10³ would become 103):
        after a number or a variable it is an exponent (10^3: 십의 삼승); in a unit (cm², m³) it stays for
        the units table."""
        if COMPAT_UNIT.search(text):
            text = COMPAT_UNIT.sub(lambda m: _folded_unit(m.group(0)), text)
            out.fire(self.t.rule("units"))
        if SUBSCRIPT.search(text):
            text = text.translate(SUBSCRIPT_DIGITS)
            out.fire(self.t.rule("formula_digits"))
        if SUPERSCRIPT.search(text):
            text = SUPERSCRIPT.sub(lambda m: self._superscript(m, out), text)
        return text

    def _superscript(self, match, out: Normalized) -> str:
        base, raised = match.group("base") or "", match.group("raised")
        if not base or base + raised in self.t["units"]:
            return match.group(0)
        out.fire(self.t.rule("exponent_power"))
        return f"{base}^{raised.translate(SUPERSCRIPT_DIGITS)}"

    def _tidy(self, text: str, out: Normalized) -> str:
        text = re.sub(r"\s+", " ", text).strip()
        text = re.sub(r"\s+([.,?!])", r"\1", text)
        text = re.sub(r",(?:\s*,)+", ",", text)
        text = re.sub(r"^[,\s]+|,\s*(?=[.?!]|$)", "", text)
        text = re.sub(r",(?=[^\s])", ", ", text)
        # Offsets of pending spans move with the tidying; find them again in the final text.
        cursor = 0
        for p in out.pending:
            at = text.find(p.span, cursor)
            if at >= 0:
                p.start, p.end = at, at + len(p.span)
                cursor = p.end
        return text

    def _chunk(self, chunk, counter, before, out, preserve_set, offset, after="") -> tuple[str, int, bool]:
        """The reading of one span of written-only material and how many characters of the Korean after it
        (a counter) it consumed, and whether it joins the word before it without a space (the josa of =);
        `after` is the start of the text that follows the span."""
        # The rulebook's patterns (\d+-\d+) backtrack over a digit run at every start: quadratic in its length.
        # They are matched on the chunk with every run cut to LONG_RUN digits, which they cannot tell apart.
        capped = LONG_DIGITS.sub(lambda m: m.group(0)[:LONG_RUN], chunk)
        for name, pattern in self.context_patterns.items():
            if DATE.fullmatch(chunk.rstrip(".,")):
                break  # 2024-03-07 is a date, not a hyphen between numbers
            if pattern.search(capped) and not (name == "colon_between_numbers" and self._is_time(chunk, before)):
                span = chunk + (counter[0] if counter else "")
                out.pending.append(Pending(span, name, offset, offset + len(span)))
                out.fire(self.t.rule("patterns"))
                return span, len(counter[0]) if counter else 0, False
        if counter and counter[1] == "context" and self._is_age_group(chunk, counter[0], after):
            rule = self.t.rule("age_decades")
            out.fire(rule)
            reading = f"{self.sino(chunk)} {counter[0]}"
            out.readings.append({"span": chunk + counter[0], "reading": reading, "rules": [rule]})
            return reading, len(counter[0]), False
        if counter and counter[1] == "context":
            span = chunk + counter[0]
            out.pending.append(Pending(span, f"counter {counter[0]}", offset, offset + len(span)))
            out.fire(self.t.rule("counters"))
            return span, len(counter[0]), False
        if chunk in preserve_set:
            out.preserved.append(chunk)
            out.fire(self.t.rule("preserve_terms"))
            return chunk, 0, False
        if EMAIL.match(chunk) or (URL.match(chunk) and not re.fullmatch(r"[\d.]+", chunk)) or DOT_WORD.match(chunk):
            reading = self._address(chunk, out, preserve_set)
            self._record(out, chunk, reading, self.t.rule("url_words"))
            return reading, 0, False
        out.span_rules = []
        reader = _ChunkReader(self, chunk, counter, before, out, preserve_set)
        reading, consumed = reader.read()
        if reading != chunk:
            out.readings.append({"span": chunk + (counter[0] if consumed else ""), "reading": reading,
                                 "rules": list(out.span_rules)})
        return reading, consumed, reader.joins_before

    def _is_age_group(self, chunk: str, counter: str, after: str) -> bool:
        """20대 남성, 30대 초반: a decade (대 after a multiple of ten) followed by a word of the rulebook's
        `age_decades` table is an age group, read 이십 대 without the agent. Rulebooks before version 3 have
        no such table and send every 대 to the agent."""
        words = self.t.optional("age_decades")
        if counter != DECADE_COUNTER or not words or not chunk.isdigit() or int(chunk) % 10:
            return False
        return after[len(counter):].lstrip().startswith(tuple(words))

    def _record(self, out: Normalized, span: str, reading: str, rule: str) -> None:
        out.fire(rule)
        out.readings.append({"span": span, "reading": reading, "rules": [rule]})

    def _is_time(self, chunk: str, before: str) -> bool:
        m = re.fullmatch(r"(\d{1,2}):(\d{2})", chunk)
        if not m or int(m.group(1)) > 24 or int(m.group(2)) > 59:
            return False
        words = before.split()
        return bool(words) and words[-1] in self.t["time_prefixes"]

    def time(self, chunk: str, out: Normalized) -> str:
        hour, minute = (int(x) for x in chunk.split(":"))
        out.fire(self.t.rule("time_prefixes"))
        reading = f"{self.native(hour)} {self.t['hour_counter']}"
        if minute:
            reading += f" {self.sino(str(minute))} {self.t['minute_counter']}"
        return reading

    def _address(self, chunk: str, out: Normalized, preserve_set) -> str:
        """A URL, e-mail address or file name: known words from the table, other words spelled or kept."""
        words = self.t["url_words"]
        parts = []
        for piece in re.findall(r"[A-Za-z]+|\d+|[.@/:_-]", chunk.replace("://", ":")):
            if piece == ".":
                parts.append(self.t["dot"])
            elif piece == "@":
                parts.append(self.t["at"])
            elif piece == "/":
                parts.append(self.t["slash"])
            elif piece == ":":
                parts.append(self.t["colon"])
            elif piece in "_-":
                continue
            elif piece.isdigit():
                parts.append(self.sino_number(piece))
            elif piece.lower() in words:
                parts.append(words[piece.lower()])
            elif len(piece) >= 4 and re.search(r"[aeiouy]", piece.lower()):
                out.preserved.append(piece)  # an English word inside an address is left for the TTS model
                parts.append(piece)
            else:
                parts.append(self.spell(piece, out))
        return " ".join(parts)

    def spell(self, letters: str, out: Normalized) -> str:
        out.fire(self.t.rule("letters"))
        return "".join(self.t["letters"][c.upper()] for c in letters)

    def chemical(self, formula: str, out: Normalized) -> str:
        out.fire(self.t.rule("elements"))
        digits = self.t["formula_digits"]
        return "".join(digits[int(c)] if c.isdigit() else self.t["letters"][c.upper()] for c in formula)

    def is_formula(self, word: str) -> bool:
        if not self.formula.match(word) or len(word) < 2:
            return False
        symbols = re.findall(r"[A-Z][a-z]?", word)
        return any(ch.isdigit() for ch in word) or any(len(s) == 2 for s in symbols)


class _ChunkReader:
    """Reads the pieces of one chunk left to right (numbers with what follows them, units, letters...)."""

    def __init__(self, engine: Normalizer, chunk: str, counter, before: str, out: Normalized, preserve_set):
        self.e, self.t, self.out = engine, engine.t, out
        self.chunk, self.counter, self.before = chunk, counter, before
        self.preserve = preserve_set
        self.joins_before = False  # the reading starts with a josa that joins the text before the chunk
        self.pieces = [(m.lastgroup if m.lastgroup not in ("bexp", "exp", "mant", "sexp") else _group(m), m)
                       for m in PIECES.finditer(chunk)]

    def kind(self, i):
        return self.pieces[i][0] if 0 <= i < len(self.pieces) else None

    def text(self, i):
        return self.pieces[i][1].group(0) if 0 <= i < len(self.pieces) else ""

    def read(self) -> tuple[str, int]:
        words: list[str] = []
        consumed = 0
        i = 0
        n = len(self.pieces)
        while i < n:
            kind, match = self.pieces[i]
            piece = match.group(0)
            if kind in ("num", "sci", "frac", "date", "colon"):
                reading, i, used = self.number(i)
                words.append(reading)
                consumed = consumed or used
                continue
            if kind == "ch" and piece in self.t["currency_prefix"] and self.kind(i + 1) == "num":
                self.out.fire(self.t.rule("currency_prefix"))
                reading, i, used = self.number(i + 1, currency=self.t["currency_prefix"][piece])
                words.append(reading)
                consumed = consumed or used
                continue
            if kind == "ch" and piece in "-−" and self.kind(i + 1) == "num" and (i == 0 or self.kind(i - 1) == "ch"):
                reading, i, used = self.number(i + 1, negative=True)
                words.append(reading)
                consumed = consumed or used
                continue
            if kind == "latin":
                reading, i = self.latin(i)
                words.append(reading)
                continue
            if kind == "greek":
                self.out.fire(self.t.rule("greek"))
                words.append(self.t["greek"][piece])
            elif kind == "jamo":
                self.out.fire(self.t.rule("jamo_names"))
                words.append(self.t["jamo_names"][piece])
                if self.text(i + 1) in (".", ")"):
                    words[-1] += "."
                    i += 1
            elif kind == "pow":
                words.append(self.power(match))
            elif kind == "ellipsis":
                self.out.fire(self.t.rule("pause"))
                words.append(self.t["pause_mark"])
            elif piece == "=" and self._is_equals(i):
                self._equals(words)
            else:
                words.append(self.symbol(i, piece))
            i += 1
        reading = " ".join(w for w in words if w)
        return re.sub(r"\s+([.,?!])", r"\1", reading), consumed

    def symbol(self, i: int, piece: str) -> str:
        t = self.t
        between = self._between(i)
        if piece in t["operators"] and between:
            self.out.fire(t.rule("operators"))
            return t["operators"][piece]
        if piece in t["percent"]:
            self.out.fire(t.rule("percent"))
            return t["percent"][piece]
        if piece in t["symbols"] and between:
            self.out.fire(t.rule("symbols"))
            return t["symbols"][piece]
        if piece in t["keep"]:
            return piece
        if piece in t["pause"]:
            self.out.fire(t.rule("pause"))
            return t["pause_mark"]
        if piece in t["remove"] or piece in t["range_marks"]:
            self.out.fire(t.rule("remove"))
            return ""
        return piece  # left for validation to report

    def _between(self, i: int) -> bool:
        return 0 < i < len(self.pieces) - 1 or (len(self.pieces) == 1 and self._spaced())

    def _is_equals(self, i: int) -> bool:
        return self._between(i) or len(self.pieces) == 1

    def _equals(self, words: list[str]) -> None:
        """`=` reads as a josa of what precedes it: 은 after a syllable with a final consonant, 는 after one
        without, joined to that word (사 = 칠: 사는 칠); after no Korean at all, 는 as a word of its own."""
        self.out.fire(self.t.rule("equals"))
        josas = self.t["equals"]
        last = next((w for w in reversed(words) if w), None)
        preceding = (last if last is not None else self.before).rstrip()[-1:]
        if not HANGUL.fullmatch(preceding):
            words.append(josas["after_vowel"])
            return
        josa = josas["after_consonant" if (ord(preceding) - 0xAC00) % 28 else "after_vowel"]
        if last is not None:
            words[max(k for k, w in enumerate(words) if w)] += josa
        else:
            words.append(josa)
            self.joins_before = True

    def _spaced(self) -> bool:
        return self.before.endswith(" ")

    def number(self, i: int, *, currency: str | None = None, negative: bool = False) -> tuple[str, int, int]:
        """Reads the number at piece i with what qualifies it (numbers.NUMBER_CASES, in order). Returns the
        reading, the next piece index and the characters of counter consumed after the chunk."""
        return read_number(NumberAt(self, i, currency=currency, negative=negative))

    def below_zero(self, reading: str) -> str:
        """영하 before a temperature below zero, unless the sentence says it already (영하 -5도)."""
        if self.before.rstrip().endswith(self.t["below_zero"]):
            return reading
        return f"{self.t['below_zero']} {reading}"

    def signed(self, reading: str, negative: bool) -> str:
        if negative:
            self.out.fire(self.t.rule("minus"))
            return f"{self.t['minus']} {reading}"
        return reading

    def exponent(self, exp: str) -> str:
        exp = exp.strip()
        negative = exp[:1] in "-−"
        exp = exp.lstrip("-−+")
        if re.fullmatch(r"\d+(?:\.\d+)?", exp):
            reading = self.e.sino_number(exp)
        else:
            reading = self.e.spell(exp, self.out) if exp.isalpha() else exp
        return f"{self.t['minus']} {reading}" if negative else reading

    def power(self, match) -> str:
        exp = match.group("bexp") or match.group("exp")
        self.out.fire(self.t.rule("exponent_power"))
        return f"{self.t['exponent_of']} {self.exponent(exp)}{self.t['exponent_power']}".strip()

    def unit(self, i: int) -> tuple[str, int]:
        """A unit or a unit expression (g/mL, km/h: "/" is 퍼 only here)."""
        t = self.t
        self.out.fire(t.rule("units"))
        parts = [t["units"][self.text(i)]]
        i += 1
        while self.text(i) == "/" and self.kind(i + 1) == "latin":
            den = self.text(i + 1)
            reading = t["per_units"].get(den) or t["units"].get(den)
            if reading is None:
                break
            self.out.fire(t.rule("per"))
            parts += [t["per"], reading]
            i += 2
        return " ".join(parts), i

    def latin(self, i: int) -> tuple[str, int]:
        t, word = self.t, self.text(i)
        if word in self.preserve:
            self.out.preserved.append(word)
            self.out.fire(t.rule("preserve_terms"))
            return word, i + 1
        if word in t["units"] and self.text(i + 1) == "/" and self.kind(i + 2) == "latin" and (
                self.text(i + 2) in t["units"] or self.text(i + 2) in t["per_units"]):
            return self.unit(i)
        if self.kind(i + 1) == "pow":  # x^2
            base = self.e.spell(word, self.out) if re.fullmatch(r"[A-Za-z]{1,2}", word) else word
            return f"{base}{self.power(self.pieces[i + 1][1])}".replace(" 의", "의"), i + 2
        if self.e.is_formula(word):
            return self.e.chemical(word, self.out), i + 1
        if re.fullmatch(r"[A-Z]{2,}\d*", word) or re.fullmatch(r"[A-Za-z]", word):
            letters = re.match(r"[A-Za-z]+", word).group(0)
            reading = self.e.spell(letters, self.out)
            if len(letters) < len(word):
                reading += self.e.sino(word[len(letters):])
            return reading, i + 1
        if len(word) >= 2 and word in t["units"]:
            self.out.fire(t.rule("units"))
            return t["units"][word], i + 1
        if word.lower() in t["url_words"] and word.islower():
            self.out.fire(t.rule("url_words"))
            return t["url_words"][word], i + 1
        if re.fullmatch(r"[A-Z][a-z]+", word):
            # A capitalised word left by the hypertranslation is a name: preserved for the TTS model.
            self.out.preserved.append(word)
            self.out.fire(t.rule("preserve_terms"))
            return word, i + 1
        return word, i + 1  # left for validation to report


def _group(match) -> str:
    """The outer group of a piece whose last matched group is an inner one (the exponent of ^{-5})."""
    for name in ("pow", "sci"):
        if match.group(name) is not None:
            return name
    return match.lastgroup


_ENGINES: dict[tuple, Normalizer] = {}


def normalizer_for(version) -> Normalizer:
    """The engine for a normalization RulebookVersion, built once per version (versions never change)."""
    key = (version.pk, version.created_at)
    if key not in _ENGINES:
        _ENGINES[key] = Normalizer(Tables([(r.rule_id, r.data) for r in version.rules.all()]))
    return _ENGINES[key]
