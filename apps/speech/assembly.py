"""Sentence-by-sentence audio (no ORM): split a normalized text into sentences, and join the synthesized
pieces with a pause into one loudness-normalized mono WAV at the run's sample rate.

Sentences are split at every line break (how the normalization stage marks a boundary of its own), after
sentence-final punctuation (. ? ! … and their full-width forms), and, in a stretch that does not end in such
punctuation, where Kiwi (kiwipiepy, a Korean morphological analyser) finds a sentence ending
("...맑습니다 내일은..."). Kiwi runs only there: it costs tens of milliseconds a call."""

import re
from dataclasses import dataclass

import numpy as np

from apps.audio import pcm
from apps.audio.pcm import Pcm
from apps.core.korean import kiwi

# A stretch up to sentence-final punctuation (with any closing quotes or brackets) before a space or the end.
_PUNCTUATED = re.compile(r"\S.*?(?:[.?!…。？！]+[\"'”’)\]]*(?=\s|$)|$)")
_FINAL = re.compile(r"[.?!…。？！][\"'”’)\]]*$")


def split_sentences(text: str) -> list[str]:
    sentences = []
    for line in text.splitlines():
        for chunk in _PUNCTUATED.findall(line.strip()):
            chunk = chunk.strip()
            if not chunk:
                continue
            if _FINAL.search(chunk) and not _unpunctuated_inside(chunk):
                sentences.append(chunk)
            else:
                sentences.extend(s.text.strip() for s in kiwi().split_into_sents(chunk) if s.text.strip())
    return sentences


def _unpunctuated_inside(chunk: str) -> bool:
    """A long punctuated chunk may still hold an unmarked ending before its last sentence."""
    return len(chunk) > 80


@dataclass
class JoinedAudio:
    wav: bytes
    duration_seconds: float
    piece_seconds: list[float]
    loudness_lufs: float | None


def join_pieces(pieces: list[Pcm], *, pause_ms: int, sample_rate: int, target_lufs: float) -> JoinedAudio:
    """Pieces resampled to mono at `sample_rate`, joined with `pause_ms` of silence between them, then the
    whole gain-adjusted to `target_lufs` (ITU-R BS.1770 integrated loudness, pyloudnorm), as 16-bit PCM."""
    if not pieces:
        raise ValueError("nothing to join: no synthesized pieces")
    ready = [p.mono().resampled(sample_rate).samples[:, 0] for p in pieces]
    pause = np.zeros(int(sample_rate * pause_ms / 1000), dtype=np.float32)
    joined = [ready[0]]
    for piece in ready[1:]:
        joined += [pause, piece]
    # Quantised to 16 bits before measuring, as the WAV will hold them.
    samples = pcm.to_pcm16(np.concatenate(joined)).astype(np.float64) / 32768.0
    loudness = _normalize_loudness(samples, sample_rate, target_lufs)
    out = Pcm(samples[:, None], sample_rate)
    return JoinedAudio(
        wav=out.wav(subtype="PCM_16"), duration_seconds=out.seconds,
        piece_seconds=[len(p) / sample_rate for p in ready], loudness_lufs=loudness,
    )


def _normalize_loudness(samples: np.ndarray, rate: int, target: float) -> float | None:
    """Scale `samples` in place to the target loudness; returns the measured loudness before, or None when
    the clip is too short or silent to measure (BS.1770 gates need 400 ms blocks), left as it is."""
    if len(samples) < int(0.4 * rate) or not np.any(samples):
        return None
    import pyloudnorm  # here: it imports scipy.signal (about a second), and only a speech run needs it

    meter = pyloudnorm.Meter(rate)
    measured = meter.integrated_loudness(samples)
    if not np.isfinite(measured):
        return None
    gain = 10 ** ((target - measured) / 20)
    peak = np.max(np.abs(samples)) * gain
    if peak > 0.99:  # never clip: stay under full scale even if that leaves the clip a little quieter
        gain *= 0.99 / peak
    samples *= gain
    return float(measured)
