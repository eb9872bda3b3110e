"""What the one tabular reader refuses for every importer: a Parquet bomb (judged from the file's metadata
before anything is decoded, or from what its dictionaries decode to before any row becomes Python), a number
JSON cannot hold, and a file past its first MAX_PROBLEMS problems, which is read no further."""

import hashlib
import io
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pydantic import AliasChoices, ConfigDict, Field

from apps.core import tabular
from apps.core.errors import FileRefused
from apps.core.tabular import RowModel, loads, parse_table, read_table

MiB = 1 << 20


class Clip(RowModel):
    clip_id: str
    score: float = 0.0
    speaker: str = Field("", validation_alias=AliasChoices("speaker", "spk"))


class KeepsAll(Clip):
    model_config = ConfigDict(extra="allow")


def _parquet(columns: dict, **options) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(pa.table(columns), buffer, **options)
    return buffer.getvalue()


def _repeated(value: str, rows: int) -> pa.DictionaryArray:
    """One value named by every row, stored once (as every Parquet writer stores a repeated text)."""
    return pa.DictionaryArray.from_arrays(pa.array([0] * rows, pa.int32()), pa.array([value]))


# --- the metadata, before anything is decoded ----------------------------------------------------------------
def test_a_file_over_the_row_limit_is_refused_from_its_metadata(monkeypatch):
    monkeypatch.setattr(tabular, "MAX_PARQUET_ROWS", 1_000)
    body = _parquet({"clip_id": _repeated("c", 1_001)})
    with pytest.raises(FileRefused) as refused:
        read_table(body, Clip, name="rows.parquet")
    assert str(refused.value) == "rows.parquet: 1,001 rows, over the limit of 1,000"

    assert len(read_table(_parquet({"clip_id": [f"c{n}" for n in range(1_000)]}), Clip, name="ok.parquet")) == 1_000


def test_a_column_compressed_past_the_ratio_is_refused_even_if_no_model_reads_it():
    body = _parquet({"clip_id": ["a", "b"], "blob": _repeated("z" * (3 * MiB), 2)}, compression="zstd")
    with pytest.raises(FileRefused) as refused:
        read_table(body, Clip, name="bomb.parquet")
    message = str(refused.value)
    assert message.startswith("bomb.parquet: uncompresses to 3,14") and f"from {len(body):,}" in message
    assert "(column blob: 3,14" in message and message.endswith("over the limit of 100x")


def test_an_excluded_column_is_neither_counted_nor_read():
    body = _parquet({"clip_id": ["a", "b"], "audio": _repeated("z" * (3 * MiB), 2)}, compression="zstd")
    assert [row.clip_id for _, row in read_table(body, Clip, name="a.parquet", exclude_columns={"audio"})] == ["a", "b"]


def test_a_file_uncompressing_past_the_byte_limit_is_refused_whatever_its_ratio(monkeypatch):
    monkeypatch.setattr(tabular, "MAX_PARQUET_BYTES", 64 * 1024)
    text = [hashlib.sha256(str(n).encode()).hexdigest() * 8 for n in range(200)]  # 100 KB, all different
    body = _parquet({"clip_id": [f"c{n}" for n in range(200)], "note": text}, compression="none")
    with pytest.raises(FileRefused, match=r"^big.parquet: uncompresses to [\d,]+ bytes \(column note: [\d,]+\), "
                                          r"over the limit of 65,536$"):
        read_table(body, Clip, name="big.parquet")


# --- what is decoded ---------------------------------------------------------------------------------------
def test_only_the_columns_a_model_reads_are_decoded(monkeypatch):
    decoded = []
    real = tabular._decoded_bytes
    monkeypatch.setattr(tabular, "_decoded_bytes", lambda array: decoded.append(array.type) or real(array))
    body = _parquet({"clip_id": ["a"], "spk": ["f1"], "note": ["\x00 a NUL nobody reads"], "n": [1.5]})

    [(_, row)] = read_table(body, Clip, name="few.parquet")

    assert (row.clip_id, row.speaker) == ("a", "f1")
    assert len(decoded) == 2  # clip_id and spk; note (which would be refused) and n are never decoded
    with pytest.raises(FileRefused, match="^few.parquet row 1: note: contains a NUL character$"):
        read_table(body, KeepsAll, name="few.parquet")  # a model that keeps every column reads every column


def test_a_long_value_named_by_every_row_is_counted_before_it_is_decoded(monkeypatch):
    monkeypatch.setattr(tabular, "MAX_PARQUET_BYTES", 2 * MiB)
    monkeypatch.setattr(tabular, "PARQUET_BATCH_ROWS", 100)
    body = _parquet({"clip_id": [f"c{n}" for n in range(1_000)], "speaker": _repeated("s" * 10_000, 1_000)})
    assert len(body) < 50_000

    with pytest.raises(FileRefused) as refused:
        read_table(body, Clip, name="wide.parquet")

    assert str(refused.value) == ("wide.parquet: the columns read decode to more than 2,097,152 bytes, "
                                  "over the limit of 2,097,152")


def test_texts_in_lists_are_counted_as_decoded_too(monkeypatch):
    class Tagged(RowModel):
        clip_id: str
        tags: list[str]

    monkeypatch.setattr(tabular, "MAX_PARQUET_BYTES", MiB)
    tags = pa.ListArray.from_arrays(pa.array([0, 50, 100], pa.int32()), _repeated("t" * 20_000, 100))
    body = _parquet({"clip_id": ["a", "b"], "tags": tags})
    with pytest.raises(FileRefused, match="decode to more than 1,048,576 bytes"):
        read_table(body, Tagged, name="tags.parquet")

    monkeypatch.setattr(tabular, "MAX_PARQUET_BYTES", 4 * MiB)
    rows = read_table(body, Tagged, name="tags.parquet")
    assert [len(row.tags) for _, row in rows] == [50, 50]


def test_a_parquet_file_within_every_limit_reads_as_before():
    body = _parquet({"clip_id": ["c1", "c2", "c3"], "score": [1.0, 2.5, None], "spk": _repeated("화자", 3)})
    rows = read_table(body, Clip, name="ok.parquet")
    assert [(line, row.clip_id, row.score, row.speaker) for line, row in rows] == [
        (1, "c1", 1.0, "화자"), (2, "c2", 2.5, "화자"), (3, "c3", 0.0, "화자")]


# --- numbers JSON cannot hold ------------------------------------------------------------------------------
@pytest.mark.parametrize(("raw", "why"), [
    ("1e99999", "1e99999 is too large a number to store (it reads as infinity)"),
    ("-9.9E+999", "-9.9E+999 is too large a number to store (it reads as infinity)"),
    ("NaN", "NaN is not a number JSON allows"),
    ("Infinity", "Infinity is not a number JSON allows"),
    ("-Infinity", "-Infinity is not a number JSON allows"),
])
@pytest.mark.parametrize("kind", ["jsonl", "json"])
def test_a_number_json_cannot_hold_is_refused_by_line_and_field_nested_or_not(raw, why, kind):
    rows = [{"clip_id": "c1", "score": 1}, {"clip_id": "c2", "score": "HOLE"}, {"clip_id": "c3", "meta": {"x": ["HOLE"]}}]
    if kind == "jsonl":
        text = "\n".join(json.dumps(r) for r in rows)
    else:
        text = "[\n" + ",\n".join(json.dumps(r) for r in rows) + "\n]"
    body = text.replace('"HOLE"', raw).encode()
    first = 1 if kind == "jsonl" else 2

    _, problems = parse_table(body, Clip, name=f"n.{kind}")

    assert [str(p) for p in problems] == [f"n.{kind} line {first + 1}: score: {why}",
                                          f"n.{kind} line {first + 2}: meta: {why}"]


def test_loads_refuses_them_by_field_too():
    with pytest.raises(FileRefused, match=r"^x.json line 4: weights: NaN is not a number JSON allows$"):
        loads('{"weights": [1, NaN]}', name="x.json", line=4)
    assert loads('{"weights": [1, 1e308, -0.0]}', name="x.json") == {"weights": [1, 1e308, -0.0]}


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_a_parquet_float_that_is_not_finite_is_refused(value):
    body = _parquet({"clip_id": ["c1", "c2"], "score": [0.5, value]})
    with pytest.raises(FileRefused) as refused:
        read_table(body, Clip, name="f.parquet")
    assert str(refused.value) == f"f.parquet row 2: score: {value} is not a finite number"


def test_a_csv_cell_that_reads_like_infinity_is_only_text():
    [(_, row)] = read_table(b"clip_id,speaker\n1e99999,NaN\n", Clip, name="t.csv")
    assert (row.clip_id, row.speaker) == ("1e99999", "NaN")


# --- a file is read no further than its first MAX_PROBLEMS problems ------------------------------------------
def test_reading_stops_after_the_first_problems_and_says_where(monkeypatch):
    monkeypatch.setattr(tabular, "MAX_PROBLEMS", 120)
    body = "clip_id,score\n" + "".join(f"c{n},not-a-number\n" for n in range(5_000))
    seen = []
    real = Clip.model_validate
    monkeypatch.setattr(Clip, "model_validate", lambda *a, **k: seen.append(1) or real(*a, **k))

    with pytest.raises(FileRefused) as refused:
        read_table(body.encode(), Clip, name="bad.csv")

    assert len(seen) == 120
    lines = refused.value.lines()
    assert lines[0] == "bad.csv: read up to line 121 only: 120 problems were found by then"
    assert lines[1].startswith("bad.csv line 2: score: ") and lines[-1] == "and 71 more"
    assert refused.value.count == 121


def test_a_file_with_fewer_problems_has_all_of_them_counted():
    body = "clip_id,score\n" + "".join(f"c{n},x\n" for n in range(300))
    with pytest.raises(FileRefused) as refused:
        read_table(body.encode(), Clip, name="some.csv")
    assert refused.value.count == 300 and refused.value.lines()[-1] == "and 250 more"
