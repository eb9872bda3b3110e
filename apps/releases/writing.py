"""Byte-reproducible writers: the same rows always give the same bytes.

- JSON and JSONL: NFC-normalised strings, sorted keys, compact separators, UTF-8, "\\n" line endings.
- Parquet: a table built from an explicit schema (no pandas metadata) whose only schema metadata is the
  `huggingface` key naming each column's `datasets` feature (so an `audio` struct<bytes, path> column loads
  as Audio), written with every option that shapes the bytes pinned. The footer names the pyarrow version,
  so the release manifest records it.
- Zip: apps.core.archives.zip_folder (entries sorted by name, each with a fixed date, fixed permissions and
  a fixed creator).
"""

import json
import unicodedata
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from apps.core.archives import files_under
from apps.core.hashing import sha256_of

# Column types a release may use, as (arrow type, datasets feature as Features.to_dict() writes it).
_VALUE_TYPES = {"string": pa.string(), "int64": pa.int64(), "float64": pa.float64(), "bool": pa.bool_()}
AUDIO_TYPE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])

PARQUET_OPTIONS = {
    "compression": "zstd",
    "compression_level": 3,
    "use_dictionary": False,
    "write_statistics": True,
    "row_group_size": 10_000,
    "data_page_version": "1.0",
    "version": "2.6",
    "store_schema": True,
    "write_page_index": False,
    "write_page_checksum": False,
}


def nfc(value):
    """Every string inside `value`, NFC-normalised (Korean text arrives both composed and decomposed)."""
    if isinstance(value, str):
        return unicodedata.normalize("NFC", value)
    if isinstance(value, dict):
        return {nfc(k): nfc(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [nfc(v) for v in value]
    return value


def dumps(value) -> str:
    return json.dumps(nfc(value), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def write_json(path: Path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes((json.dumps(nfc(value), ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode())


def write_jsonl(path: Path, rows) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        for row in rows:
            fh.write((dumps(row) + "\n").encode())


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(unicodedata.normalize("NFC", text).replace("\r\n", "\n").encode())


def feature(kind: str) -> dict:
    """The `datasets` feature for a column kind: string, int64, float64, bool, audio, list:string or json
    (a value of any shape, stored in Parquet as its JSON text; the JSONL row keeps the value itself)."""
    if kind == "audio":
        return {"_type": "Audio"}
    if kind == "json":
        return feature("string")
    if kind.startswith("list:"):
        return {"feature": feature(kind.removeprefix("list:")), "_type": "List"}
    if kind not in _VALUE_TYPES:
        raise ValueError(f"unknown column kind {kind!r}")
    return {"dtype": kind, "_type": "Value"}


def _arrow_type(kind: str):
    if kind == "audio":
        return AUDIO_TYPE
    if kind == "json":
        return pa.string()
    if kind.startswith("list:"):
        return pa.list_(_arrow_type(kind.removeprefix("list:")))
    return _VALUE_TYPES[kind]


def yaml_features(columns: dict[str, str]) -> list[dict]:
    """The dataset card's `dataset_info.features`, in the short form `datasets` writes."""
    out = []
    for name, kind in columns.items():
        if kind == "json":
            out.append({"name": name, "dtype": "string"})
        elif kind.startswith("list:"):
            out.append({"name": name, "list": kind.removeprefix("list:")})
        else:
            out.append({"name": name, "dtype": kind})
    return out


def schema(columns: dict[str, str]) -> pa.Schema:
    features = {name: feature(kind) for name, kind in columns.items()}
    metadata = {"huggingface": json.dumps({"info": {"features": features}}, sort_keys=True)}
    return pa.schema([pa.field(name, _arrow_type(kind)) for name, kind in columns.items()], metadata=metadata)


def parquet_row(row: dict, columns: dict[str, str]) -> dict:
    """A JSONL row as Parquet stores it: an audio path becomes the Audio struct (bytes stay in audio/)."""
    out = {}
    for name, kind in columns.items():
        value = nfc(row.get(name))
        if kind == "audio":
            value = {"bytes": None, "path": value} if value else None
        elif kind == "json":
            # IFEval's kwargs differ in shape from instruction to instruction: Parquet keeps their JSON text.
            value = dumps(value) if value is not None else None
        out[name] = value
    return out


def write_parquet(path: Path, rows: list[dict], columns: dict[str, str]) -> int:
    """Write the rows; returns the Arrow size of the table in bytes, which is what `datasets` counts as a
    split's `num_bytes`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist([parquet_row(r, columns) for r in rows], schema=schema(columns))
    pq.write_table(table, path, **PARQUET_OPTIONS)
    return table.nbytes


def write_checksums(folder: Path, name: str = "SHA256SUMS") -> dict[str, tuple[str, int]]:
    """Write `sha256sum -c` compatible SHA256SUMS over every other file; returns {path: (sha256, size)}."""
    sums = {}
    for path in files_under(folder):
        rel = path.relative_to(folder).as_posix()
        if rel != name:
            sums[rel] = (sha256_of(path), path.stat().st_size)
    write_text(folder / name, "".join(f"{digest}  {rel}\n" for rel, (digest, _size) in sums.items()))
    return sums


def verify_folder(folder: Path, name: str = "SHA256SUMS") -> list[str]:
    """Problems found checking `folder` against its SHA256SUMS (empty when every file matches): each names
    the file. Files not listed are problems too, so nothing can be slipped in."""
    folder = Path(folder)
    listing = folder / name
    if not listing.exists():
        return [f"{name} is missing"]
    problems, listed = [], set()
    for number, line in enumerate(listing.read_text(encoding="utf-8").splitlines(), start=1):
        digest, sep, rel = line.partition("  ")
        if not sep or len(digest) != 64:
            problems.append(f"{name} line {number}: not '<sha256>  <path>'")
            continue
        listed.add(rel)
        path = folder / rel
        if not path.resolve().is_relative_to(folder.resolve()):
            problems.append(f"{name} line {number}: {rel} is outside the release")
        elif not path.is_file():
            problems.append(f"{rel}: listed in {name} but missing")
        elif sha256_of(path) != digest:
            problems.append(f"{rel}: sha256 differs from {name} (the file was changed)")
    for path in files_under(folder):
        rel = path.relative_to(folder).as_posix()
        if rel != name and rel not in listed:
            problems.append(f"{rel}: not listed in {name}")
    return problems
