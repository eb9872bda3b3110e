"""How the engine reads a number with what qualifies it, as an ordered table of cases: the first case whose
test holds reads it. Each case returns the reading, the index of the next piece to read, and how many
characters of the Korean after the chunk it consumed (a counter: 3개 reads 세 개 and eats 개)."""

import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class NumberAt:
    """The number at piece `i` of a chunk, as the cases see it: `r` is the chunk reader (its pieces, the
    counter after the chunk, the text before it), `currency` a currency word written before the number,
    `negative` a minus sign before it."""

    r: object  # engine._ChunkReader (not imported: the engine imports this module)
    i: int
    currency: str | None = None
    negative: bool = False

    @property
    def kind(self) -> str:
        return self.r.pieces[self.i][0]

    @property
    def match(self):
        return self.r.pieces[self.i][1]

    @property
    def piece(self) -> str:
        return self.match.group(0)

    @property
    def nxt(self) -> int:
        return self.i + 1

    @property
    def next_text(self) -> str:
        return self.r.text(self.nxt)

    @property
    def next_kind(self):
        return self.r.kind(self.nxt)


Reading = tuple[str, int, int]  # the reading, the next piece index, counter characters consumed


def _scientific(n: NumberAt) -> Reading:
    t, e = n.r.t, n.r.e
    n.r.out.fire(t.rule("times_ten"))
    return (f"{e.sino_number(n.match.group('mant'))} {t['times_ten']} "
            f"{n.r.exponent(n.match.group('sexp'))}{t['exponent_power']}", n.nxt, 0)


def _fraction(n: NumberAt) -> Reading:
    t, e = n.r.t, n.r.e
    num, den = n.piece.split("/")
    n.r.out.fire(t.rule("fraction_of"))
    return f"{e.sino(den)}{t['fraction_of']} {e.sino(num)}", n.nxt, 0


def _date(n: NumberAt) -> Reading:
    t, e = n.r.t, n.r.e
    y, m, d = re.split(r"[/.-]", n.piece)
    n.r.out.fire(t.rule("date_counters"))
    c = t["date_counters"]
    month = t["months"].get(str(int(m)), e.sino(m) + c["month"])
    return f"{e.sino(y)} {c['year']} {month} {e.sino(d)} {c['day']}", n.nxt, 0


def _time(n: NumberAt) -> Reading:
    return n.r.e.time(n.piece, n.r.out), n.nxt, 0


def _is_range(n: NumberAt) -> bool:
    return n.next_text in n.r.t["range_marks"] and n.r.kind(n.nxt + 1) == "num"


def _range(n: NumberAt) -> Reading:
    """3~5개 reads both ends with the counter: 세 개에서 다섯 개."""
    r, t = n.r, n.r.t
    r.out.fire(t.rule("range_marks"))
    right, after, used = r.number(n.nxt + 1)
    if used and r.counter:
        left = f"{r.e.number_with_counter(n.piece, r.counter[0], r.counter[1], r.out)} {r.counter[0]}"
    else:
        left = r.e.sino_number(n.piece)
    return f"{left}{t['range_word']} {right}", after, used


def _power(n: NumberAt) -> Reading:
    r, t = n.r, n.r.t
    reading = f"{r.e.sino_number(n.piece)}{t['exponent_of']} "
    pow_match = r.pieces[n.nxt][1]
    reading += r.exponent(pow_match.group("bexp") or pow_match.group("exp")) + t["exponent_power"]
    r.out.fire(t.rule("exponent_power"))
    return r.signed(reading, n.negative), n.nxt + 1, 0


def _degrees(n: NumberAt) -> Reading:
    r, t = n.r, n.r.t
    mark = n.next_text
    r.out.fire(t.rule("degrees"))
    reading = f"{r.e.sino_number(n.piece)} {t['degrees'][mark]}"
    if n.negative:
        reading = r.below_zero(reading)
    prefix = t["fahrenheit_prefix"].get(mark)
    return (f"{prefix} {reading}" if prefix else reading), n.nxt + 1, 0


def _percent(n: NumberAt) -> Reading:
    r, t = n.r, n.r.t
    r.out.fire(t.rule("percent"))
    return r.signed(f"{r.e.sino_number(n.piece)} {t['percent'][n.next_text]}", n.negative), n.nxt + 1, 0


def _unit(n: NumberAt) -> Reading:
    r = n.r
    unit, after = r.unit(n.nxt)
    return r.signed(f"{r.e.sino_number(n.piece)} {unit}", n.negative), after, 0


def _plain(n: NumberAt) -> Reading:
    """A number alone, or the last of the chunk with the counter after it (not a context-dependent one)."""
    r, t, out = n.r, n.r.t, n.r.out
    reading = r.e.sino_number(n.piece)
    used = 0
    if n.nxt >= len(r.pieces) and r.counter and r.counter[1] != "context":
        counter, ckind = r.counter
        reading = r.e.number_with_counter(n.piece, counter, ckind, out)
        joined = counter == t["month_counter"]
        reading = f"{reading}{counter}" if joined else f"{reading} {counter}"
        if joined and reading.startswith(tuple(t["months"].values())):
            reading = reading[: -len(counter)]
        used = len(counter)
    else:
        out.fire(t.rule("sino_digits"))
    if n.currency:
        reading = f"{reading} {n.currency}"
    if n.negative and used and r.counter[0] in t["degrees"].values():
        # -5도 is a temperature: 영하 오 도, as -5°C reads (not 마이너스 오 도).
        out.fire(t.rule("below_zero"))
        return r.below_zero(reading), n.nxt, used
    return r.signed(reading, n.negative), n.nxt, used


# In order: the first case whose test holds reads the number. A written form (sci, frac, date, colon) is
# known from the piece itself; then what follows the number decides (a range mark, an exponent, a degree
# mark, %, a unit); the last case reads it plain or with its counter.
NUMBER_CASES: list[tuple[str, Callable[[NumberAt], bool], Callable[[NumberAt], Reading]]] = [
    ("scientific notation (6.02e23)", lambda n: n.kind == "sci", _scientific),
    ("fraction (2/5)", lambda n: n.kind == "frac", _fraction),
    ("date (2024-03-07)", lambda n: n.kind == "date", _date),
    ("time (3:30)", lambda n: n.kind == "colon", _time),
    ("range (3~5개)", _is_range, _range),
    ("power (10^3)", lambda n: n.next_kind == "pow", _power),
    ("degrees (-5°C)", lambda n: n.next_text in n.r.t["degrees"], _degrees),
    ("percent (6.5%)", lambda n: n.next_text in n.r.t["percent"], _percent),
    ("unit (5kg)", lambda n: n.next_kind == "latin" and n.next_text in n.r.t["units"], _unit),
    ("plain, or with its counter (3개)", lambda n: True, _plain),
]


def read_number(number: NumberAt) -> Reading:
    for _name, applies, read in NUMBER_CASES:
        if applies(number):
            return read(number)
    raise AssertionError("the last case reads any number")
