"""One reader for the tabular files people import (CSV, JSONL, a JSON array, Parquet); the safe zip
extraction is apps.core.archives. An importer declares what a row is as a pydantic model (subclass
RowModel) and reads:

    rows = read_table(path, ManifestRow, unique="clip_id")      # [(line, ManifestRow), ...]

Every row is validated; every bad one is reported as "<file> line N: <field>: <reason>" (Parquet says "row
N", a JSON array gives the line its object starts on) and the file is refused as a whole with FileRefused,
so an importer that reads before it writes never stores part of a file. `parse_table` returns the rows and
the problems instead, for importers that add problems of their own (audio files, ids already stored)
before refusing with `refuse(problems)`.

Hostile input is refused here, once, for every importer: a value nested deeper than MAX_DEPTH levels (which
would otherwise end in a RecursionError), a NUL character in a value or a key (PostgreSQL cannot store it), a
text value over MAX_CELL_CHARS characters (the csv module's own limit, applied to every format so a CSV and
its JSONL twin agree), a JSON number over MAX_DIGITS digits, a whole number that no database integer holds,
and a number that is not finite (1e99999 reads as infinity; NaN and Infinity are not JSON; a Parquet float can
be either). Each is reported as "<file> line N: <field>: <reason>". A file is read no further than its first
MAX_PROBLEMS problems.

A Parquet file is compressed, so a few kilobytes can decode to gigabytes (a Parquet bomb). Before anything is
decoded its metadata is checked: at most MAX_PARQUET_ROWS rows, and the columns an importer may read (all but
`exclude_columns`) at most MAX_PARQUET_BYTES uncompressed, at most MAX_PARQUET_RATIO times the file's size
past RATIO_FLOOR (as a zip member's, apps.core.archives). Only the columns the row model reads are decoded,
texts as dictionaries (one long value named by every row stays one value), and what they decode to is counted
before any row becomes Python objects."""

import csv
import io
import json
import math
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TypeVar

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from django.utils.translation import gettext
from pydantic import AliasChoices, AliasPath, BaseModel, ConfigDict, ValidationError

from apps.core.archives import RATIO_FLOOR
from apps.core.errors import FileProblem, FileRefused

__all__ = ["RowModel", "FORMATS", "parse_table", "read_table", "refuse", "loads", "json_number", "json_constant", "hostile"]

Row = TypeVar("Row", bound=BaseModel)

FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".parquet": "parquet"}
LISTED_PROBLEMS = 50  # a refusal lists this many problems and counts the rest
MAX_PROBLEMS = 1_000  # reading stops here: the count of a hostile file's problems says nothing more
MAX_DEPTH = 32  # levels of nested lists and objects in one value; real records use three or four
MAX_CELL_CHARS = 131_072  # characters in one text value (the csv module's default field limit)
MAX_DIGITS = 40  # digits in a JSON number; a longer one is an attack, not a measurement
INTEGER_RANGE = (-(2**63), 2**63 - 1)  # what a PostgreSQL bigint holds
MAX_PARQUET_ROWS = 1_000_000  # a benchmark's items or a corpus's clips; 2,000,000 rows fit in 12 KB
MAX_PARQUET_BYTES = 256 << 20  # uncompressed, and decoded: twice the largest upload (settings.UPLOAD_LIMITS)
MAX_PARQUET_RATIO = 100  # uncompressed bytes per byte of file; real text compresses 3-10x (a zip's limit too)
PARQUET_BATCH_ROWS = 8_192  # rows turned into Python objects at a time


class RowModel(BaseModel):
    """A convenient base for row models: surrounding spaces stripped, numbers accepted as text (a JSON id of
    7 is the id "7"), unknown columns ignored (a Parquet file's are not even read; a model that keeps them,
    extra="allow", reads every column)."""

    model_config = ConfigDict(str_strip_whitespace=True, coerce_numbers_to_str=True, extra="ignore")


def refuse(problems: list[FileProblem], *, limit: int = LISTED_PROBLEMS) -> None:
    """Raise FileRefused for these problems (in file order), listing the first `limit`; no-op when none."""
    if problems:
        ordered = sorted(problems, key=lambda p: (p.file, p.line or 0))
        raise FileRefused(problems=ordered[:limit], more=max(0, len(ordered) - limit))


def read_table(source, model: type[Row], **options) -> list[tuple[int, Row]]:
    """parse_table, refusing the file when any row is bad."""
    rows, problems = parse_table(source, model, **options)
    refuse(problems)
    return rows


def parse_table(
    source: Path | str | bytes,
    model: type[Row],
    *,
    name: str | None = None,
    format: str | None = None,
    context: dict | None = None,
    unique: str | Iterable[str | tuple[str, ...]] = (),
    exclude_columns: Collection[str] = (),
    allow_empty: bool = False,
    blank_is_missing: bool = True,
) -> tuple[list[tuple[int, Row]], list[FileProblem]]:
    """Read `source` (a path, or the file's bytes with `name`) and validate every row with `model`
    (`context` reaches its validators). `unique` names fields whose values may not repeat (a tuple of
fields is one key: ("predictor", "clip_id")). The format comes
    from `format` or the file's suffix (.csv, .jsonl/.ndjson, .json, .parquet). Columns in
    `exclude_columns` are never read (a Parquet audio column can be most of the file). An empty value ("",
an empty cell, null) counts as absent, so a required field reports it as missing; with
blank_is_missing=False only null does (for files where an empty text is a real answer)."""
    if isinstance(source, bytes):
        name, data, path = name or "upload", source, None
    else:
        path = Path(source)
        name, data = name or path.name, None
    kind = format or FORMATS.get(PurePosixPath(name).suffix.lower()) or (FORMATS.get(path.suffix.lower()) if path else None)
    if kind not in FORMATS.values():
        raise FileRefused(gettext("expected a %(formats)s file") % {"formats": ', '.join(sorted(FORMATS))}, file=name)
    if path is not None and not path.is_file():
        raise FileRefused(gettext("no such file"), file=name)
    unit = "row" if kind == "parquet" else "line"
    required = [_column(n, f) for n, f in model.model_fields.items() if f.is_required()]
    records = _records(kind, name, data if data is not None else path, required, set(exclude_columns), blank_is_missing,
                       _columns_read(model))

    rows: list[tuple[int, Row]] = []
    problems: list[FileProblem] = []
    keys = [(key,) if isinstance(key, str) else tuple(key) for key in ((unique,) if isinstance(unique, str) else unique)]
    seen: dict[tuple, int] = {}
    for line, record in records:
        if len(problems) >= MAX_PROBLEMS:
            problems.append(FileProblem(file=name, reason=f"read up to {unit} {line - 1:,} only: "
                                                          f"{len(problems):,} problems were found by then"))
            break
        if isinstance(record, FileProblem):
            problems.append(record)
            continue
        try:
            row = model.model_validate(record, context=context)
        except ValidationError as exc:
            problems += [_problem(name, line, unit, error) for error in exc.errors()]
            continue
        except RecursionError:  # a validator of the model parsed a nested value of its own
            problems.append(FileProblem(file=name, line=line, unit=unit, reason=f"nested more than {MAX_DEPTH} levels deep"))
            continue
        too_big = [field for field, value in row if _integer_out_of_range(value)]
        if too_big:
            problems += [FileProblem(file=name, line=line, unit=unit, field=field,
                                     reason="a whole number too large to store") for field in too_big]
            continue
        repeated = False
        for key in keys:
            value = tuple(getattr(row, field) for field in key)
            if any(part in (None, "") for part in value):
                continue
            if (key, value) in seen:
                shown = value[0] if len(value) == 1 else value
                problems.append(FileProblem(
                    file=name, line=line, unit=unit, field=", ".join(key),
                    reason=f"{shown!r} repeats {unit} {seen[key, value]}",
                ))
                repeated = True
            else:
                seen[key, value] = line
        if not repeated:
            rows.append((line, row))
    if not rows and not problems and not allow_empty:
        problems.append(FileProblem(file=name, reason="the file has no rows"))
    return rows, problems


def _integer_out_of_range(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and not INTEGER_RANGE[0] <= value <= INTEGER_RANGE[1]


def hostile(value) -> tuple[str | None, str] | None:
    """(field, reason) for the first thing in a parsed value that no importer should receive: nesting
    deeper than MAX_DEPTH, a NUL character in a key or a text, a text over MAX_CELL_CHARS characters, a
    whole number too large to store, a number that is not finite (or that json_number or json_constant
    kept as a _BadNumber); None when there is none. `field` is the top-level key it sits under
    (None when the value is not an object). Walked without recursion, so depth itself cannot crash it."""
    if type(value) is dict and _clean_flat_texts(value):
        return None  # a CSV row: nothing to walk
    stack = [(value, 0, None)]
    while stack:
        item, depth, field = stack.pop()
        if depth > MAX_DEPTH:
            return field, f"nested more than {MAX_DEPTH} levels deep"
        if isinstance(item, str):
            if "\x00" in item:
                return field, "contains a NUL character"
            if len(item) > MAX_CELL_CHARS:
                return field, f"{len(item):,} characters, over the limit of {MAX_CELL_CHARS:,}"
        elif isinstance(item, dict):
            for key, child in item.items():
                where = field if depth else _shown(key)
                if isinstance(key, str) and "\x00" in key:
                    return where, "a key contains a NUL character"
                stack.append((child, depth + 1, where))
        elif isinstance(item, list | tuple):
            stack.extend((child, depth + 1, field) for child in item)
        elif isinstance(item, _BadNumber):
            return field, item.reason
        elif type(item) is float and not math.isfinite(item):  # a Parquet float: JSON has no inf or nan
            return field, f"{item} is not a finite number"
        elif _integer_out_of_range(item):
            return field, "a whole number too large to store"
    return None


def _clean_flat_texts(record: dict) -> bool:
    """Whether every key and value is a text without NUL, none over MAX_CELL_CHARS (as every CSV row is):
    one pass of checks that run in C instead of hostile's walk, which stacks every value first."""
    texts = [*record, *record.values()]
    return (all(type(t) is str for t in texts) and "\x00" not in "".join(texts)
            and max(map(len, texts), default=0) <= MAX_CELL_CHARS)


def _shown(key) -> str:
    """A key as a problem names it (a NUL shown as \\0, a long key cut)."""
    text = str(key).replace("\x00", "\\0")
    return text if len(text) <= 80 else text[:77] + "..."


def json_number(text: str):
    """A JSON number (parse_int and parse_float). One that no importer may receive is kept unconverted as a
    _BadNumber, which `hostile` refuses naming its field: past MAX_DIGITS digits (a 4,301-digit whole number
    is a ValueError of its own, and converting long ones is slow), or past what a float holds (1e99999
    would read as infinity, which no JSON column can store)."""
    digits = sum(c.isdigit() for c in text)
    if digits > MAX_DIGITS:
        return _BadNumber(f"a number of {digits:,} digits (at most {MAX_DIGITS})")
    if text.lstrip("-").isdigit():
        return int(text)
    value = float(text)
    return value if math.isfinite(value) else _BadNumber(f"{text} is too large a number to store (it reads as infinity)")


def json_constant(text: str):
    """parse_constant: Python's json reads NaN, Infinity and -Infinity, which JSON does not have."""
    return _BadNumber(f"{text} is not a number JSON allows")


@dataclass(frozen=True)
class _BadNumber:
    reason: str


def loads(text: str, *, name: str, line: int = 1, check: bool = True):
    """json.loads for an imported file's text (`line`: the line it starts on), refused with FileRefused
    naming file, line and field when it is not JSON, is nested too deeply to read or (unless check=False,
    for a caller that runs `hostile` itself) holds anything `hostile` refuses."""
    try:
        value = json.loads(text, parse_int=json_number, parse_float=json_number, parse_constant=json_constant)
    except RecursionError:
        raise FileRefused(gettext("nested more than %(max_depth)s levels deep") % {"max_depth": MAX_DEPTH}, file=name, line=line) from None
    except ValueError as exc:
        raise FileRefused(gettext("not valid JSON (%(exc)s)") % {"exc": getattr(exc, 'msg', exc)}, file=name,
                          line=line - 1 + getattr(exc, "lineno", 1)) from None
    if check and (found := hostile(value)):
        raise FileRefused(found[1], file=name, line=line, field=found[0])
    return value


def _column(field_name: str, info) -> str:
    return info.validation_alias if isinstance(info.validation_alias, str) else info.alias or field_name


def _columns_read(model: type[BaseModel]) -> set[str] | None:
    """The columns a row model reads (its fields by name and alias), or None for all of them: a model that
    keeps unknown columns (extra="allow") reads every one."""
    if model.model_config.get("extra") == "allow":
        return None
    names = set()
    for field_name, info in model.model_fields.items():
        names |= {field_name, info.alias} | _alias_names(info.validation_alias)
    return names - {None}


def _alias_names(alias) -> set[str]:
    if isinstance(alias, str):
        return {alias}
    if isinstance(alias, AliasPath):
        return {str(alias.path[0])}
    if isinstance(alias, AliasChoices):
        return set().union(*(_alias_names(choice) for choice in alias.choices))
    return set()


def _problem(name: str, line: int, unit: str, error: dict) -> FileProblem:
    field = ".".join(str(part) for part in error["loc"]) or None
    if error["type"] == "missing":
        reason = "missing or empty"
    else:
        reason = error["msg"].removeprefix("Value error, ").removeprefix("Assertion failed, ")
    return FileProblem(file=name, line=line, unit=unit, field=field, reason=reason)


def _records(
    kind: str, name: str, source: bytes | Path, required: list[str], excluded: set[str], blank_is_missing: bool,
    wanted: set[str] | None,
) -> Iterator[tuple[int, dict | FileProblem]]:
    """(line, record or the problem reading it) for each row, without its absent values. CSV and JSON
    problems that make the rest unreadable raise FileRefused at once."""
    unit = "row" if kind == "parquet" else "line"
    for line, record in _raw_records(kind, name, source, required, excluded, wanted):
        if isinstance(record, dict) and (found := hostile(record)):
            field, reason = found
            yield line, FileProblem(file=name, line=line, unit=unit, field=field, reason=reason)
            continue
        if isinstance(record, dict):
            record = {
                k: v for k, v in record.items()
                if v is not None and not (blank_is_missing and isinstance(v, str) and not v.strip())
            }
        yield line, record


def _raw_records(kind: str, name: str, source: bytes | Path, required: list[str], excluded: set[str],
                 wanted: set[str] | None):
    if kind == "parquet":
        yield from _parquet(name, source, required, excluded, wanted)
        return
    raw = source if isinstance(source, bytes) else source.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileRefused(gettext("not UTF-8 text (byte %(start)s)") % {"start": exc.start}, file=name) from None
    if kind == "csv":
        yield from _csv(name, text, required, excluded)
    elif kind == "jsonl":
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                yield number, _object(name, number, line, excluded)
    else:
        yield from _json_array(name, text, excluded)


# The csv module stops at 131,072 characters a cell with an error that names no column; read up to this and
# let `hostile` name the column of a cell over MAX_CELL_CHARS. (Process-wide, and only ever raised.)
CSV_READ_LIMIT = 16 * MAX_CELL_CHARS
if csv.field_size_limit() < CSV_READ_LIMIT:
    csv.field_size_limit(CSV_READ_LIMIT)


def _csv(name: str, text: str, required: list[str], excluded: set[str]):
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        header = reader.fieldnames or []
    except csv.Error as exc:
        raise FileRefused(gettext("not a readable CSV (%(exc)s)") % {"exc": exc}, file=name, line=1) from None
    if not header:
        raise FileRefused(gettext("the CSV has no header row"), file=name)
    if found := hostile(header):
        raise FileRefused(gettext("header: %(found)s") % {"found": found[1]}, file=name, line=1)
    missing = [column for column in required if column not in header]
    if missing:
        raise FileRefused(gettext("missing column(s) %(missing)s") % {"missing": ', '.join(missing)}, file=name, line=1)
    start = 2
    while True:
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise FileRefused(gettext("not a readable CSV (%(exc)s)") % {"exc": exc}, file=name, line=reader.line_num) from None
        number, start = start, reader.line_num + 1  # the line a row starts on (a quoted cell may span lines)
        if None in record:
            yield number, FileProblem(file=name, line=number, reason="more cells than header columns")
            continue
        yield number, _present(record, excluded)


def _object(name: str, number: int, text: str, excluded: set[str]) -> dict | FileProblem:
    try:
        value = loads(text, name=name, line=number, check=False)  # _records checks each record
    except FileRefused as refused:
        return refused.problems[0]
    if not isinstance(value, dict):
        return FileProblem(file=name, line=number, reason="expected a JSON object")
    return _present(value, excluded)


def _present(record: dict, excluded: set[str]) -> dict:
    return {k: v for k, v in record.items() if k not in excluded}


def _json_array(name: str, text: str, excluded: set[str]):
    """Each element of a top-level JSON array with the line its value starts on (json.loads keeps no
    positions, so the array is walked with raw_decode)."""
    decoder = json.JSONDecoder(parse_int=json_number, parse_float=json_number, parse_constant=json_constant)
    position = _skip(text, 0)
    if position >= len(text) or text[position] != "[":
        raise FileRefused(gettext("expected a JSON array of objects"), file=name, line=_line(text, position))
    position = _skip(text, position + 1)
    if position < len(text) and text[position] == "]":
        return
    while True:
        line = _line(text, position)
        try:
            value, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            raise FileRefused(gettext("not valid JSON (%(msg)s)") % {"msg": exc.msg}, file=name, line=exc.lineno) from None
        except RecursionError:
            raise FileRefused(gettext("nested more than %(max_depth)s levels deep") % {"max_depth": MAX_DEPTH}, file=name, line=line) from None
        yield line, _present(value, excluded) if isinstance(value, dict) else FileProblem(
            file=name, line=line, reason="expected a JSON object"
        )
        position = _skip(text, position)
        if position < len(text) and text[position] == ",":
            position = _skip(text, position + 1)
        elif position < len(text) and text[position] == "]":
            if text[_skip(text, position + 1):].strip():
                raise FileRefused(gettext("text after the end of the array"), file=name, line=_line(text, position))
            return
        else:
            raise FileRefused(gettext("expected ',' or ']' between array elements"), file=name, line=_line(text, position))


def _skip(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


def _line(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def _parquet(name: str, source: bytes | Path, required: list[str], excluded: set[str], wanted: set[str] | None):
    try:
        file = io.BytesIO(source) if isinstance(source, bytes) else source
        parquet = pq.ParquetFile(file)
        names = parquet.schema_arrow.names
        missing = [column for column in required if column not in names]
        if missing:
            raise FileRefused(gettext("missing column(s) %(missing)s") % {"missing": ', '.join(missing)}, file=name)
        size = len(source) if isinstance(source, bytes) else source.stat().st_size
        _check_parquet_size(name, parquet.metadata, size, [c for c in names if c not in excluded])
        read = [c for c in names if c not in excluded and (wanted is None or c in wanted)]
        # Texts are read as dictionaries, so a value the file stores once is held once until it is counted.
        texts = [column.path for column in parquet.schema
                 if column.physical_type == "BYTE_ARRAY" and any(_under(column.path, c) for c in read)]
        if isinstance(file, io.BytesIO):
            file.seek(0)
        parquet = pq.ParquetFile(file, read_dictionary=texts)
        number, decoded = 0, 0
        for batch in parquet.iter_batches(batch_size=PARQUET_BATCH_ROWS, columns=read):
            decoded += sum(_decoded_bytes(column) for column in batch.columns)
            if decoded > MAX_PARQUET_BYTES:
                raise FileRefused(gettext(
                    "the columns read decode to more than %(max_parquet_bytes)s bytes, over the limit of "
                    "%(max_parquet_bytes)s"
                ) % {"max_parquet_bytes": f"{MAX_PARQUET_BYTES:,}"}, file=name)
            for record in batch.to_pylist():
                number += 1
                yield number, record
    except (pa.ArrowException, OSError) as exc:
        raise FileRefused(gettext("not a readable Parquet file (%(exc)s)") % {"exc": exc}, file=name) from None


def _check_parquet_size(name: str, metadata: pq.FileMetaData, size: int, columns: list[str]) -> None:
    """Refuse a Parquet bomb from the file's metadata, before any page is decompressed: too many rows, or
    `columns` (those an importer may read) uncompressing past MAX_PARQUET_BYTES or past MAX_PARQUET_RATIO
    times the file's size, which no metadata can understate. Every row group's column chunks are counted."""
    if metadata.num_rows > MAX_PARQUET_ROWS:
        raise FileRefused(gettext("%(num_rows)s rows, over the limit of %(max_parquet_rows)s") % {
            "num_rows": f"{metadata.num_rows:,}",
            "max_parquet_rows": f"{MAX_PARQUET_ROWS:,}",
        }, file=name)
    unpacked = dict.fromkeys(columns, 0)
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        for index in range(row_group.num_columns):
            chunk = row_group.column(index)
            for column in columns:
                if _under(chunk.path_in_schema, column):
                    unpacked[column] += max(0, chunk.total_uncompressed_size)
    total = sum(unpacked.values())
    biggest = max(unpacked, key=unpacked.get, default="")
    holds = f" (column {biggest}: {unpacked.get(biggest, 0):,})"
    if total > MAX_PARQUET_BYTES:
        raise FileRefused(gettext(
            "uncompresses to %(total)s bytes%(holds)s, over the limit of %(max_parquet_bytes)s"
        ) % {
            "total": f"{total:,}",
            "holds": holds,
            "max_parquet_bytes": f"{MAX_PARQUET_BYTES:,}",
        }, file=name)
    if total > RATIO_FLOOR and total > MAX_PARQUET_RATIO * size:
        raise FileRefused(gettext(
            "uncompresses to %(total)s bytes from %(size)s%(holds)s, over the limit of %(max_parquet_ratio)sx"
        ) % {
            "total": f"{total:,}",
            "size": f"{size:,}",
            "holds": holds,
            "max_parquet_ratio": MAX_PARQUET_RATIO,
        }, file=name)


def _under(path: str, column: str) -> bool:
    """Whether a Parquet column path ("aliases.list.element") lies in the top-level column."""
    return path == column or path.startswith(column + ".")


def _decoded_bytes(array: pa.Array) -> int:
    """What a column of a batch holds once decoded: each text's bytes (a dictionary's values counted as often
    as rows name them), and the buffers of everything else."""
    kind = array.type
    if pa.types.is_dictionary(kind) and _is_text(kind.value_type):
        return pc.sum(pc.binary_length(array.dictionary).take(array.indices)).as_py() or 0
    if pa.types.is_dictionary(kind):
        return _decoded_bytes(array.dictionary.take(array.indices))
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind) or pa.types.is_map(kind):
        return _decoded_bytes(array.flatten())
    if pa.types.is_struct(kind):
        return sum(_decoded_bytes(field) for field in array.flatten())
    return array.nbytes


def _is_text(kind: pa.DataType) -> bool:
    return pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_binary(kind) or pa.types.is_large_binary(kind)
