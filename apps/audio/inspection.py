"""Checking audio files before anything is stored: is it usable audio, and what is it (format, length,
rate, channels, and the size and sha256 of what Sori will store of it: apps.audio.strip).

A PCM WAV is read from its header alone, anything else probed by ffprobe and decoded whole by ffmpeg (a
truncated file decodes shorter than its header promises). Many files are checked side by side
(inspect_many), the short WAVs among them partly in a checker process of the standard library only
(apps.audio.wavcheck), which uses a second core without loading Django."""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import os
import pickle
import queue
import stat
import subprocess
import sys
import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from django.conf import settings
from django.utils.translation import gettext

from apps.audio import ffmpeg, pcm, wavcheck
from apps.audio.info import AudioInfo, AudioRejected, last_line
from apps.audio.strip import stored_form
from apps.audio.wavcheck import SIZED_CODECS, WavHeader
from apps.core.hashing import sha256_of

if TYPE_CHECKING:
    from apps.audio.store import Staging

log = logging.getLogger(__name__)

_SLICE = 32  # files per task of inspect_many

# A file up to this size is read once into memory and checked from those bytes (header, chunks, sha256);
# a larger one is read from disk by each step.
READ_WHOLE_BYTES = 16 << 20


def inspect_audio(path: Path, *, name: str | None = None, stage: Staging | None = None) -> AudioInfo:
    """Validate a file as audio and describe it, or raise AudioRejected naming the file and the reason.

    A PCM (or float, A-law, mu-law) WAV is read from its header alone: the fmt chunk gives rate, channels
    and bytes per frame, the data chunk's size what the file promises, the file's length what it holds, so
    nothing needs decoding to know the duration or to catch truncation. Anything else (other containers,
    other WAV codecs, a file that only pretends to be a WAV) is probed with ffprobe and decoded by ffmpeg.
    With `stage`, a file stored as it is and read whole is also written to it, from the bytes just checked."""
    path = path if isinstance(path, Path) else Path(path)  # Path(a Path) parses it again: 5 us a file
    name = name or path.name
    try:
        st = os.stat(path)
    except OSError:
        st = None
    if st is None or not stat.S_ISREG(st.st_mode):
        raise AudioRejected(name, gettext("no such file"))
    size = st.st_size
    if size == 0:
        raise AudioRejected(name, gettext("the file is empty"))
    if size > settings.AUDIO_MAX_BYTES:
        raise AudioRejected(name, gettext(
            "the file is %(size)s bytes, over the limit of %(audio_max_bytes)s bytes"
        ) % {"size": f"{size:,}", "audio_max_bytes": f"{settings.AUDIO_MAX_BYTES:,}"})
    if size <= READ_WHOLE_BYTES:
        # One read: the header, the chunks and the hash all come from these bytes.
        data = path.read_bytes()
        size = len(data)
        bare = wavcheck.bare_wav(data)
        if bare is not None:
            header, held = bare
            info = _wav_info(header.sample_rate, header.channels, held, size, hashlib.sha256(data).hexdigest(),
                             stored_as_is=True)
            if stage is not None:
                stage.write(info.sha256, data)
            return info
        header = wavcheck.read_header(io.BytesIO(data))
        if header is not None and header.codec in SIZED_CODECS:
            info = _inspect_wav(path, name, size, header, sha256=hashlib.sha256(data).hexdigest())
            return _as_stored(path, name, info)
    else:
        header = _wav_header(path)
    if header is not None and header.codec in SIZED_CODECS:
        info = _inspect_wav(path, name, size, header)
    else:
        info = _inspect_by_decoding(path, name, size)
    return _as_stored(path, name, info)


def _as_stored(path: Path, name: str, info: AudioInfo) -> AudioInfo:
    """The description of what Sori stores of the file: its size and sha256 without the metadata."""
    with stored_form(path, format=info.format, name=name) as kept:
        if kept == path:
            return replace(info, stored_as_is=True)
        return replace(info, size_bytes=kept.stat().st_size, sha256=sha256_of(kept), stored_as_is=False)


def _inspect_wav(path: Path, name: str, size: int, header: WavHeader, *, sha256: str | None = None) -> AudioInfo:
    try:
        held = wavcheck.held_seconds(header, size)
    except ValueError as exc:
        raise AudioRejected(name, str(exc)) from None
    return _wav_info(header.sample_rate, header.channels, held, size, sha256 or sha256_of(path))


def _wav_info(sample_rate: int, channels: int, held: float, size: int, sha256: str, *,
              stored_as_is: bool = False) -> AudioInfo:
    return AudioInfo(format="wav", duration_seconds=round(held, 3), sample_rate=sample_rate, channels=channels,
                     size_bytes=size, sha256=sha256, stored_as_is=stored_as_is)


def _inspect_by_decoding(path: Path, name: str, size: int) -> AudioInfo:
    probe = ffmpeg.probe(path)
    streams = [s for s in probe.get("streams", []) if s.get("codec_type") == "audio"]
    if not streams:
        raise AudioRejected(name, gettext("not an audio file (ffprobe found no audio stream)"))
    try:
        frames, sample_rate, channels = pcm.decoded_shape(path)
    except pcm.UndecodableAudio as exc:
        raise AudioRejected(name, gettext(
            "ffmpeg could not decode it (%(last_line)s)"
        ) % {"last_line": last_line(exc)}) from None
    decoded = round(frames / sample_rate, 3)
    if decoded <= 0:
        raise AudioRejected(name, gettext("the audio has zero duration"))
    declared = _declared_duration(probe, streams[0], path)
    slack = wavcheck.TRUNCATION_TOLERANCE_SECONDS + _encoder_slack(streams[0])
    if declared is not None and declared - decoded > slack:
        raise AudioRejected(name, gettext(
            "the file is truncated: its header promises %(declared).2f s, it holds %(decoded).2f s"
        ) % {"declared": declared, "decoded": decoded})
    return AudioInfo(
        format=_format_name(probe, path),
        duration_seconds=decoded,
        sample_rate=sample_rate,
        channels=channels,
        size_bytes=size,
        sha256=sha256_of(path),
    )


def inspect_many(files: list[tuple[Path, str]], *, threads: int | None = None, resolved: bool = False,
                 stage: Staging | None = None, on_checked=None) -> dict[Path, AudioInfo | AudioRejected]:
    """Validate many files, each distinct file once (rows that share a file share its check). `files`:
    (path, name for messages), the paths resolved already if `resolved`; the answer maps each resolved path
    to its AudioInfo or to the AudioRejected naming it (the first name given). `on_checked()` is called
    after each file (a job's progress); if it raises, the checks not started yet are dropped and the
    exception goes on. `stage`: see inspect_audio.

    Short files named .wav are checked in the calling thread (and, when there are many, in a checker
    process beside it: _check_short_wavs): such a WAV is read from its header and hashed in tens of
    microseconds, and threads contending for the GIL would make that slower, not faster. Longer ones
    (hashing them runs outside the GIL) and other formats (which wait on ffprobe and ffmpeg) are checked
    side by side. The name only chooses the thread: what a file is, and so how it is checked, is decided
    from its bytes either way."""
    names: dict[Path, str] = {}
    given: set = set()
    for path, name in files:
        if path not in given:  # rows sharing a file name it alike: resolve it once
            given.add(path)
            names.setdefault(path if resolved else Path(path).resolve(), name)
    items = list(names.items())
    inline = {path for path, _ in items if _short_wav(path)}
    pooled = [item for item in items if item[0] not in inline]

    def check(path: Path, name: str) -> AudioInfo | AudioRejected:
        try:
            return inspect_audio(path, name=name, stage=stage)
        except AudioRejected as exc:
            return exc

    def check_slice(start: int) -> list[AudioInfo | AudioRejected]:
        # Slices of files per task: a future per file would cost as much as reading a short clip's header.
        return [check(path, name) for path, name in pooled[start:start + _SLICE]]

    pool = ThreadPoolExecutor(max_workers=threads or min(8, (os.cpu_count() or 2) * 2))
    results: dict[Path, AudioInfo | AudioRejected] = {}
    try:
        side_by_side = pool.map(check_slice, range(0, len(pooled), _SLICE))
        _check_short_wavs([item for item in items if item[0] in inline], check, stage=stage,
                          on_checked=on_checked, results=results)
        outcomes = (outcome for done in side_by_side for outcome in done)
        for (path, _), outcome in zip(pooled, outcomes, strict=True):
            results[path] = outcome
            if on_checked is not None:
                on_checked()
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)  # a cancelled job stops within the slices in flight
        raise
    pool.shutdown()
    if stage is not None:
        stage.write_back()
    return {path: results[path] for path, _ in items}


INLINE_CHECK_BYTES = 1 << 20  # about 30 s of 16 kHz mono speech
CHECKER_MIN_FILES = 1000  # fewer are checked sooner than a checker process starts (about 20 ms)
_CHECKER_SLICE = 128  # files per request to the checker process


def _check_short_wavs(items: list[tuple[Path, str]], check, *, stage: Staging | None, on_checked,
                      results: dict) -> None:
    """Check short WAVs in the calling thread and, when there are many and more than one core, in a
    checker process (wavcheck) too: both take slices from one queue, so neither waits on the other. What
    the checker accepted becomes an AudioInfo here; a file it did not accept is checked here again, so
    inspect_audio says what is wrong with it, and so are the slices it leaves if it dies."""
    slices = deque(items[start:start + _CHECKER_SLICE] for start in range(0, len(items), _CHECKER_SLICE))
    checked_there: queue.SimpleQueue = queue.SimpleQueue()
    feeder = None
    if len(items) >= CHECKER_MIN_FILES and _usable_cores() > 1:
        max_bytes = min(settings.AUDIO_MAX_BYTES, READ_WHOLE_BYTES)
        feeder = threading.Thread(target=_feed_checker, args=(slices, checked_there, stage, max_bytes),
                                  name="audio-checker-feeder", daemon=True)
        feeder.start()

    def done(path: Path, outcome) -> None:
        results[path] = outcome
        if on_checked is not None:
            on_checked()  # in this thread: a job's progress writes with this thread's connection

    def check_here() -> None:
        while True:
            try:
                batch = slices.popleft()
            except IndexError:
                return
            for path, name in batch:
                done(path, check(path, name))
            take_theirs()

    def take_theirs() -> None:
        while not checked_there.empty():
            batch, answers = checked_there.get()
            for (path, name), answer in zip(batch, answers, strict=True):
                done(path, check(path, name) if answer is None else _checker_info(answer))

    try:
        check_here()
        if feeder is not None:
            feeder.join()
            check_here()  # what a checker that died left
        take_theirs()
    finally:
        if feeder is not None and feeder.is_alive():  # on an error here (a cancelled job)
            slices.clear()  # the feeder stops after the slice in flight, whose copies it hands to `stage`
            feeder.join()


def _feed_checker(slices: deque, checked_there: queue.SimpleQueue, stage: Staging | None, max_bytes: int) -> None:
    """Hand slices to a checker process until none are left; each answer goes to `checked_there`, and
    the copies it staged to `stage` at once (discarded with the rest if the import stops)."""
    root, suffix, mode = stage.checker_options() if stage is not None else ("-", ".part", "-")
    try:
        # -I -S: the standard library only (wavcheck needs nothing else), so it starts in milliseconds.
        checker = subprocess.Popen([sys.executable, "-I", "-S", wavcheck.__file__, str(max_bytes), root, suffix, mode],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    except (OSError, ValueError) as exc:
        log.warning("no audio checker process (%s): the importing thread checks every file", exc)
        return
    batch = None
    try:
        while True:
            try:
                batch = slices.popleft()
            except IndexError:
                break
            pickle.dump([os.fsencode(path) for path, _ in batch], checker.stdin)
            checker.stdin.flush()
            answers = pickle.load(checker.stdout)
            if stage is not None:
                for answer in answers:
                    if answer is not None and answer[5] is not None:
                        stage.adopt(answer[0], answer[5])
            checked_there.put((batch, answers))
            batch = None
    except Exception:
        log.warning("the audio checker process stopped (exit code %s): the importing thread checks the rest",
                    checker.poll(), exc_info=True)
        if batch is not None:
            slices.appendleft(batch)
    finally:
        with contextlib.suppress(OSError):
            checker.stdin.close()  # its end of input: it exits
        try:
            checker.wait(timeout=10)
        except subprocess.TimeoutExpired:
            checker.kill()
            checker.wait()
        if batch is not None and stage is not None:
            stage.sweep(suffix)  # the copies of the slice it did not answer for


def _usable_cores() -> int:
    """The cores this process may run on (a container's or a taskset's, not the machine's)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _checker_info(answer: tuple) -> AudioInfo:
    sha256, held, sample_rate, channels, size, _ = answer
    return _wav_info(sample_rate, channels, held, size, sha256, stored_as_is=True)


def _short_wav(path: Path) -> bool:
    if path.suffix.lower() != ".wav":
        return False
    try:
        return os.stat(path).st_size <= INLINE_CHECK_BYTES
    except OSError:
        return True  # inspect_audio says what is wrong with it



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


def _wav_header(path: Path) -> WavHeader | None:
    """The fmt and data chunks of a RIFF/WAVE file; None for anything else, including a header that is
    cut short or inconsistent."""
    with open(path, "rb") as fh:
        return wavcheck.read_header(fh)


def _wav_declared_seconds(path: Path) -> float | None:
    """The duration a WAV's data chunk promises (ffprobe estimates it from the file's length instead)."""
    header = _wav_header(path)
    if header is None or header.data_size in (0, 0xFFFFFFFF):
        return None
    return header.data_size / header.byte_rate


def _encoder_slack(stream: dict) -> float:
    """How much shorter than its header says a whole stream decodes: a lossy encoder's delay (ffprobe's
    start_time, from the LAME/Xing tag an MP3 encoder writes), which the decoder drops, and for MP3 up to
    one frame of padding at the end. A 1 s 16 kHz MP3 made by ffmpeg promises 1.08 s: 0.069 s of delay,
    0.01 s of padding."""
    try:
        delay = max(0.0, float(stream.get("start_time") or 0))
    except (TypeError, ValueError):
        delay = 0.0
    if stream.get("codec_name") != "mp3":
        return delay
    try:
        rate = int(stream.get("sample_rate") or 0)
    except (TypeError, ValueError):
        rate = 0
    # An MPEG-1 Layer III frame holds 1152 samples (32 to 48 kHz); MPEG-2 and 2.5 frames hold 576.
    return delay + ((1152 if rate >= 32000 else 576) / rate if rate > 0 else 0.0)


def _format_name(probe: dict, path: Path) -> str:
    name = probe.get("format", {}).get("format_name", "")
    first = name.split(",")[0] if name else ""
    if first in {"mov", "mp4"}:
        return "m4a"
    return first or path.suffix.lstrip(".").lower()
