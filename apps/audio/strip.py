"""What Sori stores of an audio file: the audio without its metadata (a WAV's LIST/INFO and id3 chunks,
ID3, Vorbis comments, MP4 atoms, cover art, chapters). A tag can carry the transcript or the system's name,
which would reach a listener in the bytes they download; and the same audio tagged twice is stored once."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.utils.translation import gettext

from apps.audio import ffmpeg, wavcheck
from apps.audio.info import AudioRejected, last_line
from apps.audio.wavcheck import KEPT_CHUNKS, MAX_CHUNKS

# ffmpeg output options per format (AudioInfo.format), for a copy of the audio streams without metadata.
_MUXERS = {
    "mp3": ["-f", "mp3", "-id3v2_version", "0", "-write_id3v1", "0"],
    "ogg": ["-f", "ogg"], "flac": ["-f", "flac"], "m4a": ["-f", "mp4"], "aac": ["-f", "adts"], "wav": ["-f", "wav"],
    "matroska": ["-f", "webm"],  # WebM when its codecs allow (opus, vorbis), else Matroska (below)
}


@contextmanager
def stored_form(path: Path, *, format: str, name: str) -> Iterator[Path]:
    """The file as Sori stores it: without metadata. A RIFF/WAVE file is rewritten with only its fmt, fact
    and data chunks (so a WAV that has nothing else is its own stored form, byte for byte); anything else is
    copied by ffmpeg without metadata, chapters or non-audio streams (cover art), the audio packets as they
    are. Both are deterministic: stripping a file twice, or stripping its stripped form, gives the same
    bytes, so the same audio is stored once however it was tagged. Yields a path to read (a temporary copy,
    removed afterwards, or `path` itself)."""
    path = Path(path)
    chunks = _riff_chunks(path)
    if chunks is not None and len(chunks) > MAX_CHUNKS:
        raise AudioRejected(name, gettext(
            "the WAV has more than %(max_chunks)s chunks"
        ) % {"max_chunks": f"{MAX_CHUNKS:,}"})
    if chunks is not None:
        if _wav_is_bare(path, chunks):
            yield path
            return
        with tempfile.TemporaryDirectory(prefix="sori-audio-") as tmp:
            kept = Path(tmp) / "stored.wav"
            _write_bare_wav(path, chunks, kept)
            yield kept
        return
    with tempfile.TemporaryDirectory(prefix="sori-audio-") as tmp:
        kept = Path(tmp) / f"stored{Path(name).suffix.lower()[:10]}"
        _ffmpeg_without_metadata(path, kept, format=format, name=name)
        yield kept


def _riff_chunks(path: Path) -> list[tuple[bytes, int, int]] | None:
    """(id, offset of its body, bytes of its body in the file) for each chunk of a RIFF/WAVE file; None for
    anything else. A data chunk whose size is unknown (0 or 0xFFFFFFFF, streamed) or larger than the file
    runs to the end of the file."""
    with open(path, "rb") as fh:
        return wavcheck.read_chunks(fh, os.fstat(fh.fileno()).st_size)


def _wav_is_bare(path: Path, chunks) -> bool:
    return wavcheck.chunks_are_bare(chunks, path.stat().st_size)


def _write_bare_wav(path: Path, chunks, out: Path) -> None:
    kept = [(chunk_id, body, size) for chunk_id, body, size in chunks if chunk_id in KEPT_CHUNKS]
    with open(path, "rb") as src, open(out, "wb") as dst:
        declared = int.from_bytes(src.read(8)[4:], "little")
        total = 4 + sum(8 + size + (size & 1) for _, _, size in kept)
        dst.write(b"RIFF" + (declared if declared in (0, 0xFFFFFFFF) else total).to_bytes(4, "little") + b"WAVE")
        for _, body, size in kept:
            src.seek(body - 8)
            dst.write(src.read(8))  # the chunk's header as the file has it (a data size that promises more too)
            remaining = size + (size & 1)
            while remaining > 0:
                block = src.read(min(remaining, 1 << 20))
                if not block:
                    dst.write(b"\0" * remaining)  # the pad byte of an odd-sized chunk at the end of the file
                    break
                dst.write(block)
                remaining -= len(block)


def _ffmpeg_without_metadata(path: Path, out: Path, *, format: str, name: str) -> None:
    copy = ["-i", str(path), "-map", "0:a", "-map_metadata", "-1", "-map_chapters", "-1", "-c", "copy",
            "-fflags", "+bitexact", "-flags:a", "+bitexact"]
    attempts = [_MUXERS.get(format, ["-f", format])]
    if format == "matroska":
        attempts.append(["-f", "matroska"])
    error = ""
    for muxer in attempts:
        try:
            ffmpeg.run([*copy, *muxer, str(out)])
        except ffmpeg.FfmpegFailed as exc:
            error = str(exc)
            continue
        if out.is_file() and out.stat().st_size > 0:
            return
        error = "ffmpeg wrote nothing"
    raise AudioRejected(name, gettext(
        "its metadata could not be removed (%(error)s)"
    ) % {"error": last_line(Exception(error))})
