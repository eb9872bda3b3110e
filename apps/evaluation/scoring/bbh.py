"""BBH / KBBH (VoiceBench's four human-recorded BBH tasks: sports_understanding, hyperbaton, navigate,
web_of_lies): the yes/no or (a)/(b) answer read from free text the way VoiceBench's bbh evaluator reads it.

The response is normalised as VoiceBench does (lower-cased, turn markers dropped, ":", "**", '"', "-", ",",
"." and "：" made spaces, spaces collapsed), then the task's ordered rules decide (data/bbh_rules.yaml,
versioned: VoiceBench's rules, two of them corrected, and Sori's Korean rules, tried first for Korean).
KBBH's hyperbaton items were redesigned as Korean grammar judgments with options ㄱ/ㄴ (rule
ht-grammar-redesign); their answer is read with the multiple-choice reader. Where VoiceBench guesses at
random when no rule holds, nothing is read here and the item scores 0.

The task comes from the item's "task", or else from its VoiceBench "id" (e.g. "navigate_12")."""

import re
import unicodedata
from functools import cache

from apps.core.errors import InvalidInput
from apps.evaluation.scoring import mcq
from apps.evaluation.scoring.result import Scored, data_file

TASKS = {"sports_understanding": "sports", "hyperbaton": "hyperbaton", "navigate": "navigate", "web_of_lies": "lies"}
# Reference answers: 1 = yes / true / option (b), 0 = no / false / option (a).
REFERENCES = {
    "yes": 1, "no": 0, "true": 1, "false": 0, "(a)": 0, "(b)": 1, "a": 0, "b": 1,
    "예": 1, "네": 1, "참": 1, "아니요": 0, "아니오": 0, "아니": 0, "거짓": 0,
    "ㄱ": 0, "(ㄱ)": 0, "ㄴ": 1, "(ㄴ)": 1,
}
_SPACED = str.maketrans({":": " ", '"': " ", "-": " ", ",": " ", ".": " ", "：": " "})


@cache
def _rules() -> dict:
    raw = data_file("bbh_rules.yaml")

    def compile_(rules):
        return tuple((test, re.compile(text) if test == "regex" else text, value) for test, text, value in rules)

    return {
        "version": raw["version"],
        "english": {task: (body["yes_no_first"], compile_(body["rules"])) for task, body in raw["english"].items()},
        "korean": {task: compile_(rules) for task, rules in raw["korean"].items()},
    }


def version() -> str:
    return _rules()["version"]


def normalise(response: str) -> str:
    text = unicodedata.normalize("NFC", response or "").lower()
    if text.endswith("<|user|>"):
        text = text[:-8].strip()
    if text.startswith(("<1>", "<2>", "<3>")):
        text = text[3:].strip()
    text = text.replace("<|turn_end|>", "").replace("**", " ").translate(_SPACED)
    return " ".join(text.split())


def _holds(test: str, pattern, text: str) -> bool:
    if test == "contains":
        return pattern in text
    if test == "equals":
        return text == pattern
    if test == "startswith":
        return text.startswith(pattern)
    if test == "endswith":
        return text.endswith(pattern)
    return pattern.search(text) is not None


def _first(rules, text: str) -> tuple[int, str] | None:
    for test, pattern, value in rules:
        if _holds(test, pattern, text):
            return value, f"{test}: {getattr(pattern, 'pattern', pattern)}"
    return None


def task_of(item: dict) -> str:
    name = str(item.get("task") or item.get("id") or "")
    for task in TASKS:
        if task in name:
            return task
    raise InvalidInput(f"cannot tell the BBH task of item {name or '(no id)'!r}: its id or task must name one of "
                       f"{', '.join(TASKS)}", field="id")


def read_answer(task: str, response: str, *, language: str) -> tuple[int | None, str | None]:
    """(1 = yes / (b), 0 = no / (a), the rule that decided), or (None, None)."""
    rules = _rules()
    key = TASKS[task]
    text = normalise(response)
    if language == "ko":
        if key == "hyperbaton":
            label, template = mcq.extract_choice(response, ("ㄱ", "ㄴ"))
            if label is not None:
                return (0 if label == "ㄱ" else 1), f"multiple choice: {template}"
        else:
            korean = rules["korean"]
            for group in ("yn", key, "last"):
                found = _first(korean.get(group, ()), text)
                if found:
                    return found
    yes_no_first, own = rules["english"][key]
    if yes_no_first:
        found = _first(rules["english"]["yn"][1], text)
        if found:
            return found
    found = _first(own, text)
    return found if found else (None, None)


def score(item: dict, response: str, *, language: str) -> Scored:
    task = task_of(item)
    reference = REFERENCES.get(unicodedata.normalize("NFC", str(item.get("answer", ""))).strip().lower())
    read, rule = read_answer(task, response, language=language)
    detail = {"task": task, "extracted": read, "rule": rule, "reference": reference}
    if reference is None:
        detail["problem"] = f"the reference {item.get('answer', '')!r} is not yes/no or (A)/(B)"
    return Scored(score=float(read is not None and read == reference), detail=detail, evaluator="bbh",
                  version=version())
