"""Reading the LLM judge's raw answers (the calls themselves are made by the caller, through apps.agents),
as VoiceBench's open and qa evaluators read them (src/evaluator/open.py, qa.py; prompts in api_judge.py).

- open-ended: the judge answers a 1-5 score "only"; VoiceBench takes the answer as a number, else the
  first "[[n]]" in it. Here also the first standalone digit 1-5 when neither form is there; a rating outside
  1-5 or none at all is None (the call is recorded, and not averaged).
- short answer: the judge answers "Yes" or "No"; VoiceBench takes the majority of three lower-cased answers.
  Here an answer counts by its first word ("Yes." is yes), and an answer that is neither is not a vote;
  no majority (a tie, or no votes) is None."""

import re

_BRACKETED = re.compile(r"\[\[(\d+(?:\.\d+)?)\]\]")
_DIGIT = re.compile(r"(?<![\d.])([1-5])(?!\d|\.\d)")
_FIRST_WORD = re.compile(r"[A-Za-z가-힣]+")
YES = {"yes", "예", "네"}
NO = {"no", "아니요", "아니오", "아니"}


def parse_rating(text: str) -> float | None:
    raw = (text or "").strip()
    try:
        value = float(raw)
    except ValueError:
        match = _BRACKETED.search(raw) or _DIGIT.search(raw)
        value = float(match.group(1)) if match else None
    return value if value is not None and 1 <= value <= 5 else None


def parse_yes_no(text: str) -> bool | None:
    match = _FIRST_WORD.search(text or "")
    word = match.group(0).lower() if match else ""
    return True if word in YES else False if word in NO else None


def majority(answers: list[str]) -> bool | None:
    votes = [v for v in (parse_yes_no(a) for a in answers) if v is not None]
    yes, no = votes.count(True), votes.count(False)
    return None if yes == no else yes > no
