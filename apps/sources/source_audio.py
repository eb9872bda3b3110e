"""A source benchmark's English audio, in Sori's audio store like every other audio (checked as audio from its
bytes, content-addressed), so that evaluation sends a model the stored, checked asset and never a file a
request names. The audio comes from a zip upload or from a folder under one of settings.IMPORT_ROOTS
(SORI_IMPORT_ROOTS), refused outside them after its links are resolved.

A sample's file is found by the name its record gives (OpenAudioBench's `audio_filename`, also under a folder
named after the subset), else by its id: `<subset>/<source id>.<ext>` or `<source id>.<ext>` (VoiceBench's
records name no file). All or nothing: a file that is not audio refuses the import, naming it; samples with no
file are counted and named, and keep the audio they had."""

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from django.conf import settings
from django.utils.translation import gettext

from apps.audio.info import AudioRejected
from apps.audio.inspection import inspect_many
from apps.audio.store import atomic_import, store_validated
from apps.core.archives import extract_zip
from apps.core.errors import FileProblem, InvalidInput
from apps.core.tabular import refuse
from apps.sources.models import SourceBenchmark, SourceSample

EXTENSIONS = (".wav", ".flac", ".mp3", ".ogg", ".m4a", ".webm")


@dataclass
class AudioImport:
    benchmark: SourceBenchmark
    linked: int = 0  # samples given audio (or confirmed in theirs)
    stored: int = 0  # distinct files in the import
    without_audio: list[str] = field(default_factory=list)  # samples no file was found for

    def summary(self) -> str:
        missing = self.without_audio
        return (f"{self.benchmark.name}: audio for {self.linked} samples ({self.stored} files checked and stored)"
                + (f"; {len(missing)} samples have no file in it ({', '.join(missing[:5])}"
                   f"{', ...' if len(missing) > 5 else ''})" if missing else "."))


def under_import_root(folder: Path | str) -> Path:
    """The folder, resolved, if it lies under an import root; refused otherwise (without saying whether it exists)."""
    resolved = Path(folder).resolve()
    if not any(resolved.is_relative_to(root) for root in settings.IMPORT_ROOTS):
        roots = ", ".join(str(r) for r in settings.IMPORT_ROOTS)
        raise InvalidInput(gettext(
            "%(folder)s is not under an import root (%(roots)s; set SORI_IMPORT_ROOTS)"
        ) % {"folder": folder, "roots": roots}, field="folder")
    if not resolved.is_dir():
        raise InvalidInput(gettext("%(folder)s is not a folder") % {"folder": folder}, field="folder")
    return resolved


def import_audio_folder(*, benchmark: SourceBenchmark, folder: Path | str) -> AudioImport:
    """Store the audio of the benchmark's samples from a folder under an import root."""
    return _import_from(benchmark, under_import_root(folder), name=str(folder))


def import_audio_zip(*, benchmark: SourceBenchmark, source: Path | BinaryIO, name: str) -> AudioImport:
    """Store the audio of the benchmark's samples from a zip (unpacked with the zip limits: no member outside
    the folder, no link, no bomb)."""
    with tempfile.TemporaryDirectory(prefix="sori-source-audio-") as tmp:
        extract_zip(source, Path(tmp), name=name)
        return _import_from(benchmark, Path(tmp).resolve(), name=name)


def _candidates(sample: SourceSample) -> list[str]:
    names = [sample.audio_filename, f"{sample.subset}/{sample.audio_filename}"] if sample.audio_filename else []
    for ext in EXTENSIONS:
        names += [f"{sample.subset}/{sample.source_id}{ext}", f"{sample.source_id}{ext}"]
    return names


def _find(folder: Path, sample: SourceSample) -> tuple[Path, str] | None:
    for relative in _candidates(sample):
        path = (folder / relative).resolve()
        if path.is_relative_to(folder) and path.is_file():  # a link out of the folder is not followed
            return path, relative
    return None


def _import_from(benchmark: SourceBenchmark, folder: Path, *, name: str) -> AudioImport:
    samples = list(SourceSample.objects.filter(benchmark=benchmark).order_by("subset", "source_id"))
    found = {s.pk: hit for s in samples if (hit := _find(folder, s)) is not None}
    result = AudioImport(benchmark=benchmark,
                         without_audio=[f"{s.subset}/{s.source_id}" for s in samples if s.pk not in found])
    if not found:
        example = _candidates(samples[0])[0] if samples else "<subset>/<source id>.wav"
        raise InvalidInput(gettext(
            "%(name)s: no audio file for any sample of %(benchmark)s (looked for names such as %(example)s)"
        ) % {"name": name, "benchmark": benchmark.name, "example": example}, field="audio")
    outcomes = inspect_many(sorted({hit for hit in found.values()}, key=lambda hit: hit[1]), resolved=True)
    refuse([FileProblem(file=name, field=outcome.name, reason=outcome.reason)
            for outcome in outcomes.values() if isinstance(outcome, AudioRejected)])
    files = {path: (path, outcomes[path], relative) for path, relative in found.values()}
    with atomic_import():  # all or nothing, the stored files included
        assets = store_validated(list(files.values()))
        linked = []
        for sample in samples:
            if sample.pk in found:
                sample.audio = assets[outcomes[found[sample.pk][0]].sha256]
                linked.append(sample)
        SourceSample.objects.bulk_update(linked, ["audio"], batch_size=500)
    result.linked, result.stored = len(linked), len(files)
    return result
