"""BBH / KBBH (VoiceBench's four human-recorded BBH tasks: sports_understanding, hyperbaton, navigate,
web_of_lies): the answer a free-text response asserts. Sori's reader (the `sori` profile; VoiceBench's rules are
the `voicebench` profile's), one for both languages.

The rule (data/bbh_rules.yaml, versioned): words, not prefixes, are read ("now" and "nothing" are not "no");
a response is judged by the answer it finally asserts: the last explicit statement of it ("the answer is no",
"..., so yes.", 정답은 아니요입니다), else the last opening answer word (네, ... / No, ...) or task assertion
("the sentence is plausible", 출발점으로 돌아오지 않아요, "Sal tells the truth"); negations turn an assertion
over, hedges and conditions, reports and questions assert nothing. BBH's (A)/(B) and KBBH's redesigned
hyperbaton items (Korean grammar judgments with options ㄱ/ㄴ, rule ht-grammar-redesign) are read with the
multiple-choice reader. Where no answer can be read, nothing is: the item scores 0 (VoiceBench guesses).

The task comes from the item's "task", or else from its VoiceBench "id" (e.g. "navigate_12")."""

import re
import unicodedata
from functools import cache

from django.utils.translation import gettext

from apps.core.errors import InvalidInput
from apps.evaluation.scoring import mcq
from apps.evaluation.scoring.patterns import Rule  # patterns behind a literal prefilter: most never run
from apps.evaluation.scoring.result import Scored, data_file

TASKS = ("sports_understanding", "hyperbaton", "navigate", "web_of_lies")
# Reference answers: 1 = yes / true / option (b), 0 = no / false / option (a).
REFERENCES = {
    "yes": 1, "no": 0, "true": 1, "false": 0, "(a)": 0, "(b)": 1, "a": 0, "b": 1,
    "예": 1, "네": 1, "참": 1, "아니요": 0, "아니오": 0, "아니": 0, "거짓": 0,
    "ㄱ": 0, "(ㄱ)": 0, "ㄴ": 1, "(ㄴ)": 1,
}
EXPLICIT, ASSERTED = 2, 1  # candidate ranks
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "`": "'", "´": "'"})
_BOXED = re.compile(r"\$*\\boxed\{\s*(?:\\text\{)?\s*([^{}]*?)\s*\}?\s*\}\$*")
_MARKUP = re.compile(r"\*\*|__|(?<!\w)_(?!\w)|^#+\s*|<\|turn_end\|>|<\|user\|>|^<[123]>", re.MULTILINE)
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])(?<!\d[.])\s+|\s*\n\s*")
_ENGLISH_NAME = re.compile(r"\b([A-Z][a-z]+)\b")
_ASKED_EN = re.compile(r"\bdoes\s+([A-Za-z]+)\s+tell\s+the\s+truth", re.IGNORECASE)
_KOREAN_NAME = re.compile(r"([가-힣]{2,4}?)(?:은|는|이|가)\s")
_ASKED_KO = re.compile(r"([가-힣]{1,4}?)(?:은|는|이|가)\s*(?:진실을|참말을|사실을)\s*(?:말하|얘기하)")
_NOT_NAMES = {"question", "does", "do", "is", "the", "if", "so", "yes", "no", "tell", "truth", "answer", "says",
              "options", "option", "then", "and", "but", "who", "what", "please", "true", "false"}


@cache
def _rules() -> dict:
    raw = data_file("bbh_rules.yaml")
    flags = re.MULTILINE  # patterns are lower case, as the normalised text is

    def one(patterns) -> Rule:
        return Rule(patterns, flags)

    def yes_no(body: dict) -> tuple[tuple[Rule, int], ...]:
        return ((one(body["yes"]), 1), (one(body["no"]), 0))

    return {
        "version": raw["version"],
        "explicit": yes_no(raw["explicit"]),
        "opening": yes_no(raw["opening"]),
        "assertion": {task: yes_no(body) for task, body in raw["assertion"].items()},
        "option": one(raw["hyperbaton"]["option"]),
        "ordinal": one(raw["hyperbaton"]["ordinal"]),
        "option_denied": one(raw["hyperbaton"]["denied"]),
        "negation": {name: one(pattern) for name, pattern in raw["negation"].items()},
        "hypothetical": {name: one(pattern) for name, pattern in raw["hypothetical"].items()},
        "clause_break": one(raw["clause_break"]),
    }


def version() -> str:
    return _rules()["version"]


def normalise(response: str) -> str:
    """Lower case, ASCII apostrophes, markdown emphasis and turn markers dropped, \\boxed{x} as "answer: x"."""
    text = unicodedata.normalize("NFC", response or "").translate(_APOSTROPHES)
    text = _BOXED.sub(r" answer: \1 ", text)
    text = _MARKUP.sub(" ", text).lower()
    return "\n".join(" ".join(line.split()) for line in text.splitlines())


def task_of(item: dict) -> str:
    name = str(item.get("task") or item.get("id") or "")
    for task in TASKS:
        if task in name:
            return task
    raise InvalidInput(gettext(
        "cannot tell the BBH task of item %(id)r: its id or task must name one of %(tasks)s"
    ) % {"id": name or '(no id)', "tasks": ', '.join(TASKS)}, field="id")


def _people(question: str) -> tuple[set[str], str | None]:
    """The names in a web_of_lies question and the one it asks about ("Does Sal tell the truth?")."""
    asked = _ASKED_EN.search(question) or _ASKED_KO.search(question)
    names = {n.lower() for n in _ENGLISH_NAME.findall(question)} | set(_KOREAN_NAME.findall(question))
    return names - _NOT_NAMES, (asked.group(1).lower() if asked else None)


def _clause_before(sentence: str, start: int) -> str:
    """The text of the match's clause before it (from the last comma, "so", 따라서...)."""
    before = sentence[:start]
    breaks = list(_rules()["clause_break"].finditer(before))
    return before[breaks[-1].end():] if breaks else before


def _asserted(sentence: str, match: re.Match, value: int, people) -> tuple[int | None, str]:
    """The value an assertion match gives in its sentence (turned over under a negation), or None when it is a
    condition, a report, a question, or (web_of_lies) about someone other than the person asked about."""
    rules = _rules()
    clause, after = _clause_before(sentence, match.start()), sentence[match.end():match.end() + 16]
    if rules["hypothetical"]["before"].search(clause) or rules["hypothetical"]["after"].search(after):
        return None, "a condition or a report"
    if people:
        names, asked = people
        mentioned = [(clause.rfind(name), name) for name in names if name in clause]
        if asked and mentioned and max(mentioned)[1] != asked:
            return None, f"about {max(mentioned)[1]}, not {asked}"
    negated = (rules["negation"]["before"].search(clause) or rules["negation"]["after"].search(after)
               or rules["negation"]["inside"].search(match.group()))
    return (1 - value if negated else value), ("negated" if negated else "")


def _candidates(task: str, text: str, question: str) -> list[tuple[int, int, int, str, str]]:
    """(rank, position, value, matched text, kind) of every answer the normalised response states."""
    rules = _rules()
    people = _people(question) if task == "web_of_lies" and question else None
    found, offset = [], 0
    for sentence in _SENTENCE_END.split(text):
        position, offset = offset, offset + len(sentence) + 1
        sentence = sentence.strip()
        if not sentence or sentence.endswith("?"):
            continue  # a question asserts nothing
        for rank, kind, pairs in ((EXPLICIT, "explicit answer", rules["explicit"]),
                                  (ASSERTED, "opening answer word", rules["opening"])):
            for pattern, value in pairs:
                for m in pattern.finditer(sentence):
                    if not rules["negation"]["denied"].search(sentence[m.end():m.end() + 12]):
                        found.append((rank, position + m.start(), value, m.group().strip(), kind))
        spans = []
        for pattern, value in rules["assertion"].get(task, ()):
            spans += [(m, value) for m in pattern.finditer(sentence)]
        for m, value in spans:
            if any(o.start() <= m.start() and m.end() <= o.end() and (o.end() - o.start()) > (m.end() - m.start())
                   for o, _ in spans):
                continue  # inside a longer assertion (그럴듯한 문장이 아닙니다 holds 그럴듯한 문장)
            read, why = _asserted(sentence, m, value, people)
            if read is not None:
                found.append((ASSERTED, position + m.start(), read, m.group().strip(),
                              f"assertion{' (' + why + ')' if why else ''}"))
    return found


def _hyperbaton(response: str, text: str, labels: tuple[str, str]) -> tuple[int | None, str | None]:
    label, how = mcq.extract_choice(response, labels)
    if label is not None:
        return labels.index(label), f"multiple choice: {how}"
    rules = _rules()
    found = []
    for pattern, kind in ((rules["option"], "option asserted"), (rules["ordinal"], "ordinal asserted")):
        for m in pattern.finditer(text):
            word = next(g for g in m.groups() if g)
            value = 0 if word in ("a", "ㄱ", "first", "첫번째", "첫 번째") else 1
            if rules["option_denied"].search(text[m.end():m.end() + 12]):
                value = 1 - value  # of two options, the one denied is not the answer
            found.append((m.start(), value, f"{kind}: {m.group()}"))
    if not found:
        return None, None
    _, value, rule = max(found)
    return value, rule


def read_answer(task: str, response: str, *, language: str, question: str = "",
                labels: tuple[str, str] | None = None) -> tuple[int | None, str | None]:
    """(1 = yes / (b), 0 = no / (a), the evidence), or (None, None) when no answer can be read. `question` (the
    item's) lets web_of_lies tell the answer from reasoning about other people; `labels` are hyperbaton's
    option labels, ("A", "B") or ("ㄱ", "ㄴ") by default after the language."""
    text = normalise(response)
    if task == "hyperbaton":
        return _hyperbaton(response, text, labels or (("ㄱ", "ㄴ") if language == "ko" else ("A", "B")))
    found = _candidates(task, text, question)
    if not found:
        return None, None
    last = max(found, key=lambda c: (c[0], c[1]))
    # of two readings of one statement ("the answer is no" and "is no."), name the one that starts first
    rank, _, value, matched, kind = min((c for c in found if c[0] == last[0] and c[2] == last[2]
                                         and c[1] <= last[1] < c[1] + len(c[3])), key=lambda c: c[1])
    return value, f"{kind}: {matched}"


def score(item: dict, response: str, *, language: str) -> Scored:
    task = task_of(item)
    answer = unicodedata.normalize("NFC", str(item.get("answer", ""))).strip().lower()
    reference = REFERENCES.get(answer)
    labels = ("ㄱ", "ㄴ") if answer.strip("()") in ("ㄱ", "ㄴ") else ("A", "B") if answer.strip("()") in ("a", "b") \
        else None
    read, rule = read_answer(task, response, language=language, question=str(item.get("question") or ""),
                             labels=labels)
    detail = {"task": task, "extracted": read, "rule": rule, "reference": reference}
    if reference is None:
        detail["problem"] = f"the reference {item.get('answer', '')!r} is not yes/no or (A)/(B)"
    return Scored(score=float(read is not None and read == reference), detail=detail, evaluator="bbh",
                  version=version())
