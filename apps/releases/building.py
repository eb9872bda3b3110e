"""Writing a release folder: the kind's rows become data/ (Parquet and JSONL), provenance.jsonl, release.json
and the card; SHA256SUMS lists every file; the folder is zipped. Everything here is deterministic: rows are
sorted by id, and no clock, random value or machine name reaches a file."""

import hashlib
from dataclasses import dataclass
from pathlib import Path

import pyarrow

from apps.releases import card
from apps.releases.kinds import Built, registry
from apps.releases.writing import (
    PARQUET_OPTIONS,
    dumps,
    write_checksums,
    write_json,
    write_jsonl,
    write_parquet,
    write_text,
)


@dataclass
class Written:
    built: Built
    manifest: dict
    sums: dict[str, tuple[str, int]]


def data_path(config: str, split: str, splits: list[str], ext: str) -> str:
    """data/<config>.<ext> for a config with one split, data/<config>/<split>.<ext> otherwise."""
    return f"data/{config}.{ext}" if len(splits) == 1 else f"data/{config}/{split}.{ext}"


def content_hash(row: dict, audio_sha256: str) -> str:
    """What a diff compares: the row as released and the audio's bytes."""
    return hashlib.sha256((dumps(row) + "\n" + audio_sha256).encode()).hexdigest()


def write_release(release, folder: Path, progress) -> Written:
    module = registry()[release.kind]
    built = module.build(module.source(release.selection["id"]), folder, progress)
    built.items.sort(key=lambda item: item.item_id)

    tables: dict[str, dict[str, list[dict]]] = {}
    for item in built.items:
        tables.setdefault(item.config, {}).setdefault(item.split, []).append(item.row)
    for config, splits in (built.config_rows or {}).items():
        tables[config] = {split: sorted(rows, key=dumps) for split, rows in splits.items()}

    data_files, counts, sizes = {}, {}, {}
    for config, columns in built.columns.items():
        splits = dict(sorted(tables.get(config, {}).items()))
        if not splits:
            continue
        data_files[config], counts[config], sizes[config] = {}, {}, {}
        for split, rows in splits.items():
            path = data_path(config, split, list(splits), "parquet")
            num_bytes = write_parquet(folder / path, rows, columns)
            write_jsonl(folder / data_path(config, split, list(splits), "jsonl"), rows)
            data_files[config][split] = path
            counts[config][split] = len(rows)
            sizes[config][split] = card.SplitSize(num_bytes=num_bytes, download_size=(folder / path).stat().st_size)

    write_jsonl(folder / "provenance.jsonl", (item.provenance for item in built.items))
    rulebooks = sorted({v for item in built.items for v in item.provenance.get("rulebook_versions", [])})
    models = sorted({c["model"] for item in built.items for c in item.provenance.get("agent_calls", [])})
    languages = sorted({item.row.get("language") for item in built.items if item.row.get("language")}) or built.languages or ["ko"]
    manifest = {
        "name": release.name, "version": release.version, "kind": release.kind, "license": release.license,
        "sources": release.sources, "selection": release.selection, "description": release.description,
        "configs": counts, "items": len(built.items), "excluded": dict(sorted(built.excluded.items())),
        "rulebook_versions": rulebooks, "agent_models": models,
        # The Parquet footer names the writer, so the same bytes need the same pyarrow.
        "writer": {"pyarrow": pyarrow.__version__, "parquet_options": PARQUET_OPTIONS},
    }
    write_json(folder / "release.json", manifest)
    write_text(folder / "README.md", card.render(
        release=release, built=built, data_files=data_files, counts=counts, sizes=sizes, languages=languages,
        rulebook_versions=rulebooks, agent_models=models))
    return Written(built=built, manifest=manifest, sums=write_checksums(folder))
