"""What a WAV file is, from its bytes alone; and a checker process that checks short WAVs in bulk.

Standard library only: `inspect_many` (apps.audio.inspection) runs this file as a process of its own, beside
the importing one, so checking thousands of short clips uses a second core. Django is not loaded there,
and the per-file work (read, hash, header, staging the copy) does not wait for the importing process's GIL.

The checker reads requests from stdin and answers on stdout, one pickle each: a request is a list of
paths (bytes, as the file system names them); its answer holds, for each path, (sha256, seconds held,
sample rate, channels, size, staged copy or None) for a WAV that is stored as it is, or None for anything
else. A None is checked again by the importing process, which says what is wrong with the file: the
checker only ever accepts, so a rejection and its message come from one place."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import pickle
import stat
import sys
from dataclasses import dataclass

# A decoded stream shorter than its header promises by more than this is a truncated file.
TRUNCATION_TOLERANCE_SECONDS = 0.05

# Codecs whose frames are fixed-size samples, so duration and truncation follow from sizes alone:
# PCM, IEEE float, A-law, mu-law, and WAVE_FORMAT_EXTENSIBLE (which wraps PCM or float).
SIZED_CODECS = {0x0001, 0x0003, 0x0006, 0x0007, 0xFFFE}

# The chunks a stored WAV keeps: its format, the sample count some codecs need, and the samples. Everything
# else (LIST/INFO, id3, bext, iXML, cue points, any unknown chunk, bytes after the last chunk) is dropped.
KEPT_CHUNKS = {b"fmt ", b"fact", b"data"}
MAX_CHUNKS = 1000  # real WAVs have a handful


def content_folder(sha256: str) -> str:
    """The storage folder of the file with this content (its name is the sha256 and an extension)."""
    return f"audio/{sha256[:2]}"


@dataclass(frozen=True)
class WavHeader:
    codec: int  # the fmt chunk's format tag
    byte_rate: int
    channels: int
    sample_rate: int
    block_align: int  # bytes per frame
    data_size: int  # what the data chunk says it holds
    data_offset: int  # where the samples start


def read_header(fh) -> WavHeader | None:
    """The fmt and data chunks of a RIFF/WAVE file; None for anything else, including a header that is
    cut short or inconsistent."""
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


def held_seconds(header: WavHeader, size: int) -> float:
    """The duration a sized-codec WAV of `size` bytes holds; ValueError, with the reason, for one that
    holds nothing or less than its header promises."""
    held_frames = (size - header.data_offset) // header.block_align
    if header.data_size in (0, 0xFFFFFFFF):
        # 0 and 0xFFFFFFFF mean "unknown length" (streamed WAV): nothing was promised, the file is what it holds.
        promised_frames = held_frames
    else:
        promised_frames = header.data_size // header.block_align
    held = min(held_frames, promised_frames) / header.sample_rate
    promised = promised_frames / header.sample_rate
    if held <= 0:
        raise ValueError("the audio has zero duration")
    if promised - held > TRUNCATION_TOLERANCE_SECONDS:
        raise ValueError(f"the file is truncated: its header promises {promised:.2f} s, it holds {held:.2f} s")
    return held


def read_chunks(fh, file_size: int) -> list[tuple[bytes, int, int]] | None:
    """(id, offset of its body, bytes of its body in the file) for each chunk of a RIFF/WAVE file; None for
    anything else. A data chunk whose size is unknown (0 or 0xFFFFFFFF, streamed) or larger than the file
    runs to the end of the file."""
    riff = fh.read(12)
    if len(riff) < 12 or riff[:4] != b"RIFF" or riff[8:12] != b"WAVE":
        return None
    chunks, offset = [], 12
    while offset + 8 <= file_size:
        fh.seek(offset)
        head = fh.read(8)
        chunk_id, size = head[:4], int.from_bytes(head[4:], "little")
        body = offset + 8
        if size > file_size - body or (chunk_id == b"data" and size in (0, 0xFFFFFFFF)):
            size = file_size - body
        chunks.append((chunk_id, body, size))
        if len(chunks) > MAX_CHUNKS:
            break  # a hostile file of millions of empty chunks; refused by the caller
        offset = body + size + (size & 1)
    return chunks


def chunks_are_bare(chunks, file_size: int) -> bool:
    if any(chunk_id not in KEPT_CHUNKS for chunk_id, _, _ in chunks):
        return False
    end = max((body + size + (size & 1) for _, body, size in chunks), default=12)
    return end >= file_size  # nothing after the last chunk (an ID3 tag appended to a WAV)


def bare_wav(data: bytes) -> tuple[WavHeader, float] | None:
    """The header and duration of a WAV, read whole, that is stored as it is (sized codec, nothing but
    its fmt, fact and data chunks, not truncated); None for anything else."""
    header = read_header(io.BytesIO(data))
    if header is None or header.codec not in SIZED_CODECS:
        return None
    try:
        held = held_seconds(header, len(data))
    except ValueError:
        return None
    chunks = read_chunks(io.BytesIO(data), len(data))
    if chunks is None or len(chunks) > MAX_CHUNKS or not chunks_are_bare(chunks, len(data)):
        return None
    return header, held


def write_new_file(path: str, data: bytes, mode: int | None) -> None:
    """Create `path` (it must not exist) holding `data`; `mode`: its permissions, or None for the umask's.
    A write that fails (a full disk) removes the file it created: nothing half-written is left."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if mode is not None:
            os.fchmod(fd, mode)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        raise
    os.close(fd)


def stage_copy(data: bytes, sha256: str, *, root: str, suffix: str, mode: int | None, made: set[str]) -> str | None:
    """Write checked bytes next to where storage will keep their content (`<root>/<content folder>/`), as
    `<sha256><suffix>`, so storing them is a rename; returns that path, or None if it cannot be written
    (a full disk: storing copies the file instead, and says what is wrong if that fails too). `made`:
    the folders made already, so each costs one makedirs."""
    folder = os.path.join(root, content_folder(sha256))
    part = os.path.join(folder, sha256 + suffix)
    try:
        if folder not in made:
            os.makedirs(folder, exist_ok=True)
            made.add(folder)
        write_new_file(part, data, mode)
    except OSError:
        return None
    return part


def check_and_stage(path: bytes, *, max_bytes: int, root: str | None, suffix: str, mode: int | None,
                    made: set[str]) -> tuple | None:
    """The checker's answer for one file (see the module's docstring). With `root`, the file is also
    staged: written, from the bytes just hashed, to `<root>/<content folder>/<sha256><suffix>`."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None  # a device is never opened (opening some has effects)
        # O_NONBLOCK: a FIFO put in the file's place since must not block the checker; fstat sees it.
        with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as fh:
            st = os.fstat(fh.fileno())
            data = fh.read(max_bytes + 1) if stat.S_ISREG(st.st_mode) and 0 < st.st_size <= max_bytes else b""
    except OSError:
        return None
    if not 0 < len(data) <= max_bytes:
        return None
    checked = bare_wav(data)
    if checked is None:
        return None
    header, held = checked
    sha256 = hashlib.sha256(data).hexdigest()
    part = stage_copy(data, sha256, root=root, suffix=suffix, mode=mode, made=made) if root is not None else None
    return sha256, held, header.sample_rate, header.channels, len(data), part


def main() -> None:
    """The checker process: argv is max_bytes, then the staging root, suffix and mode ("-" for none)."""
    max_bytes, root, suffix, mode = sys.argv[1:5]
    options = {"max_bytes": int(max_bytes), "root": None if root == "-" else root, "suffix": suffix,
               "mode": None if mode == "-" else int(mode), "made": set()}
    requests, answers = sys.stdin.buffer, sys.stdout.buffer
    while True:
        try:
            paths = pickle.load(requests)
        except EOFError:
            return
        pickle.dump([check_and_stage(path, **options) for path in paths], answers)
        answers.flush()


if __name__ == "__main__":
    main()
