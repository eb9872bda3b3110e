"""Reading and checking a listening-test manifest (CSV or JSONL) before anything is stored.

Columns: clip_id, audio (path relative to the manifest), text, speaker, source_type (real, tts, degraded),
style (read, spontaneous), category, system (optional), gold_min and gold_max (optional; both or neither,
for gold clips). Every bad row is reported with its line number and the reason; nothing is imported
unless every row is good."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from django.utils.translation import gettext
from pydantic import PrivateAttr, ValidationInfo, field_validator, model_validator

from apps.audio.info import AudioInfo, AudioRejected
from apps.audio.inspection import inspect_many
from apps.audio.store import Staging
from apps.core.errors import FileProblem, FileRefused
from apps.core.tabular import RowModel, parse_table, refuse

SOURCE_TYPES = ("real", "tts", "degraded")
STYLES = ("read", "spontaneous")
MANIFEST_FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}
PROGRESS_SECONDS = 0.25  # how often the file checks update the job's bar


class ManifestRow(RowModel):
    """One clip of the manifest. Validation needs context={"base": <the manifest's folder>}."""

    clip_id: str
    audio: str  # as the manifest wrote it, relative to the manifest's folder
    text: str
    speaker: str
    source_type: str
    style: str
    category: str
    system: str = ""
    gold_min: int | None = None
    gold_max: int | None = None
    _audio_path: Path = PrivateAttr()
    _audio_info: AudioInfo | None = PrivateAttr(default=None)

    @property
    def audio_path(self) -> Path:
        return self._audio_path

    @property
    def audio_info(self) -> AudioInfo | None:
        """What validating the audio found (read_manifest with check_audio); None before."""
        return self._audio_info

    @property
    def is_gold(self) -> bool:
        return self.gold_min is not None

    @field_validator("source_type")
    @classmethod
    def _source_type(cls, value: str) -> str:
        if value not in SOURCE_TYPES:
            raise ValueError(f"unknown source type {value!r} (expected {', '.join(SOURCE_TYPES)})")
        return value

    @field_validator("style")
    @classmethod
    def _style(cls, value: str) -> str:
        if value not in STYLES:
            raise ValueError(f"unknown style {value!r} (expected {', '.join(STYLES)})")
        return value

    @field_validator("gold_min", "gold_max", mode="before")
    @classmethod
    def _score_bound(cls, value):
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{value!r} is not a number") from None
        if number != int(number) or not 1 <= number <= 5:
            raise ValueError(f"{value!r} must be a whole score from 1 to 5")
        return int(number)

    @field_validator("audio")
    @classmethod
    def _audio_inside_the_folder(cls, value: str, info: ValidationInfo) -> str:
        path, problem = _resolve_audio(value, info.context)
        if problem:
            raise ValueError(problem)
        return value

    @model_validator(mode="after")
    def _gold_pair(self, info: ValidationInfo) -> ManifestRow:
        if (self.gold_min is None) != (self.gold_max is None):
            raise ValueError("gold_min and gold_max go together: give both or neither")
        if self.gold_min is not None and self.gold_min > self.gold_max:
            raise ValueError(f"gold_min {self.gold_min} is above gold_max {self.gold_max}")
        self._audio_path = _resolve_audio(self.audio, info.context)[0]
        return self


def _resolve_audio(value: str, context: dict) -> tuple[Path, str]:
    """The audio file's resolved path (symlinks followed) and what is wrong with it ("" when nothing).
    Rows often share a file: each distinct value is resolved and looked at once per manifest (the answers
    are kept in `context`). A plain name of a regular file in the manifest's folder is resolved already
    (one lstat); anything else (a folder on the way, a link) is resolved, a system call per step."""
    seen = context.setdefault("_audio_paths", {})
    if value not in seen:
        if "_resolved_base" not in context:
            context["_resolved_base"] = context["base"].resolve()
        base = context["_resolved_base"]
        if _is_plain_name(value) and _is_regular_file(joined := os.path.join(base, value)):
            seen[value] = (Path(joined), "")  # in the folder by construction, and a file: nothing more to ask
            return seen[value]
        path = (base / value).resolve()
        if Path(value).is_absolute() or not path.is_relative_to(base):
            seen[value] = (path, f"audio path {value!r} must stay inside the manifest's folder")
        elif not path.is_file():
            seen[value] = (path, f"missing audio file {value}")
        else:
            seen[value] = (path, "")
    return seen[value]


def _is_plain_name(value: str) -> bool:
    return "/" not in value and "\\" not in value and value not in ("", ".", "..")


def _is_regular_file(path: str) -> bool:
    """A regular file itself, not a link to one."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def read_manifest(path: Path, *, check_audio: bool = True, progress=None, stored=frozenset(),
                  stage: Staging | None = None) -> list[ManifestRow]:
    """Parse and check every row and its audio; raise FileRefused naming each bad row by file and line.

    `stage`: an apps.audio Staging that the checked files are written to, for storing them by a rename.
    `stored`: clip ids an earlier run of this import already stored (a resume). Their rows are checked
    again; their audio, checked by that run and stored since, is not (audio_info stays None).
    `progress` (a jobs Progress) shows one bar across what this run still has to do, in two steps: the
    distinct audio files to check, then the rows to store (on a resume, only the files and rows not stored
    yet, so the bar never counts a re-check). Its message names the step and counts it, the checks advance
    it as they go (every PROGRESS_SECONDS), and a cancel stops them."""
    path = Path(path)
    if path.suffix.lower() not in MANIFEST_FORMATS:
        raise FileRefused(gettext("a manifest must be a .csv or .jsonl file"), file=path.name)
    parsed, problems = parse_table(path, ManifestRow, context={"base": path.parent}, unique="clip_id")
    if check_audio:
        # Each distinct file is checked once (rows may share one), side by side; each row keeps what its
        # file's check found, so the import stores it without looking again.
        files = [(row.audio_path, row.audio) for _, row in parsed if row.clip_id not in stored]
        on_checked = None
        if progress is not None:
            to_check = len({p for p, _ in files})
            to_store = sum(1 for _, row in parsed if row.clip_id not in stored)
            before = f"{len(stored)} of {len(parsed)} clips were stored before. " if stored else ""
            progress.set_done(0)  # first: a resume's total is smaller than the count it stopped at
            progress.set_total(to_check + to_store, message=f"{before}Step 1 of 2: checking {to_check} audio files")
            count = iter(range(1, to_check + 1))
            written = [0, time.monotonic()]  # files counted in the job row, and when

            def on_checked():  # the page's bar moves with the checks; a cancel stops them
                checked = next(count)
                # A write (and a look for a cancel) every PROGRESS_SECONDS and at the last file, not per
                # file: two queries per file would cost more than checking a short clip.
                if checked == to_check or time.monotonic() - written[1] >= PROGRESS_SECONDS:
                    progress.advance(checked - written[0],
                                     message=f"{before}Step 1 of 2: checked {checked} of {to_check} audio files")
                    written[:] = [checked, time.monotonic()]
        checked = inspect_many(files, resolved=True, stage=stage, on_checked=on_checked)
        for line, row in parsed:
            if row.clip_id in stored:
                continue
            outcome = checked[row.audio_path]
            if isinstance(outcome, AudioRejected):
                problems.append(FileProblem(file=path.name, line=line, field="audio", reason=f"invalid audio: {outcome}"))
            else:
                row._audio_info = outcome
    refuse(problems)
    rows = [row for _, row in parsed]
    if not any(not r.is_gold for r in rows):
        raise FileRefused(gettext("the manifest has only gold clips; a test needs clips to rate"), file=path.name)
    return rows
