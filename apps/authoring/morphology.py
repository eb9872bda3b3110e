"""Korean morphological analysis for transcript questions, by kiwipiepy (no database here).

Nouns (NNG, NNP) are the words transcript questions ask about: a noun's lemma is its form, so 학교에서 and
학교를 both count as 학교 (the particles are separate morphemes). An analysis is trusted only where it is
unambiguous: Kiwi's alternative readings whose score is within READING_MARGIN of the best must give the same
noun counts, and a noun that is also part of a compound is not counted at all. A compound is found two ways:
a longer noun of a reading contains it (학교 in 초등학교), or Kiwi split a written word into several nouns
(학교생활 read as 학교 + 생활): whether saying 학교생활 counts as saying 학교 is a judgement, not a count."""

import bisect
import re
from collections import Counter
from dataclasses import dataclass, field

from apps.core.korean import kiwi

NOUN_TAGS = {"NNG", "NNP"}
# Log-probability distance within which Kiwi's next readings are as plausible as the best one. Chosen on
# sentences like 초등학교는 (one noun or 초등 + 학교: 0.9 apart) and 아버지가방에 (가 방 / 가방: 4.3 apart).
READING_MARGIN = 3.0
TOP_N = 3

@dataclass(frozen=True)
class Noun:
    lemma: str
    start: int  # character offset in the analysed text


@dataclass
class Analysis:
    text: str
    nouns: list[Noun]  # the best reading's nouns, in spoken order
    counts: Counter
    alternative_counts: list[Counter] = field(default_factory=list)  # readings within the margin
    compounds: dict[str, str] = field(default_factory=dict)  # noun -> a longer noun that contains it

    def ambiguity(self, lemma: str) -> str | None:
        """Why the count of `lemma` cannot be trusted, or None."""
        if lemma in self.compounds:
            return f"compound: {lemma!r} is also part of {self.compounds[lemma]!r}"
        for other in self.alternative_counts:
            if other[lemma] != self.counts[lemma]:
                return f"readings disagree: {lemma!r} counted {self.counts[lemma]} or {other[lemma]} times"
        return None


def _nouns(tokens) -> list[Noun]:
    """The nouns of a reading. The honorific suffix 님 belongs to its noun (선생님 is said as one word, Kiwi
    reads 선생 + 님); the plural 들 does not change the lemma (학생들 counts as 학생)."""
    # Each attribute read crosses into Kiwi's C++ objects, so the tags are read once.
    tags = [t.tag for t in tokens]
    nouns = []
    for i, tag in enumerate(tags):
        if tag not in NOUN_TAGS:
            continue
        token = tokens[i]
        honorific = i + 1 < len(tags) and tags[i + 1] == "XSN" and tokens[i + 1].form == "님"
        nouns.append(Noun(token.form + "님" if honorific else token.form, token.start))
    return nouns


def _split_compounds(text: str, nouns: list[Noun]) -> dict[str, str]:
    """Nouns that share one written (space-delimited) word with another noun -> that word."""
    words = [(m.start(), m.group()) for m in re.finditer(r"\S+", text)]
    starts = [start for start, _ in words]
    by_word: dict[int, list[Noun]] = {}
    for noun in nouns:
        by_word.setdefault(bisect.bisect_right(starts, noun.start) - 1, []).append(noun)
    return {noun.lemma: words[index][1] for index, group in by_word.items() if len(group) > 1 for noun in group}


def _analysis(text: str, readings) -> Analysis:
    best_score = readings[0][1]
    near = [_nouns(tokens) for tokens, score in readings if best_score - score <= READING_MARGIN]
    nouns = near[0]
    forms = {n.lemma for reading in near for n in reading}
    compounds = {}
    for short in forms:
        for long in forms:
            if short != long and short in long:
                compounds.setdefault(short, long)
    for reading in near:
        for lemma, word in _split_compounds(text, reading).items():
            compounds.setdefault(lemma, word)
    return Analysis(text=text, nouns=nouns, counts=Counter(n.lemma for n in nouns),
                    alternative_counts=[Counter(n.lemma for n in reading) for reading in near[1:]], compounds=compounds)


def analyse(text: str) -> Analysis:
    return _analysis(text, kiwi().analyze(text, top_n=TOP_N))


def analyse_many(texts: list[str]) -> list[Analysis]:
    # One call per text: Kiwi's list form starts a worker pool first, which took seconds for a small batch.
    return [analyse(text) for text in texts]

