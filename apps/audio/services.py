"""Audio import: validation (a PCM WAV from its header, anything else with ffprobe and ffmpeg through
pydub), content-addressed storage, conversion.

Every import runs inside `atomic_import()`: database rows roll back with the transaction and files written
to storage during it are deleted, so a failed import leaves nothing behind."""

from __future__ import annotations

import contextvars
import hashlib
import io
import os
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.files.base import ContentFile, File
from django.core.files.storage import default_storage
from django.db import transaction
from pydub import AudioSegment
from pydub.exceptions import CouldntDecodeError
from pydub.utils import mediainfo_json

from apps.audio.models import AudioAsset, _asset_path
from apps.core.errors import FileRefused
from apps.core.tabular import refuse

AUDIO_EXTENSIONS = {".wav", ".mp3", ".flac", ".ogg", ".opus", ".m4a", ".webm", ".aac"}
# A decoded stream shorter than its header promises by more than this is a truncated file.
TRUNCATION_TOLERANCE_SECONDS = 0.05


class AudioRejected(FileRefused):
    """A file that is not usable audio. str() names the file and the reason."""

    def __init__(self, name: str, reason: str):
        self.name, self.reason = name, reason
        super().__init__(reason, file=name, code="audio_rejected")


@dataclass(frozen=True)
class AudioInfo:
    format: str
    duration_seconds: float
    sample_rate: int
    channels: int
    size_bytes: int
    sha256: str


_written_files: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("written_files", default=None)


@contextmanager
def atomic_import() -> Iterator[None]:
    """A transaction that also removes the audio files it stored when it rolls back."""
    written: list[str] = []
    token = _written_files.set(written)
    try:
        with transaction.atomic():
            yield
    except BaseException:
        for name in written:
            default_storage.delete(name)
        raise
    finally:
        _written_files.reset(token)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def inspect_audio(path: Path, *, name: str | None = None) -> AudioInfo:
    """Validate a file as audio and describe it, or raise AudioRejected naming the file and the reason.

    A PCM (or float, A-law, mu-law) WAV is read from its header alone: the fmt chunk gives rate, channels
    and bytes per frame, the data chunk's size what the file promises, the file's length what it holds, so
    nothing needs decoding to know the duration or to catch truncation. Anything else (other containers,
    other WAV codecs, a file that only pretends to be a WAV) is probed with ffprobe and decoded by ffmpeg."""
    name = name or path.name
    if not path.is_file():
        raise AudioRejected(name, "no such file")
    size = path.stat().st_size
    if size == 0:
        raise AudioRejected(name, "the file is empty")
    if size > settings.AUDIO_MAX_BYTES:
        raise AudioRejected(name, f"the file is {size:,} bytes, over the limit of {settings.AUDIO_MAX_BYTES:,} bytes")
    header = _wav_header(path)
    if header is not None and header.codec in _WAV_SIZED_CODECS:
        return _inspect_wav(path, name, size, header)
    return _inspect_by_decoding(path, name, size)


def _inspect_wav(path: Path, name: str, size: int, header: WavHeader) -> AudioInfo:
    held_frames = (size - header.data_offset) // header.block_align
    if header.data_size in (0, 0xFFFFFFFF):
        # 0 and 0xFFFFFFFF mean "unknown length" (streamed WAV): nothing was promised, the file is what it holds.
        promised_frames = held_frames
    else:
        promised_frames = header.data_size // header.block_align
    held = min(held_frames, promised_frames) / header.sample_rate
    promised = promised_frames / header.sample_rate
    if held <= 0:
        raise AudioRejected(name, "the audio has zero duration")
    if promised - held > TRUNCATION_TOLERANCE_SECONDS:
        raise AudioRejected(name, f"the file is truncated: its header promises {promised:.2f} s, it holds {held:.2f} s")
    return AudioInfo(
        format="wav", duration_seconds=round(held, 3), sample_rate=header.sample_rate, channels=header.channels,
        size_bytes=size, sha256=sha256_of(path),
    )


def _inspect_by_decoding(path: Path, name: str, size: int) -> AudioInfo:
    probe = mediainfo_json(str(path))
    streams = [s for s in probe.get("streams", []) if s.get("codec_type") == "audio"]
    if not streams:
        raise AudioRejected(name, "not an audio file (ffprobe found no audio stream)")
    try:
        segment = AudioSegment.from_file(str(path))
    except (CouldntDecodeError, IndexError, OSError) as exc:
        raise AudioRejected(name, f"ffmpeg could not decode it ({_first_line(exc)})") from None
    decoded = len(segment) / 1000
    if decoded <= 0:
        raise AudioRejected(name, "the audio has zero duration")
    declared = _declared_duration(probe, streams[0], path)
    if declared is not None and declared - decoded > TRUNCATION_TOLERANCE_SECONDS:
        raise AudioRejected(name, f"the file is truncated: its header promises {declared:.2f} s, it holds {decoded:.2f} s")
    return AudioInfo(
        format=_format_name(probe, path),
        duration_seconds=round(decoded, 3),
        sample_rate=segment.frame_rate,
        channels=segment.channels,
        size_bytes=size,
        sha256=sha256_of(path),
    )


def inspect_many(files: list[tuple[Path, str]], *, threads: int | None = None,
                 on_checked=None) -> dict[Path, AudioInfo | AudioRejected]:
    """Validate many files, each distinct file once (rows that share a file share its check), side by
    side: hashing and ffprobe/ffmpeg run outside the GIL. `files`: (path, name for messages); the answer
    maps each resolved path to its AudioInfo or to the AudioRejected naming it (the first name given).
    `on_checked()` is called after each file, in order (a job's progress); if it raises, the checks not
    started yet are dropped and the exception goes on."""
    names: dict[Path, str] = {}
    for path, name in files:
        names.setdefault(Path(path).resolve(), name)

    def check(item: tuple[Path, str]) -> AudioInfo | AudioRejected:
        path, name = item
        try:
            return inspect_audio(path, name=name)
        except AudioRejected as exc:
            return exc

    workers = threads or min(8, (os.cpu_count() or 2) * 2)
    pool = ThreadPoolExecutor(max_workers=workers)
    results: dict[Path, AudioInfo | AudioRejected] = {}
    try:
        for path, outcome in zip(names, pool.map(check, names.items()), strict=True):
            results[path] = outcome
            if on_checked is not None:
                on_checked()
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)  # a cancelled job stops within the files in flight
        raise
    pool.shutdown()
    return results


def import_audio_file(path: Path, *, name: str | None = None) -> tuple[AudioAsset, bool]:
    """Store a validated file once; returns (asset, created). The same bytes imported again return the
    existing asset."""
    path = Path(path)
    name = name or path.name
    digest = sha256_of(path) if path.is_file() else ""
    existing = AudioAsset.objects.filter(sha256=digest).first() if digest else None
    if existing:
        return existing, False
    info = inspect_audio(path, name=name)
    with open(path, "rb") as fh:
        return _store(File(fh, name=name), info, original_name=name), True


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
    """Import every audio file under `folder`. All files are validated first; if any is refused, the
    AudioRejected problems are raised together (one FileRefused) and nothing is stored."""
    files = find_audio_files(folder)
    if not files:
        raise FileRefused(f"no audio files ({', '.join(sorted(AUDIO_EXTENSIONS))})", file=str(folder))
    problems = []
    for path in files:
        try:
            inspect_audio(path, name=str(path.relative_to(folder)))
        except AudioRejected as exc:
            problems += exc.problems
    refuse(problems)
    if progress:
        progress.set_total(len(files), "Storing audio")
    assets = []
    with atomic_import():
        for path in files:
            asset, _ = import_audio_file(path, name=str(path.relative_to(folder)))
            assets.append(convert_to_16k_mono(asset) if convert else asset)
            if progress:
                progress.advance(message=str(path.relative_to(folder)))
    return assets


def convert_to_16k_mono(asset: AudioAsset) -> AudioAsset:
    """A 16 kHz mono 16-bit WAV copy of the asset (itself when it already is one)."""
    if asset.format == "wav" and asset.sample_rate == 16000 and asset.channels == 1:
        return asset
    with asset.file.open("rb") as fh:
        segment = AudioSegment.from_file(fh)
    buffer = io.BytesIO()
    segment.set_frame_rate(16000).set_channels(1).set_sample_width(2).export(buffer, format="wav")
    data = buffer.getvalue()
    digest = hashlib.sha256(data).hexdigest()
    existing = AudioAsset.objects.filter(sha256=digest).first()
    if existing:
        return existing
    info = AudioInfo("wav", round(len(segment) / 1000, 3), 16000, 1, len(data), digest)
    stem = Path(asset.original_name or asset.sha256).stem
    return _store(ContentFile(data, name=f"{stem}.wav"), info, original_name=f"{stem}.16k.wav", converted_from=asset)


def store_generated_wav(data: bytes, *, name: str, duration_seconds: float, sample_rate: int, channels: int) -> AudioAsset:
    """Store a WAV that Sori wrote itself (the speech stage's joined audio): its format and length are known,
    so it skips the ffprobe validation an import needs. The same bytes stored again return the existing asset."""
    digest = hashlib.sha256(data).hexdigest()
    existing = AudioAsset.objects.filter(sha256=digest).first()
    if existing:
        return existing
    info = AudioInfo("wav", round(duration_seconds, 3), sample_rate, channels, len(data), digest)
    return _store(ContentFile(data, name=name), info, original_name=name)


def _store(content: File, info: AudioInfo, *, original_name: str, converted_from: AudioAsset | None = None) -> AudioAsset:
    asset = _unsaved_asset(content, info, original_name=original_name, converted_from=converted_from)
    with transaction.atomic():
        asset.save()
    return asset


def _unsaved_asset(content: File, info: AudioInfo, *, original_name: str, converted_from: AudioAsset | None = None) -> AudioAsset:
    """The asset row (not saved yet) with its file written to storage (and remembered by atomic_import)."""
    asset = AudioAsset(
        sha256=info.sha256, original_name=original_name[:300], format=info.format,
        duration_seconds=info.duration_seconds, sample_rate=info.sample_rate, channels=info.channels,
        size_bytes=info.size_bytes, converted_from=converted_from,
    )
    target = _asset_path(asset, content.name or "audio.bin")
    if default_storage.exists(target):
        asset.file.name = target  # left by an earlier import of the same bytes; identical by its name
    else:
        asset.file.name = default_storage.save(target, content)
        written = _written_files.get()
        if written is not None:
            written.append(asset.file.name)
    return asset


def store_validated(files: list[tuple[Path, AudioInfo, str]]) -> dict[str, AudioAsset]:
    """Store files already validated (inspect_many), each distinct content once: one query finds what is
    stored already, one bulk insert adds the rest. `files`: (path, info, name). Returns sha256 -> asset.
    Call it inside atomic_import(), so a failure later removes the files written here."""
    by_digest: dict[str, tuple[Path, AudioInfo, str]] = {}
    for path, info, name in files:
        by_digest.setdefault(info.sha256, (path, info, name))
    assets = AudioAsset.objects.in_bulk(list(by_digest), field_name="sha256")
    new = []
    for digest, (path, info, name) in by_digest.items():
        if digest not in assets:
            with open(path, "rb") as fh:
                new.append(_unsaved_asset(File(fh, name=name), info, original_name=name))
    if new:
        AudioAsset.objects.bulk_create(new, batch_size=1000)
        assets.update(AudioAsset.objects.in_bulk([a.sha256 for a in new], field_name="sha256"))
    return assets


def _declared_duration(probe: dict, stream: dict, path: Path) -> float | None:
    """The duration the container's header promises. For WAV, read the data chunk size itself, since
    ffprobe estimates from the file length when the header and the file disagree."""
    if path.suffix.lower() == ".wav" or probe.get("format", {}).get("format_name") == "wav":
        declared = _wav_declared_seconds(path)
        if declared is not None:
            return declared
    for source in (stream, probe.get("format", {})):
        try:
            return float(source["duration"])
        except (KeyError, TypeError, ValueError):
            continue
    return None


@dataclass(frozen=True)
class WavHeader:
    codec: int  # the fmt chunk's format tag
    byte_rate: int
    channels: int
    sample_rate: int
    block_align: int  # bytes per frame
    data_size: int  # what the data chunk says it holds
    data_offset: int  # where the samples start


# Codecs whose frames are fixed-size samples, so duration and truncation follow from sizes alone:
# PCM, IEEE float, A-law, mu-law, and WAVE_FORMAT_EXTENSIBLE (which wraps PCM or float).
_WAV_SIZED_CODECS = {0x0001, 0x0003, 0x0006, 0x0007, 0xFFFE}


def _wav_header(path: Path) -> WavHeader | None:
    """The fmt and data chunks of a RIFF/WAVE file; None for anything else, including a header that is
    cut short or inconsistent."""
    with open(path, "rb") as fh:
        riff = fh.read(12)
        if len(riff) < 12 or riff[:4] != b"RIFF" or riff[8:12] != b"WAVE":
            return None
        fmt = None
        while True:
            chunk = fh.read(8)
            if len(chunk) < 8:
                return None
            chunk_id, size = chunk[:4], int.from_bytes(chunk[4:], "little")
            if chunk_id == b"fmt ":
                fmt = fh.read(size + (size & 1))
                if len(fmt) < 16:
                    return None
            elif chunk_id == b"data":
                if fmt is None:
                    return None
                codec = int.from_bytes(fmt[0:2], "little")
                channels = int.from_bytes(fmt[2:4], "little")
                rate = int.from_bytes(fmt[4:8], "little")
                byte_rate = int.from_bytes(fmt[8:12], "little")
                block_align = int.from_bytes(fmt[12:14], "little")
                if not channels or not rate or not block_align or not byte_rate:
                    return None
                return WavHeader(codec, byte_rate, channels, rate, block_align, size, fh.tell())
            else:
                fh.seek(size + (size & 1), 1)


def _wav_declared_seconds(path: Path) -> float | None:
    """The duration a WAV's data chunk promises (ffprobe estimates it from the file's length instead)."""
    header = _wav_header(path)
    if header is None or header.data_size in (0, 0xFFFFFFFF):
        return None
    return header.data_size / header.byte_rate


def _format_name(probe: dict, path: Path) -> str:
    name = probe.get("format", {}).get("format_name", "")
    first = name.split(",")[0] if name else ""
    if first in {"mov", "mp4"}:
        return "m4a"
    return first or path.suffix.lstrip(".").lower()


def _first_line(exc: Exception) -> str:
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return lines[-1][:200] if lines else type(exc).__name__
