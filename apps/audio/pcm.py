"""Audio as samples (numpy): decoded from any file Sori accepts, reshaped (rate, channels, a cut) and
written back as a WAV. soundfile (libsndfile) reads and writes WAV; anything else, and a WAV that
libsndfile cannot read, is decoded by ffmpeg (apps.audio.ffmpeg). No module here depends on `audioop`,
which Python 3.13 removed."""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile

from apps.audio import ffmpeg


class UndecodableAudio(Exception):
    """Neither libsndfile nor ffmpeg could decode the bytes; str() ends with ffmpeg's last words."""


@dataclass(frozen=True)
class Pcm:
    samples: np.ndarray  # floats in [-1, 1] (float32 when decoded), shape (frames, channels)
    sample_rate: int

    @property
    def channels(self) -> int:
        return self.samples.shape[1]

    @property
    def frames(self) -> int:
        return self.samples.shape[0]

    @property
    def seconds(self) -> float:
        return self.frames / self.sample_rate

    def mono(self) -> Pcm:
        """The channels averaged into one."""
        if self.channels == 1:
            return self
        return Pcm(self.samples.mean(axis=1, keepdims=True, dtype=np.float32), self.sample_rate)

    def resampled(self, rate: int) -> Pcm:
        """The same audio at `rate` (polyphase filtering, scipy.signal.resample_poly)."""
        if rate == self.sample_rate:
            return self
        from scipy.signal import resample_poly  # here: scipy.signal takes about a second to import

        common = math.gcd(rate, self.sample_rate)
        samples = resample_poly(self.samples, rate // common, self.sample_rate // common, axis=0)
        return Pcm(samples.astype(np.float32), rate)

    def cut(self, start_seconds: float, end_seconds: float) -> Pcm:
        """The frames from `start_seconds` to `end_seconds`, each bound taken in whole milliseconds."""
        start = int(int(start_seconds * 1000) * self.sample_rate / 1000)
        end = int(int(end_seconds * 1000) * self.sample_rate / 1000)
        return Pcm(self.samples[start:end], self.sample_rate)

    def wav(self, *, subtype: str = "PCM_16") -> bytes:
        """A WAV of these samples (fmt and data chunks only) in `subtype` (soundfile's name: PCM_16...)."""
        buffer = io.BytesIO()
        # 16-bit samples quantised here, as to_pcm16 does everywhere (libsndfile would scale by 32767).
        data = to_pcm16(self.samples) if subtype == "PCM_16" else self.samples
        soundfile.write(buffer, data, self.sample_rate, subtype=subtype, format="WAV")
        return buffer.getvalue()


def decode(source: bytes | Path) -> Pcm:
    """The samples of an audio file (its path) or of its bytes, at its own rate and channels: a WAV by
    libsndfile, anything else (and a WAV codec libsndfile lacks) by ffmpeg."""
    if _starts_as_wav(source):
        try:
            samples, rate = soundfile.read(io.BytesIO(source) if isinstance(source, bytes) else str(source),
                                           dtype="float32", always_2d=True)
        except (soundfile.LibsndfileError, RuntimeError):
            pass  # ffmpeg may know the codec
        else:
            return Pcm(samples, rate)
    return decode_with_ffmpeg(source)


def decode_with_ffmpeg(source: bytes | Path, *, args: tuple[str, ...] = ()) -> Pcm:
    """ffmpeg's decoding of the first audio stream into 32-bit float samples; `args` are output options
    (-ar, -ac, a filter)."""
    given = "cache:pipe:0" if isinstance(source, bytes) else str(source)  # cache: lets MP4 seek on a pipe
    try:
        out = ffmpeg.run(["-i", given, "-vn", "-map", "0:a:0", *args, "-c:a", "pcm_f32le", "-f", "wav", "-"],
                         input=source if isinstance(source, bytes) else None)
        samples, rate = soundfile.read(io.BytesIO(out), dtype="float32", always_2d=True)
    except (ffmpeg.FfmpegFailed, soundfile.LibsndfileError, RuntimeError) as exc:
        raise UndecodableAudio(str(exc)) from None
    return Pcm(samples, rate)


_WAV_SUBTYPES = {"PCM_U8", "PCM_16", "PCM_24", "PCM_32", "FLOAT", "DOUBLE"}


def wav_subtype_of(data: bytes) -> str:
    """The WAV sample format that keeps a source's precision: its own PCM or float format when it has one
    (a WAV, a FLAC), else 16-bit (what a lossy codec's decoding is written as)."""
    try:
        subtype = soundfile.info(io.BytesIO(data)).subtype
    except (soundfile.LibsndfileError, RuntimeError):
        return "PCM_16"
    return subtype if subtype in _WAV_SUBTYPES else "PCM_16"


def to_pcm16(samples: np.ndarray) -> np.ndarray:
    """Float samples as 16-bit integers, clipped to full scale."""
    return (np.clip(samples, -1.0, 32767 / 32768) * 32768.0).astype("<i2")


def decoded_shape(path: Path) -> tuple[int, int, int]:
    """(frames, sample rate, channels) of the file's first audio stream as ffmpeg decodes it whole: what
    a check of a file that is not a plain WAV measures (a truncated file decodes shorter than it says)."""
    try:
        out = ffmpeg.run(["-i", str(path), "-vn", "-map", "0:a:0", "-c:a", "pcm_s16le", "-f", "wav", "-"])
        info = soundfile.info(io.BytesIO(out))
    except (ffmpeg.FfmpegFailed, soundfile.LibsndfileError, RuntimeError) as exc:
        raise UndecodableAudio(str(exc)) from None
    return info.frames, info.samplerate, info.channels


def _starts_as_wav(source: bytes | Path) -> bool:
    if isinstance(source, bytes):
        head = source[:4]
    else:
        try:
            with open(source, "rb") as fh:
                head = fh.read(4)
        except OSError:
            return False
    return head in (b"RIFF", b"RF64")
