"""Reading and checking the HPSU release format (issue 4; public release `HPSU_data.json`).

A file is a JSON array of objects, or JSONL (one object a line). Each object:
    id, audio_path, category, sub-category, question, choice (list), attributes, answer, source, metric,
    type (Single-Choice | Multiple-Choice | Judgment/Binary), language; optional prompts {standard, positive,
    negative}, transcript, video_path or image_path, and for yes/no over two statements `selected_field`
    ("right": the true statement is put to the listener; "distractor": the other one).
`attributes` is {"true", "similar", "middle", "opposite"} -> option text for tiered single-choice,
{"true": "A,B"} for multiple-choice, and empty ("" or {}) otherwise. `answer` is comma-joined when several.

`parse_records` reads the file through apps.core.tabular with HpsuRecord as its row model and never touches
the database; it returns the parsed items and every problem, each naming file, line and field."""

from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ConfigDict, Field, PrivateAttr, ValidationInfo, field_validator, model_validator

from apps.core.tabular import RowModel, parse_table
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
    line: int = 0


class HpsuRecord(RowModel):
    """One HPSU record. Texts are kept as written (options are compared exactly); unknown keys are kept in
    the stored record. context={"existing": ids the project already has}."""

    model_config = ConfigDict(extra="allow", coerce_numbers_to_str=True, populate_by_name=True)

    id: str = Field(min_length=1)
    audio_path: str = Field(min_length=1)
    sub_category: str = Field(alias="sub-category", min_length=1)
    question: str = Field(min_length=1)
    choice: list[str] = Field(min_length=1)
    answer: str = Field(min_length=1)
    type: str
    language: str
    category: str = ""
    attributes: dict[str, str] | None = None
    source: str = ""
    metric: str = ""
    prompts: dict[str, str | list[str]] | None = None
    transcript: str = ""
    video_path: str = ""
    image_path: str = ""
    selected_field: str = "right"
    _item: ParsedItem = PrivateAttr()
    _raw: dict = PrivateAttr()

    @model_validator(mode="wrap")
    @classmethod
    def _keep_the_record(cls, data, handler):
        # The record is stored (and exported) exactly as the file gave it.
        row = handler(data)
        row._raw = dict(data)
        return row

    @field_validator("attributes", "prompts", mode="before")
    @classmethod
    def _blank_is_none(cls, value):
        return None if value == "" else value

    @field_validator("id")
    @classmethod
    def _new_id(cls, value: str, info: ValidationInfo) -> str:
        if value in info.context["existing"]:
            raise ValueError("duplicate id (the project already has an item with this id)")
        return value

    @field_validator("sub_category")
    @classmethod
    def _task(cls, value: str) -> str:
        if find_task(value) is None:
            raise ValueError(f"unknown task {value!r} (the 16 HPSU tasks are Age, Gender, ...)")
        return value

    @field_validator("type")
    @classmethod
    def _type(cls, value: str) -> str:
        if value not in TYPE_TO_FORMAT:
            raise ValueError(f"unknown type {value!r} (expected {', '.join(TYPE_TO_FORMAT)})")
        return value

    @field_validator("metric")
    @classmethod
    def _metric(cls, value: str) -> str:
        if value and value not in METRICS:
            raise ValueError(f"unknown metric {value!r} (expected {', '.join(sorted(METRICS))})")
        return value

    @field_validator("language")
    @classmethod
    def _language(cls, value: str) -> str:
        if value not in LANGUAGES:
            raise ValueError(f"unknown language {value!r} (expected {', '.join(LANGUAGES)})")
        return value

    @field_validator("choice")
    @classmethod
    def _options(cls, value: list[str]) -> list[str]:
        if not all(option.strip() for option in value):
            raise ValueError("an option is empty")
        if len(set(value)) != len(value):
            raise ValueError("the options are not distinct")
        return value

    @field_validator("prompts")
    @classmethod
    def _prompts(cls, value: dict | None) -> dict | None:
        if value and set(value) - set(PROMPT_VARIANTS):
            raise ValueError(f"prompts take the keys {', '.join(PROMPT_VARIANTS)}")
        return value

    @field_validator("selected_field")
    @classmethod
    def _selected(cls, value: str) -> str:
        if value not in ("right", "distractor"):
            raise ValueError(f"must be 'right' or 'distractor', not {value!r}")
        return value

    @model_validator(mode="after")
    def _item_checks(self) -> "HpsuRecord":
        task = find_task(self.sub_category)
        if self.category and self.category != task.domain:
            raise ValueError(f"task {task.name!r} belongs to domain {task.domain!r}, not {self.category!r}")
        fmt, options, answer = TYPE_TO_FORMAT[self.type], self.choice, self.answer
        answers = split_answer(answer, options) if fmt == MULTIPLE else [answer]
        problems = []
        not_options = [a for a in answers if a not in options]
        if not_options:
            problems.append(f"the answer {', '.join(repr(a) for a in not_options)} is not among the options")
        if fmt == SINGLE and len(answers) != 1:
            problems.append("a single-choice item has exactly one answer")
        if fmt == MULTIPLE and not answers:
            problems.append("a multiple-choice item needs at least one answer")
        tiers, tier_problems = _tiers(self.attributes, options, answers, fmt)
        problems += tier_problems
        statement, expected_yes = "", None
        if fmt == YES_NO:
            if len(options) != 2:
                problems.append(f"a yes/no item needs exactly two options, not {len(options)}")
            else:
                statement, expected_yes = _yes_no(self.selected_field, options, answer)
        if problems:
            raise ValueError("; ".join(problems))
        visual_path, visual_kind = next(
            ((path, kind) for path, kind in ((self.image_path, "image"), (self.video_path, "video")) if path), ("", "")
        )
        self._item = ParsedItem(
            external_id=self.id, audio_path=self.audio_path, task=task.name, domain=task.domain, format=fmt,
            language=self.language, question=self.question, options=list(options), answers=answers, tiers=tiers,
            prompts=self.prompts or {}, source=self.source, metric=self.metric, transcript=self.transcript,
            statement=statement, expected_yes=expected_yes, visual_path=visual_path, visual_kind=visual_kind,
            record={},  # filled with the raw record once validation is done (_keep_the_record)
        )
        return self


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


def parse_records(source: Path | bytes, *, name: str, existing_ids: set[str] = frozenset()):
    """(items, problems): every record of a JSON array or JSONL file checked; each problem names the file,
    the line its record starts on and the field."""
    start = (source if isinstance(source, bytes) else Path(source).read_bytes()).lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    rows, problems = parse_table(
        source, HpsuRecord, name=name, format="json" if start == b"[" else "jsonl",
        context={"existing": set(existing_ids)}, unique="id", blank_is_missing=False,
    )
    items = []
    for line, row in rows:
        row._item.line, row._item.record = line, row._raw
        items.append(row._item)
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


def _yes_no(selected: str, options: list[str], answer: str) -> tuple[str, bool | None]:
    """Two kinds of yes/no item: options Yes/No (the answer is one of them), or two statements of which the
    answer is the true one and `selected_field` says which is put to the listener (HPSU's Description and
    Subtext items)."""
    words = {o.strip().casefold() for o in options}
    if words <= YES_WORDS | NO_WORDS and words & YES_WORDS and words & NO_WORDS:
        return "", answer.strip().casefold() in YES_WORDS
    other = next(o for o in options if o != answer) if answer in options else ""
    return (answer if selected == "right" else other), selected == "right"


def safe_media_path(media_dir: Path, relative: str) -> Path | None:
    """The file under media_dir, or None when the path would leave the folder."""
    root = media_dir.resolve()
    path = (root / relative).resolve()
    return path if path.is_relative_to(root) else None
