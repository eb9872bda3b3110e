"""What is still written-only in a text after normalization (the check before speech)."""

import re

ALLOWED = re.compile(r"[가-힣\s.,?!]")
DIGIT = re.compile(r"\d")


def validate(text: str, preserved: list[str] | tuple[str, ...] = ()) -> list[str]:
    """What is still written-only in `text`, as reasons a person can read (empty when ready for speech):
    digits, Latin letters and symbols, except inside the preserved spans."""
    rest = text
    for span in sorted(set(preserved), key=len, reverse=True):
        rest = re.sub(rf"(?<![A-Za-z]){re.escape(span)}(?![A-Za-z])", " ", rest)
    problems = []
    digits = [word for word in rest.split() if DIGIT.search(word)]  # not \S*\d\S*: quadratic on a long word
    if digits:
        problems.append("digit left: " + ", ".join(dict.fromkeys(digits)))
    latin = re.findall(r"[A-Za-z]+", rest)
    if latin:
        problems.append("Latin letters left: " + ", ".join(dict.fromkeys(latin)))
    symbols = [c for c in rest if not (ALLOWED.match(c) or c.isdigit() or (c.isascii() and c.isalpha()))]
    if symbols:
        problems.append("symbol left: " + " ".join(dict.fromkeys(symbols)))
    return problems
