"""A responses upload is an admin's file but still hostile input: a Parquet bomb is refused from the file's
metadata before anything is decoded (the worker's peak memory stays small), and a response keeps its type or
is refused naming file, row and field: a number, infinity or NaN is never stored as the text "42", "inf",
"nan"; a CSV cell is text as written."""

import io
import json
import re

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.evaluation.models import EvalItem

pytestmark = pytest.mark.django_db

MiB = 1 << 20


@pytest.fixture
def as_admin(api_client, admin):
    api_client.force_authenticate(admin)
    return api_client


def _post(client, run, name: str, body: bytes):
    return client.post(f"/api/evaluation/runs/{run.pk}/responses/", {"file": SimpleUploadedFile(name, body)},
                       format="multipart")


def _parquet(table: pa.Table, **options) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(table, buffer, **options)
    return buffer.getvalue()


def _status_kib(field: str) -> int:
    return int(re.search(rf"^{field}:\s+(\d+) kB", open("/proc/self/status").read(), re.M).group(1))


def _peak_growth_mib(call):
    """(call(), how far this process's resident memory rose above where it stood, at its peak). Linux's peak
    (VmHWM) is reset first through /proc/self/clear_refs, so an earlier test's peak cannot hide this one's."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pytest.skip("this kernel does not let a process reset its peak memory")
    before = _status_kib("VmRSS")
    result = call()
    return result, (_status_kib("VmHWM") - before) / 1024


def _items(run) -> list[str]:
    return sorted(run.items.values_list("item_id", flat=True))


def _nothing_stored(run) -> bool:
    return not EvalItem.objects.filter(run=run, response__isnull=False).exists()


# --- Parquet bombs ------------------------------------------------------------------------------------------
def test_an_unused_column_of_huge_repeated_values_is_refused_before_it_is_decoded(as_admin, english_run):
    ids = _items(english_run)
    # One 60 MB value repeated (as a writer's dictionary stores it, once): 600 MB decoded from a few KB.
    huge = pa.DictionaryArray.from_arrays(pa.array([0] * len(ids) * 2, pa.int32()), pa.array(["x" * (60 * MiB)]))
    body = _parquet(pa.table({"id": ids * 2, "response": ["fine"] * len(ids) * 2, "notes": huge}), compression="zstd")
    del huge
    assert len(body) < 20_000

    answer, grew = _peak_growth_mib(lambda: _post(as_admin, english_run, "bomb.parquet", body))

    assert grew < 100, f"the worker grew by {grew:.0f} MiB"
    assert answer.status_code == 400, answer.content[:500]
    detail = answer.json()["detail"]
    assert detail.startswith("bomb.parquet: ") and "notes" in detail and "over the limit of 100x" in detail
    assert _nothing_stored(english_run)


def test_two_million_dictionary_encoded_rows_are_refused_from_the_row_count(as_admin, english_run):
    rows = 2_000_000
    ids = pa.DictionaryArray.from_arrays(pa.array([0] * rows, pa.int32()), pa.array([_items(english_run)[0]]))
    body = _parquet(pa.table({"id": ids, "response": ids}))
    assert len(body) < 100_000

    answer, grew = _peak_growth_mib(lambda: _post(as_admin, english_run, "many.parquet", body))

    assert grew < 100, f"the worker grew by {grew:.0f} MiB"
    assert answer.status_code == 400
    assert answer.json()["detail"] == "many.parquet: 2,000,000 rows, over the limit of 1,000,000"
    assert _nothing_stored(english_run)


def test_a_column_the_import_does_not_read_is_never_decoded(english_run, response_file):
    """Within the limits an unknown column is ignored, as in a CSV, and not read at all: a broken value in
    it (a text over the cell limit) does not refuse the file."""
    from apps.evaluation.responses import import_responses

    ids = _items(english_run)
    body = _parquet(pa.table({"id": ids, "response": [f"answer {n}" for n in range(len(ids))],
                              "scratch": ["y" * 200_000] * len(ids)}))

    assert import_responses(run=english_run, source=body, name="extra.parquet") == len(ids)
    assert sorted(english_run.items.values_list("response", flat=True)) == [f"answer {n}" for n in range(len(ids))]


def test_a_response_that_decodes_past_the_limit_is_refused_without_being_decoded(as_admin, english_run, monkeypatch):
    """The dictionary expansion the metadata cannot show (one long value named by every row) is counted from
    the dictionary before any row becomes a Python text."""
    from apps.core import tabular

    monkeypatch.setattr(tabular, "MAX_PARQUET_BYTES", 4 * MiB)
    ids = _items(english_run)
    repeated = pa.DictionaryArray.from_arrays(pa.array([0] * len(ids), pa.int32()), pa.array(["z" * MiB]))
    body = _parquet(pa.table({"id": ids, "response": repeated}))

    answer = _post(as_admin, english_run, "wordy.parquet", body)

    assert answer.status_code == 400
    assert answer.json()["detail"] == (f"wordy.parquet: the columns read decode to more than {4 * MiB:,} bytes, "
                                       f"over the limit of {4 * MiB:,}")
    assert _nothing_stored(english_run)


# --- types and values ---------------------------------------------------------------------------------------
def _jsonl(rows) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()


@pytest.mark.parametrize(("raw", "why"), [
    ("42", "a response is text, not the number 42"),
    ("-3.5", "a response is text, not the number -3.5"),
    ("true", "a response is text, not true"),
    ('["B"]', "a response is text, not a list"),
    ('{"text": "B"}', "a response is text, not an object"),
    ("1e99999", "1e99999 is too large a number to store (it reads as infinity)"),
    ("-1E400", "-1E400 is too large a number to store (it reads as infinity)"),
    ("NaN", "NaN is not a number JSON allows"),
    ("Infinity", "Infinity is not a number JSON allows"),
])
def test_a_jsonl_response_that_is_not_text_is_refused_by_file_line_and_field(as_admin, english_run, raw, why):
    ids = _items(english_run)
    lines = [json.dumps({"id": i, "response": "Canberra입니다"}) for i in ids]
    lines[2] = f'{{"id": {json.dumps(ids[2])}, "response": {raw}}}'
    answer = _post(as_admin, english_run, "typed.jsonl", "\n".join(lines).encode())

    assert answer.status_code == 400, answer.content
    assert answer.json()["fields"]["response"] == [f"typed.jsonl line 3: response: {why}"]
    assert _nothing_stored(english_run)


@pytest.mark.parametrize(("value", "why"), [
    (42, "a response is text, not the number 42"),
    (7.25, "a response is text, not the number 7.25"),
    (float("inf"), "inf is not a finite number"),
    (float("-inf"), "-inf is not a finite number"),
    (float("nan"), "nan is not a finite number"),
])
def test_a_parquet_response_that_is_not_text_is_refused_by_file_row_and_field(as_admin, english_run, value, why):
    ids = _items(english_run)
    numbers = [value] * len(ids)
    body = _parquet(pa.table({"id": ids, "response": pa.array(numbers)}))

    answer = _post(as_admin, english_run, "numbers.parquet", body)

    assert answer.status_code == 400
    problems = answer.json()["fields"]["response"]
    assert problems == [f"numbers.parquet row {n}: response: {why}" for n in range(1, len(ids) + 1)]
    assert _nothing_stored(english_run)


def test_a_csv_cell_is_the_text_written_even_when_it_reads_like_a_number(as_admin, english_run):
    ids = _items(english_run)
    written = ["42", "1e99999", "NaN", "inf", "  -0.50 "]
    body = "id,response\n" + "".join(f"{i},{w}\n" for i, w in zip(ids, written, strict=True))

    answer = _post(as_admin, english_run, "as-written.csv", body.encode())

    assert answer.status_code == 200, answer.json()
    stored = dict(english_run.items.values_list("item_id", "response"))
    assert [stored[i] for i in ids] == ["42", "1e99999", "NaN", "inf", "-0.50"]


def test_text_responses_in_every_register_and_form_are_kept_as_written(as_admin, english_run):
    ids = _items(english_run)
    texts = ["정답은 B입니다.", "**답: 캔버라요**", "음... 여덟 개야", "", "The answer is (C) 42."]
    body = _jsonl([{"id": i, "response": t} for i, t in zip(ids, texts, strict=True)])

    answer = _post(as_admin, english_run, "korean.jsonl", body)

    assert answer.status_code == 200, answer.json()
    stored = dict(english_run.items.values_list("item_id", "response"))
    assert [stored[i] for i in ids] == texts


def test_a_number_as_an_id_is_still_read_as_its_text(english_run):
    """The id keeps the reader's convention (a JSON 7 is the id "7"); only the response must be text."""
    from apps.core.errors import FileRefused
    from apps.evaluation.responses import import_responses

    rows = [{"id": i, "response": "x"} for i in _items(english_run)] + [{"id": 7, "response": "x"}]
    with pytest.raises(FileRefused) as refused:
        import_responses(run=english_run, source=_jsonl(rows), name="ids.jsonl")

    assert refused.value.lines() == ["ids.jsonl line 6: id: '7' is not an item of voicebench"]
