"""Rule-based question construction (no database here): from speaker metadata (age, gender, number of
speakers) and from transcripts (word order, word frequency). Each builder takes one clip's facts and
returns a Candidate, or a Skip saying why no question was made. Distractors come from the answer space
of the question: the other age groups, the other gender, nearby counts, other words of the same clip."""

import random
from dataclasses import dataclass, field

from apps.authoring.capabilities import SPECS, AgeGroup, Capability, Gender
from apps.authoring.morphology import Analysis

RULE_VERSION = 1
MAX_SPEAKERS_OPTION = 10


@dataclass(frozen=True)
class ClipFacts:
    clip_id: int
    gender: str = ""
    age_group: str = ""
    num_speakers: int | None = None
    transcript: str = ""


@dataclass
class Candidate:
    capability: str
    text: str
    options: list[str]
    correct_index: int
    dedup_key: str
    provenance: dict = field(default_factory=dict)

    @property
    def method(self) -> str:
        return SPECS[self.capability].method


@dataclass(frozen=True)
class Skip:
    capability: str
    reason: str


def _shuffled(correct: str, distractors: list[str], rng: random.Random) -> tuple[list[str], int]:
    options = [correct, *distractors]
    rng.shuffle(options)
    return options, options.index(correct)


def _candidate(capability: str, text: str, correct: str, distractors: list[str], rng: random.Random, *,
               key: str, rule: str, params: dict) -> Candidate:
    assert len(distractors) + 1 == SPECS[capability].options, (capability, distractors)
    options, index = _shuffled(correct, distractors, rng)
    return Candidate(capability=capability, text=text, options=options, correct_index=index, dedup_key=key,
                     provenance={"method": SPECS[capability].method, "rule": rule, "rule_version": RULE_VERSION,
                                 "params": params})


# ---- from metadata ----------------------------------------------------------------------------------------


def gender_question(facts: ClipFacts, rng: random.Random) -> Candidate | Skip:
    if not facts.gender:
        return Skip(Capability.GENDER, "no gender in the metadata")
    correct = Gender(facts.gender).label
    other = [g.label for g in Gender if g.value != facts.gender]
    return _candidate(Capability.GENDER, "화자의 성별은 무엇인가요?", correct, other, rng, key="gender",
                      rule="metadata.gender", params={"gender": facts.gender})


def age_question(facts: ClipFacts, rng: random.Random) -> Candidate | Skip:
    if not facts.age_group:
        return Skip(Capability.AGE, "no age group in the metadata")
    correct = AgeGroup(facts.age_group).label
    other = [a.label for a in AgeGroup if a.value != facts.age_group]
    return _candidate(Capability.AGE, "화자의 연령대로 가장 알맞은 것은 무엇인가요?", correct, other, rng, key="age",
                      rule="metadata.age_group", params={"age_group": facts.age_group})


def nearby_counts(value: int, rng: random.Random, *, lowest: int = 1, size: int = 4) -> list[int]:
    """`size` consecutive counts that contain `value`, none below `lowest`; where the window starts is
    random, so the right count is not always the middle one."""
    starts = list(range(max(lowest, value - size + 1), value + 1))
    start = rng.choice(starts)
    return list(range(start, start + size))


def speakers_question(facts: ClipFacts, rng: random.Random) -> Candidate | Skip:
    if facts.num_speakers is None:
        return Skip(Capability.NUM_SPEAKERS, "no number of speakers in the metadata")
    if facts.num_speakers > MAX_SPEAKERS_OPTION:
        return Skip(Capability.NUM_SPEAKERS, f"more than {MAX_SPEAKERS_OPTION} speakers")
    counts = nearby_counts(facts.num_speakers, rng)
    return _candidate(Capability.NUM_SPEAKERS, "이 음성에서 말하는 사람은 모두 몇 명인가요?", f"{facts.num_speakers}명",
                      [f"{n}명" for n in counts if n != facts.num_speakers], rng, key="num_speakers",
                      rule="metadata.num_speakers", params={"num_speakers": facts.num_speakers})


# ---- from transcripts -------------------------------------------------------------------------------------


def _ranun(word: str) -> str:
    """The quoting particle after `word`: 이라는 after a final consonant (책이라는), else 라는 (학교라는)."""
    last = word[-1]
    has_final = "가" <= last <= "힣" and (ord(last) - ord("가")) % 28 != 0
    return "이라는" if has_final else "라는"


def frequency_question(facts: ClipFacts, analysis: Analysis, rng: random.Random) -> list[Candidate | Skip]:
    """How many times a noun is said, counting lemmas. The noun said most often is asked about (ties: the
    first said). A noun whose count is ambiguous is a skipped candidate (one Skip each, never emitted) and
    the next noun is tried."""
    if not analysis.counts:
        return [Skip(Capability.WORD_FREQUENCY, "no noun in the transcript")]
    first_seen = {}
    for noun in analysis.nouns:
        first_seen.setdefault(noun.lemma, noun.start)
    ranked = sorted(analysis.counts, key=lambda lemma: (-analysis.counts[lemma], first_seen[lemma]))
    results: list[Candidate | Skip] = []
    for lemma in ranked:
        why = analysis.ambiguity(lemma)
        if why:
            results.append(Skip(Capability.WORD_FREQUENCY, why.split(":")[0]))
            continue
        count = analysis.counts[lemma]
        counts = nearby_counts(count, rng)
        results.append(_candidate(
            Capability.WORD_FREQUENCY, f"이 음성에서 '{lemma}'{_ranun(lemma)} 단어는 몇 번 나오나요?", f"{count}번",
            [f"{n}번" for n in counts if n != count], rng, key="word_frequency",
            rule="transcript.word_frequency", params={"word": lemma, "count": count, "counts": counts}))
        break
    return results


def order_question(facts: ClipFacts, analysis: Analysis, rng: random.Random) -> Candidate | Skip:
    """Which of four nouns of the clip is said first, last, or right after a given noun. Only nouns said
    exactly once and unambiguous under the analysis take part."""
    once = [n for n in analysis.nouns if analysis.counts[n.lemma] == 1 and analysis.ambiguity(n.lemma) is None]
    if len(once) < 4:
        return Skip(Capability.WORD_ORDER, "fewer than four distinct unambiguous words")
    kinds = ["first", "last"]
    # "Right after X": X and the noun after it both said once, and three more words to choose from.
    pairs = [(a, b) for a, b in zip(analysis.nouns, analysis.nouns[1:], strict=False)
             if a in once and b in once]
    if pairs and len(once) >= 5:
        kinds.append("after")
    kind = rng.choice(kinds)
    if kind == "after":
        given, answer = rng.choice(pairs)
        pool = [n for n in once if n not in (given, answer)]
        distractors = rng.sample(pool, 3)
        return _candidate(Capability.WORD_ORDER, f"'{given.lemma}' 바로 다음에 나오는 명사는 무엇인가요?", answer.lemma,
                          [d.lemma for d in distractors], rng, key="word_order",
                          rule="transcript.word_order", params={"kind": "after", "given": given.lemma,
                                                                "answer": answer.lemma})
    chosen = sorted(rng.sample(once, 4), key=lambda n: n.start)
    answer = chosen[0] if kind == "first" else chosen[-1]
    text = "다음 중 가장 먼저 말한 단어는 무엇인가요?" if kind == "first" else "다음 중 가장 마지막에 말한 단어는 무엇인가요?"
    return _candidate(Capability.WORD_ORDER, text, answer.lemma, [n.lemma for n in chosen if n is not answer], rng,
                      key="word_order", rule="transcript.word_order",
                      params={"kind": kind, "words": [n.lemma for n in chosen], "answer": answer.lemma})


METADATA_BUILDERS = {Capability.GENDER: gender_question, Capability.AGE: age_question,
                     Capability.NUM_SPEAKERS: speakers_question}
# The clip metadata field each metadata question is about.
METADATA_FIELDS = {Capability.GENDER: "gender", Capability.AGE: "age_group", Capability.NUM_SPEAKERS: "num_speakers"}


def constant_answer_skip(capability: str, values: set) -> Skip | None:
    """A metadata question whose answer is the same for every clip of the corpus (a one-speaker corpus such
    as KSS: always 여성, always 1명) measures nothing a model could not guess from the corpus: skip it."""
    known = {v for v in values if v not in (None, "")}
    if len(known) == 1:
        return Skip(capability, f"the same answer for every clip of the corpus ({known.pop()})")
    return None
TRANSCRIPT_BUILDERS = {Capability.WORD_FREQUENCY: frequency_question, Capability.WORD_ORDER: order_question}
