"""What a check says about an audio file: an AudioInfo when Sori can use it, an AudioRejected naming the
file and the reason when it cannot. Shared by the check (apps.audio.inspection), the metadata stripping
(apps.audio.strip) and the store (apps.audio.store), which refuses bytes that changed since their check."""

from __future__ import annotations

from dataclasses import dataclass, field

from apps.core.errors import FileRefused


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
    # The file itself is what Sori stores (a WAV with nothing to strip): it is copied as it is, its bytes
    # checked against sha256 on the way (see apps.audio.store). About the file, not the audio: not compared.
    stored_as_is: bool = field(default=False, compare=False)


def last_line(exc: Exception) -> str:
    """The last non-blank line of an error (a tool's stderr ends with what went wrong), at most 200 characters."""
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return lines[-1][:200] if lines else type(exc).__name__
