"""Reading source benchmark files into plain rows, with the line (or row) each came from.

VoiceBench (exported from its Hugging Face parquet files to JSONL or Parquet): `prompt` always, and per
subset `reference` (sd-qa, mmsu, openbookqa, bbh), `id` (bbh, mmsu), `key`, `instruction_id_list`, `kwargs`
(ifeval). OpenAudioBench subset CSVs: `audio_filename` plus the question and answer columns of each subset:
alpaca_eval `instruction/output`, llama_questions `Questions/Answer`, web_questions `question/answers`,
trivia_qa `question/answer_normalized_aliases`.

Each parser yields ParsedRow or raises RowError naming the line; apps.transfer.services.import_benchmark
collects every error and writes nothing when there is one."""

import ast
import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from apps.transfer.models import TaskType


class RowError(ValueError):
    pass


@dataclass
class ParsedRow:
    line: int
    source_id: str
    task_type: str
    transcription: str
    answer: str = ""
    aliases: list[str] = field(default_factory=list)
    audio_filename: str = ""
    raw: dict = field(default_factory=dict)


@dataclass(frozen=True)
class SubsetSpec:
    task_type: str | None  # None: decided per row (BBH mixes binary, multiple-choice and short answers)
    question: str
    answer: str | None = None
    answer_is_list: bool = False
    required: tuple[str, ...] = ()


VOICEBENCH_SUBSETS = {
    "alpacaeval": SubsetSpec(TaskType.OPEN_ENDED, "prompt"),
    "alpacaeval_full": SubsetSpec(TaskType.OPEN_ENDED, "prompt"),
    "commoneval": SubsetSpec(TaskType.OPEN_ENDED, "prompt"),
    "wildvoice": SubsetSpec(TaskType.OPEN_ENDED, "prompt"),
    "sd-qa": SubsetSpec(TaskType.SHORT_ANSWER, "prompt", "reference"),
    "mmsu": SubsetSpec(TaskType.MULTIPLE_CHOICE, "prompt", "reference"),
    "openbookqa": SubsetSpec(TaskType.MULTIPLE_CHOICE, "prompt", "reference"),
    "bbh": SubsetSpec(None, "prompt", "reference"),
    "ifeval": SubsetSpec(TaskType.INSTRUCTION_FOLLOWING, "prompt", required=("key", "instruction_id_list", "kwargs")),
    "advbench": SubsetSpec(TaskType.SAFETY, "prompt"),
}

OPENAUDIOBENCH_SUBSETS = {
    "alpaca_eval": SubsetSpec(TaskType.OPEN_ENDED, "instruction", "output"),
    "llama_questions": SubsetSpec(TaskType.SHORT_ANSWER, "Questions", "Answer"),
    "web_questions": SubsetSpec(TaskType.SHORT_ANSWER, "question", "answers", answer_is_list=True),
    "trivia_qa": SubsetSpec(TaskType.SHORT_ANSWER, "question", "answer_normalized_aliases", answer_is_list=True),
}

_BINARY = {"true", "false", "yes", "no", "valid", "invalid"}


def subset_spec(fmt: str, subset: str) -> SubsetSpec:
    """The spec for a subset name; regional or per-domain splits ("sd-qa-usa", "mmsu_biology") use their
    family's spec."""
    table = VOICEBENCH_SUBSETS if fmt == "voicebench" else OPENAUDIOBENCH_SUBSETS
    if subset in table:
        return table[subset]
    for name in sorted(table, key=len, reverse=True):
        if re.fullmatch(rf"{re.escape(name)}[-_].+", subset):
            return table[name]
    raise RowError(f"unknown {fmt} subset {subset!r}; known subsets: {', '.join(table)}")


def bbh_task_type(reference: str) -> str:
    value = reference.strip()
    if re.fullmatch(r"\([A-R]\)", value):
        return TaskType.MULTIPLE_CHOICE
    if value.lower() in _BINARY:
        return TaskType.BINARY
    return TaskType.SHORT_ANSWER


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value != value:  # NaN from a Parquet null
        return ""
    return str(value).strip()


def _aliases(value, where: str) -> list[str]:
    """A list column: a real list (JSONL, Parquet) or its printed form in a CSV cell ("['a', 'b']")."""
    if isinstance(value, list | tuple):
        items = list(value)
    elif hasattr(value, "tolist"):
        items = value.tolist()
    else:
        text = _text(value)
        if not text:
            return []
        if text.startswith("["):
            try:
                items = json.loads(text)
            except ValueError:
                try:
                    items = ast.literal_eval(text)
                except (ValueError, SyntaxError):
                    raise RowError(f"{where}: cannot read the list {text[:80]!r}") from None
            if not isinstance(items, list):
                raise RowError(f"{where}: expected a list, got {text[:80]!r}")
        else:
            items = [text]
    aliases: list[str] = []
    for item in items:
        value = _text(item)
        if value and value not in aliases:
            aliases.append(value)
    return aliases


def _jsonable(record: dict) -> dict:
    """The raw record, JSON-safe. Audio bytes are not kept here (the audio is re-synthesised later)."""
    out = {}
    for key, value in record.items():
        if key == "audio":
            out[key] = "(audio column not kept)"
            continue
        if hasattr(value, "tolist"):
            value = value.tolist()
        if isinstance(value, float) and value != value:
            value = None
        if isinstance(value, bytes):
            value = f"({len(value)} bytes not kept)"
        out[key] = value
    return json.loads(json.dumps(out, default=str))


def build_row(fmt: str, spec: SubsetSpec, subset: str, record: dict, line: int, index: int, where: str) -> ParsedRow:
    missing = [c for c in (spec.question, spec.answer, *spec.required) if c and c not in record]
    if missing:
        raise RowError(f"{where}: missing column {', '.join(repr(m) for m in missing)}")
    question = _text(record[spec.question])
    if not question:
        raise RowError(f"{where}: {spec.question!r} is empty")
    answer, aliases = "", []
    if spec.answer:
        if spec.answer_is_list:
            aliases = _aliases(record[spec.answer], f"{where} {spec.answer!r}")
            answer = _text(record.get("answer")) or (aliases[0] if aliases else "")
            aliases = [a for a in aliases if a != answer]
        else:
            answer = _text(record[spec.answer])
        if not answer:
            raise RowError(f"{where}: {spec.answer!r} is empty")
    task_type = spec.task_type or bbh_task_type(answer)
    if fmt == "voicebench":
        source_id = _text(record.get("id")) or _text(record.get("key")) or f"{subset}-{index:05d}"
        audio = ""
    else:
        audio = _text(record.get("audio_filename"))
        if not audio:
            raise RowError(f"{where}: 'audio_filename' is missing or empty")
        source_id = audio
    if spec.required:
        for column in spec.required:
            if record.get(column) is None or (isinstance(record[column], str) and not record[column].strip()):
                raise RowError(f"{where}: {column!r} is empty")
    return ParsedRow(
        line=line, source_id=source_id, task_type=task_type, transcription=question, answer=answer,
        aliases=aliases, audio_filename=audio, raw=_jsonable(record),
    )


def read_records(fmt: str, path: Path, data: bytes | None = None) -> Iterator[tuple[int, str, dict | RowError]]:
    """(line or row number, how to name it, record or the error reading it)."""
    name = path.name
    suffix = path.suffix.lower()
    if fmt == "voicebench" and suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            source = pq.ParquetFile(io.BytesIO(data) if data is not None else path)
            # The audio column (often most of the file) is not read: the audio is re-synthesised later.
            columns = [column for column in source.schema_arrow.names if column != "audio"]
            table = source.read(columns=columns)
        except (pa.ArrowException, OSError) as exc:
            raise RowError(f"{name}: not a readable Parquet file ({exc})") from None
        for number, record in enumerate(table.to_pylist(), start=1):
            yield number, f"{name} row {number}", record
        return
    raw = data if data is not None else path.read_bytes()
    if fmt == "voicebench":
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise RowError(f"{name}: not UTF-8 text ({exc})") from None
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as exc:
                yield number, f"{name} line {number}", RowError(f"{name} line {number}: not valid JSON ({exc.args[0]})")
                continue
            if not isinstance(record, dict):
                yield number, f"{name} line {number}", RowError(f"{name} line {number}: expected a JSON object")
                continue
            yield number, f"{name} line {number}", record
    else:
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise RowError(f"{name}: not UTF-8 text ({exc})") from None
        reader = csv.DictReader(io.StringIO(text, newline=""))
        if not reader.fieldnames:
            raise RowError(f"{name}: the CSV has no header row")
        start = 2
        for record in reader:
            number = start  # the line the row starts on (a quoted cell may span lines)
            start = reader.line_num + 1
            if None in record:
                yield number, f"{name} line {number}", RowError(f"{name} line {number}: more cells than header columns")
                continue
            yield number, f"{name} line {number}", record


def parse_file(fmt: str, subset: str, path: Path, data: bytes | None = None) -> tuple[list[ParsedRow], list[str]]:
    """All rows and all errors (each naming file and line)."""
    spec = subset_spec(fmt, subset)
    rows: list[ParsedRow] = []
    errors: list[str] = []
    seen: dict[str, int] = {}
    for index, (number, where, record) in enumerate(read_records(fmt, path, data)):
        if isinstance(record, RowError):
            errors.append(str(record))
            continue
        try:
            row = build_row(fmt, spec, subset, record, number, index, where)
        except RowError as exc:
            errors.append(str(exc))
            continue
        if row.source_id in seen:
            errors.append(f"{where}: id {row.source_id!r} repeats line {seen[row.source_id]}")
            continue
        seen[row.source_id] = number
        rows.append(row)
    if not rows and not errors:
        errors.append(f"{path.name}: no rows")
    return rows, errors
