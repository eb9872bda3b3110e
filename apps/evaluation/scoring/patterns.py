"""Many regular expressions tried on one text, each only where it can match (no database here): the readers'
phrase lists (refusal, BBH) are alternations of dozens of patterns, most of which need a literal the text lacks."""

import re
from re import _constants as sre  # the stdlib's own parse tree, read for Rule's prefilter
from re import _parser as sre_parse

_HANGUL = re.compile(r"[가-힣]")
_LATIN = re.compile(r"[a-zA-Z]")


def _required(items) -> frozenset[str] | None:
    """Literal strings one of which every match of this parsed sequence contains, or None when it cannot tell.
    Of the sequence's required parts (a run of literals, a group, an alternation, a repeat of at least one),
    the one whose shortest literal is longest."""
    candidates, run = [], []
    for op, av in list(items) + [(None, None)]:
        if op is sre.LITERAL:
            run.append(chr(av))
            continue
        if run:
            candidates.append(frozenset(["".join(run)]))
            run = []
        found = None
        if op is sre.SUBPATTERN:
            found = _required(av[-1].data)
        elif op is sre.BRANCH:
            parts = [_required(branch.data) for branch in av[1]]
            found = None if None in parts else frozenset().union(*parts)
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT) and av[0] >= 1:
            found = _required(av[2].data)
        elif op is sre.IN and all(o is sre.LITERAL for o, _ in av):
            found = frozenset(chr(c) for _, c in av)
        if found:
            candidates.append(found)
    return max(candidates, key=lambda c: (min(map(len, c)), -len(c))) if candidates else None


def _alternatives(pattern: str) -> list[str]:
    """A pattern's top-level alternatives ("a|(?:b|c)" gives "a", "(?:b|c)")."""
    parts, depth, in_class, escaped, last = [], 0, False, False, 0
    for i, char in enumerate(pattern):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(pattern[last:i])
            last = i + 1
    return parts + [pattern[last:]]


class Rule:
    """A list of patterns matched as one alternation, each behind a cheap literal prefilter. A pattern cannot
    match a text that lacks all of its required literals ("not", "sorry", 불법...), and looking for those runs at
    string speed, where a regular expression tries every branch at every position. Matches are exactly the
    alternation's, except that overlapping matches of different alternatives are all found."""

    __slots__ = ("parts",)

    def __init__(self, patterns, flags: int = 0):
        patterns = [patterns] if isinstance(patterns, str) else patterns
        self.parts = []
        for alternative in (a for p in patterns for a in _alternatives(p)):
            needs = _required(sre_parse.parse(alternative, flags).data)
            # a required literal's part is required too: spaces at its ends only slow the search
            needs = tuple(sorted({n.strip() or n for n in needs}, key=len)) if needs else None
            # and a text in one script skips the other script's patterns without looking
            script = None if not needs else "ko" if all(map(_HANGUL.search, needs)) else (
                "en" if all(n.isascii() and _LATIN.search(n) for n in needs) else None)
            self.parts.append((re.compile(alternative, flags), needs, script))

    def _candidates(self, text: str) -> list[re.Pattern]:
        # the script whose patterns cannot match: Korean ones in ASCII text, English ones in text with no
        # Latin letter; none in a text with both
        skip = "ko" if text.isascii() else "en" if not _LATIN.search(text) else "neither"
        contains = text.__contains__
        return [pattern for pattern, needs, script in self.parts
                if script != skip and (needs is None or any(map(contains, needs)))]

    def finditer(self, text: str) -> list[re.Match]:
        found = [m for pattern in self._candidates(text) for m in pattern.finditer(text)]
        return sorted(found, key=lambda m: m.start()) if len(found) > 1 else found

    def search(self, text: str) -> re.Match | None:
        for pattern in self._candidates(text):
            found = pattern.search(text)
            if found:
                return found
        return None
