"""Offline Korean speech from espeak-ng (Debian package `espeak-ng`): the TTS that makes the demo clips of
every app (apps.audio is below them all) and backs apps.speech's offline TTS backend."""

import shutil
import subprocess
import tempfile
from pathlib import Path


class EspeakUnavailable(RuntimeError):
    pass


def synthesize_wav(text: str, *, voice: str = "ko", words_per_minute: int = 160, pitch: int = 50) -> bytes:
    """WAV bytes of `text` spoken by espeak-ng."""
    binary = shutil.which("espeak-ng")
    if binary is None:
        raise EspeakUnavailable("espeak-ng is not installed (Debian: apt-get install espeak-ng)")
    # Written to a file, not --stdout: a streamed WAV header carries no real length.
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "speech.wav"
        result = subprocess.run(
            [binary, "-v", voice, "-s", str(words_per_minute), "-p", str(pitch), "-w", str(out), text],
            capture_output=True, check=False, timeout=60,
        )
        if result.returncode != 0 or not out.exists() or out.stat().st_size == 0:
            raise EspeakUnavailable(f"espeak-ng failed: {result.stderr.decode(errors='replace').strip()}")
        return out.read_bytes()
