"""Audio import, the writes other apps and commands call: a file, an upload or a folder checked
(apps.audio.inspection) and stored once by content (apps.audio.store); a 16 kHz mono conversion; a WAV
that Sori wrote itself. What is stored is the audio without its metadata (apps.audio.strip); an asset's
sha256 is of the stored bytes, so it is also the hash of what is served."""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

from django.utils.translation import gettext

from apps.audio import pcm
from apps.audio.info import AudioInfo, AudioRejected
from apps.audio.inspection import inspect_audio, inspect_many
from apps.audio.models import AudioAsset
from apps.audio.store import atomic_import, store_bytes, store_file
from apps.audio.strip import stored_form
from apps.core.errors import FileRefused
from apps.core.hashing import sha256_of
from apps.core.tabular import refuse

AUDIO_EXTENSIONS = {".wav", ".mp3", ".flac", ".ogg", ".opus", ".m4a", ".webm", ".aac"}


def import_audio_file(path: Path, *, name: str | None = None) -> tuple[AudioAsset, bool]:
    """Store a validated file once; returns (asset, created). The same bytes imported again (with or
    without their metadata) return the existing asset."""
    path = Path(path)
    name = name or path.name
    digest = sha256_of(path) if path.is_file() else ""
    existing = AudioAsset.objects.filter(sha256=digest).first() if digest else None
    if existing:
        return existing, False
    return _store_checked(path, inspect_audio(path, name=name), name=name)


def _store_checked(path: Path, info: AudioInfo, *, name: str) -> tuple[AudioAsset, bool]:
    """Store a file inspect_audio accepted (`info` describes its stored form), without looking at it again."""
    with stored_form(path, format=info.format, name=name) as kept:
        return store_file(kept, info, name=name)


def import_uploaded_file(upload) -> tuple[AudioAsset, bool]:
    """Import a Django UploadedFile (admin or API upload) through the same validation as a folder import."""
    suffix = Path(upload.name).suffix
    with tempfile.NamedTemporaryFile(suffix=suffix) as tmp:
        for chunk in upload.chunks():
            tmp.write(chunk)
        tmp.flush()
        return import_audio_file(Path(tmp.name), name=upload.name)


def find_audio_files(folder: Path) -> list[Path]:
    return sorted(p for p in Path(folder).rglob("*") if p.is_file() and p.suffix.lower() in AUDIO_EXTENSIONS)


def import_folder(folder: Path, *, convert: bool = False, progress=None) -> list[AudioAsset]:
    """Import every audio file under `folder`. All files are validated first (side by side, each looked at
    once: the check's result is what is stored); if any is refused, the AudioRejected problems are raised
    together (one FileRefused) and nothing is stored."""
    files = [(path, str(path.relative_to(folder))) for path in find_audio_files(folder)]
    if not files:
        raise FileRefused(gettext(
            "no audio files (%(audio_extensions)s)"
        ) % {"audio_extensions": ', '.join(sorted(AUDIO_EXTENSIONS))}, file=str(folder))
    checked = inspect_many(files)
    refuse([problem for outcome in checked.values() if isinstance(outcome, AudioRejected) for problem in outcome.problems])
    if progress:
        progress.set_total(len(files), "Storing audio")
    assets = []
    with atomic_import():
        for path, name in files:
            asset, _ = _store_checked(path, checked[path.resolve()], name=name)
            assets.append(convert_to_16k_mono(asset) if convert else asset)
            if progress:
                progress.advance(message=name)
    return assets


def convert_to_16k_mono(asset: AudioAsset) -> AudioAsset:
    """A 16 kHz mono 16-bit WAV copy of the asset (itself when it already is one)."""
    if asset.format == "wav" and asset.sample_rate == 16000 and asset.channels == 1:
        return asset
    with asset.file.open("rb") as fh:
        audio = pcm.decode(fh.read())
    converted = audio.mono().resampled(16000)
    data = converted.wav(subtype="PCM_16")
    info = AudioInfo("wav", round(converted.seconds, 3), 16000, 1, len(data), hashlib.sha256(data).hexdigest())
    stem = Path(asset.original_name or asset.sha256).stem
    return store_bytes(data, info, name=f"{stem}.16k.wav", converted_from=asset)


def store_generated_wav(data: bytes, *, name: str, duration_seconds: float, sample_rate: int, channels: int) -> AudioAsset:
    """Store a WAV that Sori wrote itself (the speech stage's joined audio): its format and length are known,
    so it skips the ffprobe validation an import needs. The same bytes stored again return the existing asset."""
    info = AudioInfo("wav", round(duration_seconds, 3), sample_rate, channels, len(data), hashlib.sha256(data).hexdigest())
    return store_bytes(data, info, name=name)
