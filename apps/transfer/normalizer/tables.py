"""The tables of one normalization rulebook version, as the engine reads them.

Every table the engine reads is declared in TABLES, with what it holds, and the engine reads them only
through `Tables` (`tables["name"]`, `tables.rule("name")`, `tables.optional("name")`): a read of an undeclared
name fails at once, and tests/transfer/test_normalizer_tables.py checks that TABLES is exactly the set of names
the engine's code reads. So REQUIRED is what the engine reads, and a rulebook version missing any of it is
refused up front, naming the tables, instead of failing mid-run with a KeyError.
"""

from django.utils.translation import gettext

from apps.core.errors import InvalidInput

TABLES: dict[str, str] = {
    # numerals
    "sino_digits": "Sino-Korean digits 0-9 (영, 일, 이...)",
    "sino_places": "the places inside a group of four digits (십, 백, 천)",
    "sino_groups": "the groups of four digits (만, 억, 조, 경)",
    "decimal_point": "the word for the decimal point (점)",
    "fraction_of": "the word between denominator and numerator (분의)",
    "native_tens": "native tens before a counter (열, 스물...)",
    "native_units": "native units before a counter (한, 두, 세...)",
    "native_twenty_before_counter": "twenty before a counter (스무)",
    "native_first": "the reading of 1 before some counters (첫 before 번째)",
    # counters, dates and times
    "native_counters": "counters read with native numerals (개, 명, 시간...)",
    "sino_counters": "counters read with Sino-Korean numerals (분, 층, 년...)",
    "counters": "counters whose numeral depends on context (번, 대, 장): left for the agent",
    "age_decades": "words after N0대 that make it an age group (남성, 초반...)",
    "date_counters": "the counters of a date (년, 월, 일)",
    "month_counter": "the month counter (월)",
    "months": "months with an irregular reading (6: 유월, 10: 시월)",
    "time_prefixes": "words that make N:NN a time (오전, 오후)",
    "hour_counter": "the hour counter (시)",
    "minute_counter": "the minute counter (분)",
    # signs and qualifiers of a number
    "currency_prefix": "currency signs written before a number ($: 달러)",
    "percent": "percent signs (%: 퍼센트)",
    "degrees": "degree marks (°C: 도)",
    "fahrenheit_prefix": "what a Fahrenheit mark puts before the reading (화씨)",
    "below_zero": "the word for a temperature below zero (영하)",
    "minus": "the word for a negative sign (마이너스)",
    "range_marks": "marks between the two ends of a range (~)",
    "range_word": "the word joining the ends of a range (에서)",
    "times_ten": "the words of scientific notation (곱하기 십의)",
    "exponent_of": "the particle before an exponent (의)",
    "exponent_power": "the word after an exponent (승)",
    # units
    "units": "unit symbols (kg: 킬로그램)",
    "per_units": "units after a slash (h: 아워)",
    "per": "the word for the slash of a unit (퍼)",
    # letters and symbols
    "letters": "Latin letters spelled out (A: 에이)",
    "greek": "Greek letters (α: 알파)",
    "jamo_names": "consonant labels (ㄱ: 기역)",
    "elements": "chemical element symbols (Na, O, H...)",
    "formula_digits": "digits inside a chemical formula, read as in English (제로, 원, 투...)",
    "operators": "operators between two terms (+: 더하기)",
    "equals": "= read with the josa of what precedes it (after_consonant: 은, after_vowel: 는)",
    "symbols": "other symbols between two terms (#: 샵, &: 앤드)",
    "keep": "symbols kept as written (the sentence's own punctuation)",
    "pause": "symbols read as a pause",
    "pause_mark": "what a pause is written as",
    "remove": "symbols dropped (quotes, brackets)",
    # addresses
    "url_words": "words of addresses and file names (com: 컴, json: 제이슨)",
    "dot": "the word for . in an address (점)",
    "at": "the word for @ (골뱅이)",
    "slash": "the word for / in an address (슬래시)",
    "colon": "the word for : in an address (콜론)",
    # what the engine leaves or keeps
    "patterns": "regular expressions of context-dependent spans, by kind: left for the agent",
    "preserve_terms": "terms kept as written for the TTS model",
}

# Tables a version may lack: the engine does without them (before version 3, every 대 goes to the agent).
OPTIONAL = frozenset({"age_decades"})
REQUIRED = frozenset(TABLES) - OPTIONAL


class MissingTables(InvalidInput):
    """A rulebook version lacks tables the engine reads."""

    code = "missing_tables"

    def __init__(self, missing: list[str]):
        super().__init__(gettext(
            "the normalization rulebook has no table %(missing)s, which the normalizer reads "
            "(the published versions from 2 on have every one)"
        ) % {"missing": ", ".join(missing)})
        self.missing = missing


class Tables:
    """The normalization tables of one rulebook version: each table by name, and the rule that owns it
    (so a reading can say which rule fired). Refuses a version missing a required table."""

    def __init__(self, rules: list[tuple[str, dict | None]]):
        self.values: dict = {}
        self.owner: dict[str, str] = {}
        for rule_id, data in rules:
            for name, table in (data or {}).items():
                self.values[name] = table
                self.owner[name] = rule_id
        missing = sorted(REQUIRED - set(self.values))
        if missing:
            raise MissingTables(missing)

    def __getitem__(self, name: str):
        return self.values[_declared(name)]

    def optional(self, name: str):
        """An OPTIONAL table, or None when the version has none."""
        if name not in OPTIONAL:
            raise LookupError(f"table {name!r} is required; read it with tables[{name!r}]")
        return self.values.get(name)

    def rule(self, name: str) -> str:
        return self.owner[_declared(name)]


def _declared(name: str) -> str:
    if name not in TABLES:
        # A programming error, not a rulebook's: the engine reads a table nobody declared (so nobody requires).
        raise LookupError(f"the normalizer reads table {name!r}, which normalizer/tables.py does not declare")
    return name
