"""A model's responses imported from a file (CSV, JSONL or Parquet with `id` and `response`), checked against the
run's items first, all or nothing."""

import json
from pathlib import Path

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext
from pydantic import field_validator

from apps.core.errors import FileProblem, InvalidInput
from apps.core.tabular import RowModel, parse_table, refuse
from apps.evaluation.models import (
    AnswerSource,
    EvalItem,
    EvaluationRun,
    ItemScore,
    RunStatus,
    SubsetScore,
)
from apps.evaluation.services import refuse_busy
from apps.evaluation.status import set_status


class ResponseRow(RowModel):
    id: str
    response: str

    @field_validator("id")
    @classmethod
    def _id_not_blank(cls, value: str) -> str:
        if not value:
            raise ValueError("an id is required")
        return value

    @field_validator("response", mode="before")
    @classmethod
    def _response_is_text(cls, value):
        # A model answers in text: a JSON or Parquet number is a broken export, not the answer "42". (A CSV
        # cell is always text, kept as written.)
        if isinstance(value, str):
            return value
        if isinstance(value, bool):
            raise ValueError(f"a response is text, not {json.dumps(value)}")
        if isinstance(value, int | float):
            raise ValueError(f"a response is text, not the number {value}")
        kind = {dict: "an object", list: "a list"}.get(type(value), f"a {type(value).__name__} value")
        raise ValueError(f"a response is text, not {kind}")


def import_responses(*, run: EvaluationRun, source: Path | str | bytes, name: str | None = None,
                     acting_user=None, answer_source: str = AnswerSource.IMPORTED) -> int:
    """Store a model's responses from a CSV, JSONL or Parquet file with `id` and `response` columns. The file
    is checked against the run's items first: an unknown id, a repeated id and every item left without a
    response are each named, and the whole file is refused (nothing written). An empty response is a real
    answer (the model said nothing) and is kept. Importing again replaces the responses and their scores.

    The run's answer source follows the file, not the model: imported responses (a person's file), or demo
    answers only when the demo seeding says so, so a demo model given real responses no longer reads as scripted."""
    if answer_source not in (AnswerSource.IMPORTED, AnswerSource.DEMO):
        raise InvalidInput(gettext("imported responses are imported or demo answers"), field="answer_source")
    run = _current_if_free(run)
    rows, problems = parse_table(source, ResponseRow, name=name, unique="id", blank_is_missing=False)
    file = name or (Path(source).name if not isinstance(source, bytes) else "upload")
    known = dict(EvalItem.objects.filter(run=run).values_list("item_id", "pk"))
    answered: dict[int, tuple[int, str]] = {}
    for line, row in rows:
        pk = known.get(row.id)
        if pk is None:
            unit = "row" if file.lower().endswith(".parquet") else "line"
            problems.append(FileProblem(file=file, line=line, unit=unit, field="id",
                                        reason=f"{row.id!r} is not an item of {run.benchmark_name}"))
            continue
        answered[pk] = (line, row.response)
    if not any(p.line is None for p in problems):  # the file was read: name every item it leaves unanswered
        missing = [item_id for item_id, pk in known.items() if pk not in answered]
        problems += [FileProblem(file=file, field="id", reason=f"no response for item {item_id!r}") for item_id in sorted(missing)]
    refuse(problems)
    now = timezone.now()
    with transaction.atomic():
        locked = EvaluationRun.objects.select_for_update().get(pk=run.pk)
        refuse_busy(locked)
        ItemScore.objects.filter(item__run=run).delete()
        SubsetScore.objects.filter(run=run).delete()
        items = list(EvalItem.objects.filter(run=run))
        for item in items:
            line, text = answered[item.pk]
            item.response, item.response_hash = text, ""
            item.response_meta = {"imported_from": file, "line": line}
            item.responded_at = now
        EvalItem.objects.bulk_update(items, ["response", "response_hash", "response_meta", "responded_at"], batch_size=2000)
        set_status(run.pk, RunStatus.READY, answer_source=answer_source, evaluated_at=None)
    return len(items)


def _current_if_free(run: EvaluationRun) -> EvaluationRun:
    run = EvaluationRun.objects.get(pk=run.pk)
    refuse_busy(run)
    return run
