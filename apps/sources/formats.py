"""Reading source benchmark files into plain rows, with the line (or row) each came from.

VoiceBench (exported from its Hugging Face parquet files to JSONL or Parquet): `prompt` always, and per
subset `reference` (sd-qa, mmsu, openbookqa, bbh), `id` (bbh, mmsu), `key`, `instruction_id_list`, `kwargs`
(ifeval). OpenAudioBench subset CSVs: `audio_filename` plus the question and answer columns of each subset:
alpacaeval_full `instruction/output`, llama_questions `Questions/Answer`, web_questions `question/answers`,
trivia_qa `question/answer_normalized_aliases`.

OpenAudioBench's AlpacaEval is named as seed 000 sizes it: 614 KAlpacaEval prompts in KOpenAudioBench (§4.2),
from the complete AlpacaEval set VoiceBench calls `alpacaeval_full` (636 prompts; VoiceBench's `alpacaeval`,
and OpenAudioBench's own `alpaca_eval`, are the 199-prompt helpful_base + vicuna part). The seed's counts
agree only so: 10,719 source samples = VoiceBench 7,783 (with alpacaeval_full) + OpenAudioBench 2,936 (300 +
1,000 + 1,000 + 636). The old name `alpaca_eval` stays importable, as an alias (apps.sources.catalogue),
stored as given (so data imported under it re-imports unchanged).

Each family of subsets has its row model on the one reader (apps.core.tabular); parse_file returns the rows
and every problem named by file, line and column, and apps.sources.services.import_benchmark writes
nothing when there is one."""

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from django.utils.translation import gettext
from pydantic import ConfigDict, Field, field_validator, model_validator

from apps.core.errors import FileProblem, InvalidInput
from apps.core.tabular import RowModel, parse_table
from apps.sources import catalogue
from apps.sources.catalogue import OPENAUDIOBENCH, VOICEBENCH, TaskType


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


# --- row models: one per family of subsets ---------------------------------------------------------------
class SourceRow(RowModel):
    """Every column is kept in the stored raw record; `question`, `answer` and `aliases` say which columns
    a subset's question and answer are."""

    model_config = ConfigDict(str_strip_whitespace=True, coerce_numbers_to_str=True, extra="allow")
    _raw: dict

    @model_validator(mode="wrap")
    @classmethod
    def _keep_the_record(cls, data, handler):
        # The stored record is the source's, blanks included (MMSU's empty cot_content); the model reads a
        # blank as absent, so a required column left blank is reported missing.
        row = handler({k: v for k, v in data.items() if not (isinstance(v, str) and not v.strip())})
        row._raw = _jsonable(data)
        return row

    def question(self) -> str:
        raise NotImplementedError

    def answer(self) -> tuple[str, list[str]]:
        return "", []


class VoiceBenchRow(SourceRow):  # alpacaeval, commoneval, wildvoice, advbench
    prompt: str
    id: str = ""
    key: str = ""

    def question(self) -> str:
        return self.prompt


class VoiceBenchReferenceRow(VoiceBenchRow):  # sd-qa, mmsu, openbookqa, bbh
    reference: str

    def answer(self) -> tuple[str, list[str]]:
        return self.reference, []


class IfevalRow(VoiceBenchRow):
    key: str
    instruction_id_list: list
    kwargs: list


class OpenAudioBenchRow(SourceRow):
    audio_filename: str


class AlpacaEvalRow(OpenAudioBenchRow):
    instruction: str
    output: str

    def question(self) -> str:
        return self.instruction

    def answer(self) -> tuple[str, list[str]]:
        return self.output, []


class LlamaQuestionsRow(OpenAudioBenchRow):
    model_config = ConfigDict(str_strip_whitespace=True, coerce_numbers_to_str=True, extra="allow", populate_by_name=True)
    questions: str = Field(alias="Questions")
    answer_text: str = Field(alias="Answer")

    def question(self) -> str:
        return self.questions

    def answer(self) -> tuple[str, list[str]]:
        return self.answer_text, []


def _listed(value, *, separator: str | None = None) -> list[str]:
    """A list column: a real list (JSONL, Parquet), its printed form in a CSV cell ("['a', 'b']"), or, where
    the source writes it so, the items joined by `separator` ("a;b")."""
    if isinstance(value, list | tuple):
        items = list(value)
    elif str(value).strip().startswith("["):
        text = str(value).strip()
        try:
            items = json.loads(text)
        except RecursionError:
            raise ValueError("the list is nested too deeply") from None
        except ValueError:
            try:
                items = ast.literal_eval(text)
            except (ValueError, SyntaxError, RecursionError, MemoryError):
                raise ValueError(f"cannot read the list {text[:80]!r}") from None
        if not isinstance(items, list):
            raise ValueError(f"expected a list, got {text[:80]!r}")
    elif separator is not None:
        items = str(value).split(separator)
    else:
        items = [value]
    aliases: list[str] = []
    for item in items:
        text = _text(item)
        if text and text not in aliases:
            aliases.append(text)
    if not aliases:
        raise ValueError("the list is empty")
    return aliases


class _AliasesRow(OpenAudioBenchRow):
    question_text: str
    aliases: list[str]
    answer_first: str = Field("", alias="answer")

    @field_validator("aliases", mode="before")
    @classmethod
    def _parse_aliases(cls, value) -> list[str]:
        return _listed(value)

    def question(self) -> str:
        return self.question_text

    def answer(self) -> tuple[str, list[str]]:
        answer = self.answer_first or self.aliases[0]
        return answer, [a for a in self.aliases if a != answer]


class WebQuestionsRow(_AliasesRow):
    """WebQuestions' `answers`: a printed list, or the answers joined by ';' as some exports write them."""

    model_config = ConfigDict(str_strip_whitespace=True, coerce_numbers_to_str=True, extra="allow", populate_by_name=True)
    question_text: str = Field(alias="question")
    aliases: list[str] = Field(alias="answers")

    @field_validator("aliases", mode="before")
    @classmethod
    def _parse_aliases(cls, value) -> list[str]:
        return _listed(value, separator=";")


# TriviaQA marks its answer in these columns (the normalized value first); the aliases are other accepted forms.
TRIVIA_ANSWER_COLUMNS = ("answer_normalized_value", "answer_value", "answer")


class TriviaQaRow(_AliasesRow):
    model_config = ConfigDict(str_strip_whitespace=True, coerce_numbers_to_str=True, extra="allow", populate_by_name=True)
    question_text: str = Field(alias="question")
    aliases: list[str] = Field(alias="answer_normalized_aliases")

    def answer(self) -> tuple[str, list[str]]:
        marked = (_text(self._raw.get(column)) for column in TRIVIA_ANSWER_COLUMNS)
        answer = next((value for value in marked if value), "") or self.aliases[0]
        return answer, [a for a in self.aliases if a != answer]


@dataclass(frozen=True)
class SubsetSpec:
    task_type: str | None  # None: decided per row (BBH mixes binary, multiple-choice and short answers)
    row: type[SourceRow]
    size: int | None = None  # prompts in the source set, where seed 000 depends on it
    released: int | None = None  # prompts the Korean release keeps (seed 000 §4)


# Each OpenAudioBench CSV names its question and answer columns its own way. Every VoiceBench subset has
# `prompt`; whether it has a `reference` (or IFEval's instructions) follows from its task type.
OPENAUDIOBENCH_ROWS = {"alpacaeval_full": AlpacaEvalRow, "llama_questions": LlamaQuestionsRow,
                       "web_questions": WebQuestionsRow, "trivia_qa": TriviaQaRow}


def _row_model(subset: catalogue.Subset) -> type[SourceRow]:
    if subset.family == OPENAUDIOBENCH:
        return OPENAUDIOBENCH_ROWS[subset.name]
    if subset.task_type == TaskType.INSTRUCTION_FOLLOWING:
        return IfevalRow
    if subset.task_type in (TaskType.OPEN_ENDED, TaskType.SAFETY):
        return VoiceBenchRow
    return VoiceBenchReferenceRow


def _specs(family: str) -> dict[str, SubsetSpec]:
    return {s.name: SubsetSpec(s.task_type, _row_model(s), s.size, s.released) for s in catalogue.of_family(family)}


# The subsets each format imports: the catalogue's rows of that family.
VOICEBENCH_SUBSETS = _specs(VOICEBENCH)
OPENAUDIOBENCH_SUBSETS = _specs(OPENAUDIOBENCH)

_BINARY = {"true", "false", "yes", "no", "valid", "invalid"}
# VoiceBench names SD-QA's regional splits by region alone (its `sd-qa` config, split `usa`); Sori stores them
# as `sd-qa-<region>` so every region reads as SD-QA.
SD_QA_REGIONS = ("aus", "gbr", "ind_n", "ind_s", "irl", "kenya", "nga", "nzl", "phl", "usa", "zaf")


def canonical_subset(fmt: str, subset: str) -> str:
    """The subset name Sori stores: VoiceBench's SD-QA split names (usa, aus, ...) become sd-qa-usa, ...;
    every other name as given."""
    name = subset.strip()
    if fmt == VOICEBENCH and name.lower() in SD_QA_REGIONS:
        return f"sd-qa-{name.lower()}"
    return name


def subset_spec(fmt: str, subset: str) -> SubsetSpec:
    """The spec for a subset name, read by the catalogue's matcher: regional or per-domain splits ("sd-qa-usa",
    "mmsu_biology") use their family's spec, an old name the spec of the name it stands for."""
    table = VOICEBENCH_SUBSETS if fmt == VOICEBENCH else OPENAUDIOBENCH_SUBSETS
    found = catalogue.match(subset, family=str(fmt))
    if found is None:
        known = [name for s in sorted(catalogue.of_family(str(fmt)), key=lambda s: s.name) for name in (s.name, *s.aliases)]
        raise InvalidInput(gettext(
            "unknown %(fmt)s subset %(subset)r; known subsets: %(known)s"
        ) % {"fmt": fmt, "subset": subset, "known": ', '.join(known)}, field="subset")
    return table[found[0].name]


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


def parse_file(fmt: str, subset: str, path: Path, data: bytes | None = None) -> tuple[list[ParsedRow], list[FileProblem]]:
    """All rows and all problems (each naming file, line or row, and column). VoiceBench comes as JSONL or
    Parquet (its audio column is never read: the audio is re-synthesised later), OpenAudioBench as CSV."""
    spec = subset_spec(fmt, subset)
    name = path.name
    kind = ("parquet" if path.suffix.lower() == ".parquet" else "jsonl") if fmt == "voicebench" else "csv"
    parsed, problems = parse_table(
        data if data is not None else path, spec.row, name=name, format=kind, exclude_columns={"audio"},
        blank_is_missing=False,  # blanks reach the stored record; SourceRow reads them as absent
    )
    rows: list[ParsedRow] = []
    seen: dict[str, int] = {}
    for index, (line, row) in enumerate(parsed):
        answer, aliases = row.answer()
        if fmt == "voicebench":
            source_id = row.id or row.key or f"{subset}-{index:05d}"
        else:
            source_id = row.audio_filename
        if source_id in seen:
            problems.append(FileProblem(file=name, line=line, unit="row" if kind == "parquet" else "line",
                                        reason=f"id {source_id!r} repeats line {seen[source_id]}"))
            continue
        seen[source_id] = line
        rows.append(ParsedRow(
            line=line, source_id=source_id, task_type=spec.task_type or bbh_task_type(answer),
            transcription=row.question(), answer=answer, aliases=aliases,
            audio_filename=getattr(row, "audio_filename", ""), raw=row._raw,
        ))
    return rows, problems
