"""Offline Korean speech from espeak-ng (Debian package `espeak-ng`): the TTS used by demos and tests."""

import shutil
import struct
import subprocess


class EspeakUnavailable(RuntimeError):
    pass


def synthesize_wav(text: str, *, voice: str = "ko", words_per_minute: int = 160, pitch: int = 50) -> bytes:
    """WAV bytes of `text` spoken by espeak-ng."""
    binary = shutil.which("espeak-ng")
    if binary is None:
        raise EspeakUnavailable("espeak-ng is not installed (Debian: apt-get install espeak-ng)")
    result = subprocess.run(
        [binary, "-v", voice, "-s", str(words_per_minute), "-p", str(pitch), "--stdout", text],
        capture_output=True, check=False, timeout=60,
    )
    if result.returncode != 0 or not result.stdout:
        raise EspeakUnavailable(f"espeak-ng failed: {result.stderr.decode(errors='replace').strip()}")
    return _fix_stream_header(result.stdout)


def _fix_stream_header(wav: bytes) -> bytes:
    """espeak-ng --stdout writes a streaming WAV header with placeholder sizes (it cannot seek back), which
    makes the file look truncated to ffprobe. Write the real RIFF and data chunk sizes."""
    if len(wav) < 12 or wav[:4] != b"RIFF" or wav[8:12] != b"WAVE":
        return wav
    fixed = bytearray(wav)
    fixed[4:8] = struct.pack("<I", len(wav) - 8)
    pos = 12
    while pos + 8 <= len(fixed):
        chunk_id = bytes(fixed[pos:pos + 4])
        size = struct.unpack("<I", fixed[pos + 4:pos + 8])[0]
        if chunk_id == b"data":
            fixed[pos + 4:pos + 8] = struct.pack("<I", len(wav) - pos - 8)
            break
        pos += 8 + size + (size & 1)
    return bytes(fixed)
