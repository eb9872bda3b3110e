"""The one tabular reader and the safe zip extraction: every format gives the same rows, every refusal
names file, line (or row) and field, and a refused zip writes nothing."""

import io
import json
import os
import stat
import zipfile
from typing import Literal

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pydantic import Field, field_validator

from apps.core.archives import extract_zip
from apps.core.errors import FileRefused
from apps.core.tabular import RowModel, parse_table, read_table


class Rating(RowModel):
    clip_id: str = Field(min_length=1)
    score: int = Field(ge=1, le=5)
    style: Literal["read", "spontaneous"] = "read"
    note: str = ""

    @field_validator("clip_id")
    @classmethod
    def _no_spaces(cls, value: str) -> str:
        if " " in value:
            raise ValueError("a clip id has no spaces")
        return value


GOOD = [{"clip_id": "c1", "score": 3}, {"clip_id": "c2", "score": 5, "style": "spontaneous", "note": "ok"}]


def _write(tmp_path, kind: str, records: list[dict]):
    path = tmp_path / f"ratings.{kind}"
    if kind == "csv":
        columns = ["clip_id", "score", "style", "note"]
        lines = [",".join(columns)] + [",".join(str(r.get(c, "")) for c in columns) for r in records]
        path.write_text("\n".join(lines) + "\n")
    elif kind == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    elif kind == "json":
        path.write_text("[\n" + ",\n".join(json.dumps(r) for r in records) + "\n]\n")
    else:  # from_pylist takes its columns from the first record; a missing value is a null
        columns = list(dict.fromkeys(k for r in records for k in r))
        pq.write_table(pa.Table.from_pylist([{c: r.get(c) for c in columns} for r in records]), path)
    return path


@pytest.mark.parametrize("kind", ["csv", "jsonl", "json", "parquet"])
def test_every_format_reads_the_same_rows(tmp_path, kind):
    rows = read_table(_write(tmp_path, kind, GOOD), Rating)
    assert [row.model_dump() for _, row in rows] == [
        {"clip_id": "c1", "score": 3, "style": "read", "note": ""},
        {"clip_id": "c2", "score": 5, "style": "spontaneous", "note": "ok"},
    ]
    first_line = {"csv": 2, "jsonl": 1, "json": 2, "parquet": 1}[kind]
    assert [line for line, _ in rows] == [first_line, first_line + 1]


@pytest.mark.parametrize("kind, unit, first", [("csv", "line", 2), ("jsonl", "line", 1), ("json", "line", 2), ("parquet", "row", 1)])
def test_every_bad_row_is_named_by_file_line_and_field(tmp_path, kind, unit, first):
    records = [{"clip_id": "c1", "score": 9}, {"clip_id": "c2", "score": 2}, {"clip_id": "c 3", "score": 1, "style": "sung"}]
    with pytest.raises(FileRefused) as refused:
        read_table(_write(tmp_path, kind, records), Rating)
    name = f"ratings.{kind}"
    assert [str(p) for p in refused.value.problems] == [
        f"{name} {unit} {first}: score: Input should be less than or equal to 5",
        f"{name} {unit} {first + 2}: clip_id: a clip id has no spaces",
        f"{name} {unit} {first + 2}: style: Input should be 'read' or 'spontaneous'",
    ]


def test_a_missing_value_a_repeat_and_a_missing_column_are_named(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("clip_id,score\nc1,4\n,2\nc1,3\n")
    _, problems = parse_table(path, Rating, unique="clip_id")
    assert [str(p) for p in problems] == ["r.csv line 3: clip_id: missing or empty", "r.csv line 4: clip_id: 'c1' repeats line 2"]
    path.write_text("clip_id,stars\nc1,4\n")
    with pytest.raises(FileRefused, match=r"^r.csv line 1: missing column\(s\) score$"):
        read_table(path, Rating)


def test_broken_json_is_named_by_its_line(tmp_path):
    (tmp_path / "a.jsonl").write_text('{"clip_id": "c1", "score": 1}\n{"clip_id": \n[1]\n')
    _, problems = parse_table(tmp_path / "a.jsonl", Rating)
    assert [str(p) for p in problems] == [
        "a.jsonl line 2: not valid JSON (Expecting value)", "a.jsonl line 3: expected a JSON object",
    ]
    (tmp_path / "b.json").write_text('[\n  {"clip_id": "c1", "score": 1},\n  {"clip_id": "c2" "score": 1}\n]')
    with pytest.raises(FileRefused, match=r"^b.json line 3: not valid JSON \(Expecting ',' delimiter\)$"):
        read_table(tmp_path / "b.json", Rating)


def test_unreadable_files_are_refused_by_name(tmp_path):
    with pytest.raises(FileRefused, match="^x.xlsx: expected a .csv, .json, .jsonl, .ndjson, .parquet file$"):
        read_table(b"...", Rating, name="x.xlsx")
    with pytest.raises(FileRefused, match=r"^x.csv: not UTF-8 text \(byte 0\)$"):
        read_table(b"\xff\xfeclip_id", Rating, name="x.csv")
    with pytest.raises(FileRefused, match="^x.parquet: not a readable Parquet file"):
        read_table(b"not parquet", Rating, name="x.parquet")
    with pytest.raises(FileRefused, match="^x.csv: the file has no rows$"):
        read_table(b"clip_id,score\n", Rating, name="x.csv")


def test_many_bad_rows_are_listed_up_to_a_limit_and_counted(tmp_path):
    body = "clip_id,score\n" + "".join(f"c{i},0\n" for i in range(70))
    with pytest.raises(FileRefused) as refused:
        read_table(body.encode(), Rating, name="big.csv")
    assert len(refused.value.problems) == 50 and refused.value.more == 20
    assert str(refused.value).endswith("; and 20 more problems")


def test_excluded_columns_are_not_read(tmp_path):
    path = tmp_path / "p.parquet"
    pq.write_table(pa.Table.from_pylist([{"clip_id": "c1", "score": 2, "note": "x" * 100}]), path)
    [(_, row)] = read_table(path, Rating, exclude_columns={"note"})
    assert row.note == ""


# --- zip ------------------------------------------------------------------------------------------------
def _zip(members: dict[str, bytes], *, link: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        if link:
            info = zipfile.ZipInfo(link)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, "/etc/passwd")
    return buffer.getvalue()


def test_a_zip_unpacks_its_files_inside_the_folder(tmp_path):
    data = _zip({"bundle/manifest.csv": b"a", "bundle/audio/c1.wav": b"b", "__MACOSX/._c1.wav": b"junk"})
    written = extract_zip(io.BytesIO(data), tmp_path / "out", name="bundle.zip")
    assert sorted(p.relative_to(tmp_path / "out").as_posix() for p in written) == ["bundle/audio/c1.wav", "bundle/manifest.csv"]


@pytest.mark.parametrize("members, link, reason", [
    ({"../evil.txt": b"x"}, None, "../evil.txt would unpack outside the archive's folder"),
    ({"/etc/evil": b"x"}, None, "/etc/evil would unpack outside the archive's folder"),
    ({"ok.txt": b"x"}, "link", "link is a symbolic link"),
    ({f"f{i}": b"x" for i in range(4)}, None, "4 files, over the limit of 3"),
    ({"big": b"x" * 2000}, None, "2,000 bytes unpacked, over the limit of 1,000"),
])
def test_a_dangerous_zip_is_refused_and_nothing_is_written(tmp_path, members, link, reason):
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(FileRefused) as refused:
        extract_zip(io.BytesIO(_zip(members, link=link)), out, name="up.zip", max_files=3, max_bytes=1000)
    assert str(refused.value) == f"up.zip: {reason}"
    assert not any(out.rglob("*")) and not (tmp_path / "evil.txt").exists()


def test_a_member_whose_header_understates_its_size_is_stopped(tmp_path):
    data = bytearray(_zip({"small": b"y" * 5000}))
    # Lie in both headers that the member is 10 bytes: the refusal must come from the bytes, not the headers.
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = data.find(signature)
        data[at + offset:at + offset + 4] = (10).to_bytes(4, "little")
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(FileRefused, match="^up.zip: "):
        extract_zip(io.BytesIO(bytes(data)), out, name="up.zip", max_bytes=1000)
    assert not any(out.rglob("*"))


def test_not_a_zip_is_refused():
    with pytest.raises(FileRefused, match="^x.zip: not a zip archive$"):
        extract_zip(io.BytesIO(b"plain text"), os.devnull, name="x.zip")
