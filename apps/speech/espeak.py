"""Offline Korean speech from espeak-ng (Debian package `espeak-ng`): the TTS used by demos and tests."""

import shutil
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
    return result.stdout
