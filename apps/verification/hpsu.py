"""Reading and checking the HPSU release format (issue 4; public release `HPSU_data.json`).

A file is a JSON array of objects, or JSONL (one object a line). Each object:
    id, audio_path, category, sub-category, question, choice (list), attributes, answer, source, metric,
    type (Single-Choice | Multiple-Choice | Judgment/Binary), language; optional prompts {standard, positive,
    negative}, transcript, video_path or image_path, and for yes/no over two statements `selected_field`
    ("right": the true statement is put to the listener; "distractor": the other one).
`attributes` is {"true", "similar", "middle", "opposite"} -> option text for tiered single-choice,
{"true": "A,B"} for multiple-choice, and empty ("" or {}) otherwise. `answer` is comma-joined when several.

`parse_records` never touches the database; it returns the parsed items and every problem, each naming the
item id (or the line) and the reason."""

import json
from dataclasses import dataclass, field
from pathlib import Path

from apps.verification.taxonomy import (
    LANGUAGES,
    METRICS,
    MULTIPLE,
    NO_WORDS,
    PROMPT_VARIANTS,
    SINGLE,
    TIERS,
    TYPE_TO_FORMAT,
    YES_NO,
    YES_WORDS,
    find_task,
)

REQUIRED = ["id", "audio_path", "sub-category", "question", "choice", "answer", "type", "language"]


@dataclass
class ParsedItem:
    external_id: str
    audio_path: str
    task: str
    domain: str
    format: str
    language: str
    question: str
    options: list[str]
    answers: list[str]
    tiers: dict[str, str]
    prompts: dict
    source: str
    metric: str
    transcript: str
    statement: str
    expected_yes: bool | None
    visual_path: str
    visual_kind: str
    record: dict = field(repr=False)


class RecordsRefused(ValueError):
    """The file cannot be imported; `problems` lists each reason, naming the item id or line."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


def load_records(text: str, *, name: str) -> list[dict]:
    """A JSON array, or JSONL. Raises RecordsRefused naming the file and line of bad JSON."""
    stripped = text.lstrip("\ufeff").strip()
    if not stripped:
        raise RecordsRefused([f"{name}: the file is empty"])
    if stripped.startswith("["):
        try:
            records = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise RecordsRefused([f"{name}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"]) from None
    else:
        records = []
        for number, line in enumerate(stripped.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise RecordsRefused([f"{name}: line {number} is not valid JSON ({exc.msg})"]) from None
    bad = [i for i, r in enumerate(records, start=1) if not isinstance(r, dict)]
    if bad:
        raise RecordsRefused([f"{name}: record {i} is not a JSON object" for i in bad[:20]])
    return records


def split_answer(answer: str, options: list[str]) -> list[str]:
    """The correct options named by a comma-joined answer. A whole answer that is itself an option (it may
    contain a comma) counts as one. Option letters ("A,C") name options by position when no option is
    itself a single letter."""
    if answer in options:
        return [answer]
    parts = [part.strip() for part in answer.replace("，", ",").split(",") if part.strip()]
    letters_free = not any(len(o.strip()) == 1 for o in options)
    return [
        options[ord(p.upper()) - ord("A")]
        if letters_free and len(p) == 1 and p.isalpha() and p.isascii() and ord(p.upper()) - ord("A") < len(options)
        else p
        for p in parts
    ]


def parse_records(records: list[dict], *, existing_ids: set[str] = frozenset()) -> tuple[list[ParsedItem], list[str]]:
    items: list[ParsedItem] = []
    problems: list[str] = []
    seen: set[str] = set()
    for index, record in enumerate(records, start=1):
        raw_id = record.get("id")
        label = f"item {raw_id!r}" if raw_id not in (None, "") else f"record {index}"
        item_problems: list[str] = []
        missing = [key for key in REQUIRED if record.get(key) in (None, "", [])]
        if missing:
            problems.append(f"{label}: missing {', '.join(missing)}")
            continue
        external_id = str(raw_id)
        if external_id in seen:
            problems.append(f"{label}: duplicate id (it appears more than once in the file)")
            continue
        seen.add(external_id)
        if external_id in existing_ids:
            problems.append(f"{label}: duplicate id (the project already has an item with this id)")
            continue
        task = find_task(record["sub-category"])
        if task is None:
            item_problems.append(f"unknown task {record['sub-category']!r} (the 16 HPSU tasks are Age, Gender, ...)")
        elif record.get("category") not in (None, "") and record["category"] != task.domain:
            item_problems.append(f"task {task.name!r} belongs to domain {task.domain!r}, not {record['category']!r}")
        fmt = TYPE_TO_FORMAT.get(record["type"])
        if fmt is None:
            item_problems.append(f"unknown type {record['type']!r} (expected {', '.join(TYPE_TO_FORMAT)})")
        metric = record.get("metric") or ""
        if metric and metric not in METRICS:
            item_problems.append(f"unknown metric {metric!r} (expected {', '.join(sorted(METRICS))})")
        language = str(record["language"])
        if language not in LANGUAGES:
            item_problems.append(f"unknown language {language!r} (expected {', '.join(LANGUAGES)})")
        options = record["choice"]
        if not isinstance(options, list) or not all(isinstance(o, str) and o.strip() for o in options):
            problems.append(f"{label}: choice must be a list of option texts")
            continue
        if len(set(options)) != len(options):
            item_problems.append("the options are not distinct")
        answer = record["answer"]
        if not isinstance(answer, str):
            problems.append(f"{label}: answer must be text (comma-joined for several answers)")
            continue
        answers = split_answer(answer, options) if fmt == MULTIPLE else [answer]
        not_options = [a for a in answers if a not in options]
        if not_options:
            item_problems.append(f"the answer {', '.join(repr(a) for a in not_options)} is not among the options")
        if fmt == SINGLE and len(answers) != 1:
            item_problems.append("a single-choice item has exactly one answer")
        if fmt == MULTIPLE and not answers:
            item_problems.append("a multiple-choice item needs at least one answer")
        tiers, tier_problems = _tiers(record.get("attributes"), options, answers, fmt)
        item_problems += tier_problems
        statement, expected_yes = "", None
        if fmt == YES_NO:
            if len(options) != 2:
                item_problems.append(f"a yes/no item needs exactly two options, not {len(options)}")
            else:
                statement, expected_yes, yn_problems = _yes_no(record, options, answer)
                item_problems += yn_problems
        prompts = record.get("prompts") or {}
        if not isinstance(prompts, dict) or set(prompts) - set(PROMPT_VARIANTS) or not all(
            isinstance(v, str) or (isinstance(v, list) and all(isinstance(t, str) for t in v)) for v in prompts.values()
        ):
            item_problems.append(
                f"prompts must be an object with keys among {', '.join(PROMPT_VARIANTS)} and texts (or lists of texts)"
            )
            prompts = {}
        visual_path, visual_kind = "", ""
        for key, kind in (("video_path", "video"), ("image_path", "image")):
            if record.get(key):
                visual_path, visual_kind = str(record[key]), kind
        if item_problems:
            problems += [f"{label}: {p}" for p in item_problems]
            continue
        items.append(ParsedItem(
            external_id=external_id, audio_path=str(record["audio_path"]), task=task.name, domain=task.domain,
            format=fmt, language=language, question=str(record["question"]), options=list(options),
            answers=answers, tiers=tiers, prompts=prompts, source=str(record.get("source") or ""), metric=metric,
            transcript=str(record.get("transcript") or ""), statement=statement, expected_yes=expected_yes,
            visual_path=visual_path, visual_kind=visual_kind, record=record,
        ))
    return items, problems


def _tiers(attributes, options: list[str], answers: list[str], fmt: str) -> tuple[dict[str, str], list[str]]:
    if attributes in (None, "", {}):
        return {}, []
    if not isinstance(attributes, dict):
        return {}, ["attributes must be an object (or empty)"]
    problems, tiers = [], {}
    for key, value in attributes.items():
        if key not in ("true", *TIERS):
            problems.append(f"attributes has an unknown tier {key!r} (expected true, {', '.join(TIERS)})")
            continue
        named = split_answer(str(value), options) if key == "true" and fmt == MULTIPLE else [str(value)]
        for option in named:
            if option not in options:
                problems.append(f"tier {key!r} names {option!r}, which is not among the options")
            elif key == "true" and option not in answers:
                problems.append(f"tier 'true' names {option!r}, but the answer does not")
            elif key != "true":
                if option in answers:
                    problems.append(f"tier {key!r} names {option!r}, which is a correct answer")
                tiers[option] = key
    return tiers, problems


def _yes_no(record: dict, options: list[str], answer: str) -> tuple[str, bool | None, list[str]]:
    """Two kinds of yes/no item: options Yes/No (the answer is one of them), or two statements of which the
    answer is the true one and `selected_field` says which is put to the listener (HPSU's Description and
    Subtext items)."""
    words = {o.strip().casefold() for o in options}
    if words <= YES_WORDS | NO_WORDS and words & YES_WORDS and words & NO_WORDS:
        return "", answer.strip().casefold() in YES_WORDS, []
    selected = record.get("selected_field", "right")
    if selected not in ("right", "distractor"):
        return "", None, [f"selected_field must be 'right' or 'distractor', not {selected!r}"]
    other = next(o for o in options if o != answer) if answer in options else ""
    return (answer if selected == "right" else other), selected == "right", []


def safe_media_path(media_dir: Path, relative: str) -> Path | None:
    """The file under media_dir, or None when the path would leave the folder."""
    root = media_dir.resolve()
    path = (root / relative).resolve()
    return path if path.is_relative_to(root) else None
