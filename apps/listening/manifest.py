"""Reading and checking a listening-test manifest (CSV or JSONL) before anything is stored.

Columns: clip_id, audio (path relative to the manifest), text, speaker, source_type (real, tts, degraded),
style (read, spontaneous), category, system (optional), gold_min and gold_max (optional; both or neither,
for gold clips). Every bad row is reported with its line number and the reason; nothing is imported
unless every row is good."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, replace
from pathlib import Path

from apps.audio.services import AudioInfo, AudioRejected, inspect_many

SOURCE_TYPES = ("real", "tts", "degraded")
STYLES = ("read", "spontaneous")
REQUIRED = ("clip_id", "audio", "text", "speaker", "source_type", "style", "category")
OPTIONAL = ("system", "gold_min", "gold_max")


class ManifestRefused(Exception):
    """The manifest cannot be imported. `errors` lists one message per problem, each naming the line."""

    def __init__(self, errors: list[str]):
        self.errors = errors
        super().__init__("\n".join(errors))


@dataclass(frozen=True)
class ManifestRow:
    line: int
    clip_id: str
    audio: str  # as the manifest wrote it
    audio_path: Path
    text: str
    speaker: str
    source_type: str
    style: str
    category: str
    system: str
    gold_min: int | None
    gold_max: int | None
    audio_info: AudioInfo | None = None  # what validating the audio found (read_manifest with check_audio)

    @property
    def is_gold(self) -> bool:
        return self.gold_min is not None


def _read_rows(path: Path) -> list[tuple[int, dict]]:
    """(line number, raw dict) per data row. CSV line numbers count the header as line 1."""
    text = path.read_text(encoding="utf-8-sig")
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        rows = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ManifestRefused([f"{path.name} line {number}: not valid JSON ({exc.msg})"]) from None
            if not isinstance(obj, dict):
                raise ManifestRefused([f"{path.name} line {number}: expected a JSON object"])
            rows.append((number, {k: "" if v is None else str(v) for k, v in obj.items()}))
        return rows
    if path.suffix.lower() != ".csv":
        raise ManifestRefused([f"{path.name}: a manifest must be a .csv or .jsonl file"])
    reader = csv.DictReader(text.splitlines())
    missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
    if missing:
        raise ManifestRefused([f"{path.name} line 1: missing column(s) {', '.join(missing)}"])
    rows = []
    for raw in reader:
        rows.append((reader.line_num, {k: (v or "") for k, v in raw.items() if k is not None}))
    return rows


def _score_bound(value: str, name: str, errors: list[str]) -> int | None:
    if value.strip() == "":
        return None
    try:
        number = int(float(value))
    except ValueError:
        errors.append(f"{name} {value!r} is not a number")
        return None
    if not 1 <= number <= 5 or float(value) != number:
        errors.append(f"{name} {value!r} must be a whole score from 1 to 5")
        return None
    return number


def _merge(problems: list[tuple[int, str]]) -> list[str]:
    """One message per line, in line order (a row with a field error and an audio error gets both)."""
    by_line: dict[int, list[str]] = {}
    for line, message in sorted(problems, key=lambda p: p[0]):
        if line in by_line:
            message = message.split(": ", 1)[1]
        by_line.setdefault(line, []).append(message)
    return ["; ".join(parts) for _, parts in sorted(by_line.items())]


def read_manifest(path: Path, *, check_audio: bool = True) -> list[ManifestRow]:
    """Parse and check every row; raise ManifestRefused listing every bad row as '<file> line N: reason'."""
    path = Path(path)
    if not path.is_file():
        raise ManifestRefused([f"{path}: no such manifest file"])
    base = path.parent
    rows: list[ManifestRow] = []
    problems: list[tuple[int, str]] = []
    seen: dict[str, int] = {}
    audio_checks: list[tuple[int, Path, str]] = []
    raw_rows = _read_rows(path)
    if not raw_rows:
        raise ManifestRefused([f"{path.name}: the manifest has no rows"])
    for line, raw in raw_rows:
        errors: list[str] = []
        value = {k: raw.get(k, "").strip() for k in (*REQUIRED, *OPTIONAL)}
        for column in REQUIRED:
            if column not in raw:
                errors.append(f"missing field {column}")
            elif not value[column]:
                errors.append(f"empty {column}")
        clip_id = value["clip_id"]
        if clip_id:
            if clip_id in seen:
                errors.append(f"duplicate clip id {clip_id!r} (first on line {seen[clip_id]})")
            else:
                seen[clip_id] = line
        if value["source_type"] and value["source_type"] not in SOURCE_TYPES:
            errors.append(f"unknown source type {value['source_type']!r} (expected {', '.join(SOURCE_TYPES)})")
        if value["style"] and value["style"] not in STYLES:
            errors.append(f"unknown style {value['style']!r} (expected {', '.join(STYLES)})")
        gold_min = _score_bound(value["gold_min"], "gold_min", errors)
        gold_max = _score_bound(value["gold_max"], "gold_max", errors)
        if (gold_min is None) != (gold_max is None) and not any(e.startswith("gold_") for e in errors):
            errors.append("gold_min and gold_max go together: give both or neither")
        elif gold_min is not None and gold_max is not None and gold_min > gold_max:
            errors.append(f"gold_min {gold_min} is above gold_max {gold_max}")
        audio_path = (base / value["audio"]).resolve() if value["audio"] else base
        if value["audio"]:
            if Path(value["audio"]).is_absolute() or not audio_path.is_relative_to(base.resolve()):
                errors.append(f"audio path {value['audio']!r} must stay inside the manifest's folder")
            elif not audio_path.is_file():
                errors.append(f"missing audio file {value['audio']}")
            elif check_audio:
                audio_checks.append((line, audio_path, value["audio"]))
        if errors:
            problems.append((line, f"{path.name} line {line}: {'; '.join(errors)}"))
            continue
        rows.append(ManifestRow(
            line=line, clip_id=clip_id, audio=value["audio"], audio_path=audio_path, text=value["text"], speaker=value["speaker"],
            source_type=value["source_type"], style=value["style"], category=value["category"],
            system=value["system"], gold_min=gold_min, gold_max=gold_max,
        ))
    # Each distinct file is checked once (rows may share one), side by side; the rows keep what was found.
    checked = inspect_many([(audio_path, name) for _, audio_path, name in audio_checks])
    for line, audio_path, _ in audio_checks:
        outcome = checked[audio_path]
        if isinstance(outcome, AudioRejected):
            problems.append((line, f"{path.name} line {line}: invalid audio: {outcome}"))
    rows = [replace(r, audio_info=checked[r.audio_path]) if r.audio_path in checked else r for r in rows]
    if problems:
        raise ManifestRefused(_merge(problems))
    if not any(not r.is_gold for r in rows):
        raise ManifestRefused([f"{path.name}: the manifest has only gold clips; a test needs clips to rate"])
    return rows
