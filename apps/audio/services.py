"""Audio import: validation (a PCM WAV from its header, anything else with ffprobe and ffmpeg through
pydub), content-addressed storage, conversion.

What is stored is the audio without its metadata (a WAV's LIST/INFO and id3 chunks, ID3, Vorbis comments,
MP4 atoms, cover art, chapters): a tag can carry the transcript or the system's name, which would reach a
listener in the bytes they download. An asset's sha256 is of the stored bytes, so it is also the hash of
what is served.

Stored files are written to a temporary name, checked (size and sha256), then renamed into place, so a
content-addressed name only ever holds the bytes it names; a file already there is reused only if its hash
matches. Storing a file, and deciding to delete one, happen under a lock on its content hash (a PostgreSQL
advisory lock, held until the storing transaction ends), so a file that a committed asset names is never
deleted.

Every import runs inside `atomic_import()`: database rows roll back with the transaction and files written
to storage during it are deleted (unless another import's asset names them meanwhile), so a failed import
leaves nothing behind. A process killed mid-import leaves at most unnamed files: `audit_audio` (and beat)
removes them."""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
import functools
import glob
import hashlib
import io
import logging
import os
import pickle
import queue
import stat
import subprocess
import sys
import tempfile
import threading
import uuid
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from django.conf import settings
from django.core.files.base import File
from django.core.files.storage import default_storage
from django.db import connection, transaction
from django.utils import timezone
from pydub import AudioSegment
from pydub.exceptions import CouldntDecodeError
from pydub.utils import mediainfo_json

from apps.audio import wavcheck
from apps.audio.models import AudioAsset, _asset_path
from apps.audio.selectors import asset_file_problems, orphan_files, stored_file_problem
from apps.audio.wavcheck import KEPT_CHUNKS, MAX_CHUNKS, SIZED_CODECS, WavHeader
from apps.core.bulk import insert_rows
from apps.core.errors import FileRefused
from apps.core.tabular import refuse

log = logging.getLogger(__name__)

AUDIO_EXTENSIONS = {".wav", ".mp3", ".flac", ".ogg", ".opus", ".m4a", ".webm", ".aac"}


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
    # checked against sha256 on the way (see _keep_files). About the file, not the audio: not compared.
    stored_as_is: bool = field(default=False, compare=False)


# The files (storage name, sha256) the current atomic_import() wrote, to discard if it rolls back.
_written_files: contextvars.ContextVar[list[tuple[str, str]] | None] = contextvars.ContextVar("written_files", default=None)


@contextmanager
def atomic_import() -> Iterator[None]:
    """A transaction that also removes the audio files it stored when it rolls back, except a file that
    another import's asset names meanwhile (see discard_unnamed_files). Nested inside another one, its
    files become the outer one's when it succeeds, so the outer rollback removes them too."""
    with _discarding_written_files(), transaction.atomic():
        yield


@contextmanager
def _discarding_written_files() -> Iterator[None]:
    outer = _written_files.get()
    written: list[tuple[str, str]] = []
    token = _written_files.set(written)
    try:
        yield
    except BaseException:
        _written_files.reset(token)
        token = None
        discard_unnamed_files(written)
        raise
    else:
        if outer is not None:
            outer.extend(written)
    finally:
        if token is not None:
            _written_files.reset(token)


@contextmanager
def _storing(digests) -> Iterator[None]:
    """Where files are stored: on PostgreSQL, a transaction holding the locks of their contents until it
    ends, so nobody deletes a file before the asset naming it is committed. Elsewhere (SQLite: no such
    locks, and its IMMEDIATE transactions hold the whole database) the files are copied outside a
    transaction, so a page or a cancel request never waits for a copy; either way a failure discards them."""
    if connection.vendor == "postgresql":
        with atomic_import():
            _lock_contents(digests)
            yield
    else:
        with _discarding_written_files():
            yield


def discard_unnamed_files(files: list[tuple[str, str]]) -> list[str]:
    """Delete each stored file (name, sha256) that no asset names, deciding under the lock of its content,
    so an import storing the same bytes (it holds that lock until it commits) never loses its file. A file
    whose lock another import holds is left alone: that import may commit an asset naming it, and if it
    does not, the file is an orphan that `audit_audio` removes. Returns the names deleted. Never raises
    (it runs while an exception is on its way): a failure leaves an orphan and is logged."""
    deleted = []
    for name, digest in files:
        try:
            with transaction.atomic():
                if not _try_lock_content(digest) or AudioAsset.objects.filter(file=name).exists():
                    continue
                default_storage.delete(name)
                deleted.append(name)
        except Exception:
            log.exception("could not discard %s; audit_audio will find it as an orphan", name)
    return deleted


# PostgreSQL advisory locks, in the two-key space (which never meets the one-key space other code may use):
# the first key says "audio content", the second is 32 bits of the sha256. PostgreSQL's lock table holds a
# few thousand locks for all sessions together (max_locks_per_transaction x connections), so a store of
# many files (an import of 100,000 clips in one transaction) cannot hold a lock per file: it locks buckets
# of contents instead (the first 10 bits of the key, class "SORB"), exclusively. A store of a few files
# holds its buckets shared and its contents exclusively, so two small stores wait for each other only on
# the same content, and either waits for a large store that has one of its buckets.
_LOCK_CLASS = 0x534F5249  # "SORI"
_BUCKET_CLASS = 0x534F5242  # "SORB"
CONTENT_LOCKS_MAX = 1000  # more contents than this in one store: bucket locks (at most 1,024)


def _lock_key(digest: str) -> int:
    value = int(digest[:8], 16) if len(digest) >= 8 and all(c in "0123456789abcdef" for c in digest[:8]) else (
        int(hashlib.sha256(digest.encode()).hexdigest()[:8], 16))
    return value - (1 << 32) if value >= 1 << 31 else value


def _bucket(key: int) -> int:
    return (key % (1 << 32)) >> 22


# Takes the locks of the keys in ascending order, one statement for all (OFFSET 0 keeps the ordered
# subquery from being flattened, so they are taken row by row in that order).
_LOCK_IN_ORDER = "SELECT count({fn}(%s, key)) FROM (SELECT unnest(%s::integer[]) AS key ORDER BY 1 OFFSET 0) AS ordered"
# The same for a list of (class, key, shared) taken in the list's order, in one round trip: a small store's
# buckets (shared), then its contents (exclusive).
_LOCK_SHARED_THEN_EXCLUSIVE = (
    "SELECT count(CASE WHEN shared THEN pg_advisory_xact_lock_shared(class, key) ELSE pg_advisory_xact_lock(class, key) END) "
    "FROM (SELECT * FROM unnest(%s::integer[], %s::integer[], %s::boolean[]) WITH ORDINALITY AS t(class, key, shared, n) "
    "ORDER BY n OFFSET 0) AS ordered"
)


def _lock_contents(digests) -> None:
    """Hold the content locks of these hashes until the current transaction ends: buckets first, then
    contents, each in ascending order (so two imports never deadlock on them). Other databases (SQLite)
    serialise writers on their own."""
    if connection.vendor != "postgresql":
        return
    keys = sorted({_lock_key(d) for d in digests})
    if not keys:
        return
    buckets = sorted({_bucket(k) for k in keys})
    with connection.cursor() as cursor:
        if len(keys) > CONTENT_LOCKS_MAX:
            cursor.execute(_LOCK_IN_ORDER.format(fn="pg_advisory_xact_lock"), [_BUCKET_CLASS, buckets])
            return
        classes = [_BUCKET_CLASS] * len(buckets) + [_LOCK_CLASS] * len(keys)
        cursor.execute(_LOCK_SHARED_THEN_EXCLUSIVE, [classes, buckets + keys, [True] * len(buckets) + [False] * len(keys)])


def _try_lock_content(digest: str) -> bool:
    """The content's lock, if nobody storing it holds it: its own and (shared) its bucket's."""
    if connection.vendor != "postgresql":
        return True
    key = _lock_key(digest)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s, %s) AND pg_try_advisory_xact_lock_shared(%s, %s)",
                       [_LOCK_CLASS, key, _BUCKET_CLASS, _bucket(key)])
        return cursor.fetchone()[0]


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


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
        raise AudioRejected(name, "no such file")
    size = st.st_size
    if size == 0:
        raise AudioRejected(name, "the file is empty")
    if size > settings.AUDIO_MAX_BYTES:
        raise AudioRejected(name, f"the file is {size:,} bytes, over the limit of {settings.AUDIO_MAX_BYTES:,} bytes")
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
    slack = wavcheck.TRUNCATION_TOLERANCE_SECONDS + _encoder_slack(streams[0])
    if declared is not None and declared - decoded > slack:
        raise AudioRejected(name, f"the file is truncated: its header promises {declared:.2f} s, it holds {decoded:.2f} s")
    return AudioInfo(
        format=_format_name(probe, path),
        duration_seconds=round(decoded, 3),
        sample_rate=segment.frame_rate,
        channels=segment.channels,
        size_bytes=size,
        sha256=sha256_of(path),
    )


class Staging:
    """Copies of checked files, written while their bytes are still in memory from the check (inspect_audio
    with `stage`), into the folder where storage keeps their content, under `.part` names of this run's own
    that no asset names. Storing a staged file (_keep_files, under the content lock) is then a rename,
    where a copy would read, hash and write it a second time; the bytes staged are the bytes hashed, so a
    file changed since its check cannot slip in. Only a WAV stored as it is, read whole, is staged, and
    nothing on object storage, and a file that cannot be staged (a full disk) is copied when it is stored.
    At the end of its `with` block what was not stored is discarded (a refused manifest, a content stored
    already, a cancel); a process killed meanwhile leaves `.part` orphans, as a killed copy does."""

    def __init__(self):
        try:
            self._root = default_storage.path("")
        except NotImplementedError:  # object storage: uploads go whole, from the source
            self._root = None
        self._suffix = f".{uuid.uuid4().hex}.part"
        self._mode = default_storage.file_permissions_mode
        self._parts: dict[str, str | None] = {}  # sha256 -> its staged copy (None while being written)
        self._lock = threading.Lock()  # checks of long files run side by side
        self._folders: set[str] = set()  # made already
        self._discarded = False  # a copy that arrives after discard() is removed at once

    def __enter__(self) -> Staging:
        return self

    def __exit__(self, *exc) -> None:
        self.discard()

    def write(self, sha256: str, data: bytes) -> None:
        if self._root is None:
            return
        with self._lock:
            if sha256 in self._parts or self._discarded:
                return  # the same bytes under another name: staged once
            self._parts[sha256] = None
        part = None
        try:
            part = wavcheck.stage_copy(data, sha256, root=self._root, suffix=self._suffix, mode=self._mode,
                                       made=self._folders)
        finally:
            if part is None:  # not staged (a full disk: storing copies it, and says what is wrong), or an error
                with self._lock:
                    if self._parts.get(sha256) is None:  # not a checker's copy, adopted meanwhile
                        self._parts.pop(sha256, None)
        if part is not None:
            self.adopt(sha256, part)  # written whole: only now may storing take it

    def checker_options(self) -> tuple[str, str, str]:
        """Where a checker process (wavcheck) stages its copies: the root ("-": it does not stage), a
        suffix of its own (its copy and this process's of one content must not share a name), the mode."""
        return (self._root or "-", f".{uuid.uuid4().hex}.part", "-" if self._mode is None else str(self._mode))

    def adopt(self, sha256: str, part: str) -> None:
        """Take in a copy written whole (by write, or by a checker process): discarded with the rest, or
        removed now if this content has a copy already or the staging was discarded meanwhile (a check
        still running when an import stopped)."""
        with self._lock:
            if self._parts.get(sha256) is None and not self._discarded:
                self._parts[sha256] = part
                return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(part)

    def sweep(self, suffix: str) -> None:
        """Remove what a checker process that ended badly (it died, or its feeder failed) wrote under
        `suffix` and never handed over: the copies of the slice it was checking."""
        if self._root is None:
            return
        with self._lock:
            adopted = set(self._parts.values())
        for part in glob.glob(os.path.join(glob.escape(self._root), "audio", "*", f"*{suffix}")):
            if part not in adopted:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(part)

    def write_back(self) -> None:
        """Start writing the staged copies to disk, in a thread of its own: the flush that must precede
        their renames (_make_durable) then finds them written, instead of waiting seconds for a big
        import's gigabytes while the importing thread could be making its rows. A hint only: errors are
        _make_durable's to report."""
        if self._root is not None and _syncfs() is not None and self._parts:
            threading.Thread(target=_sync_filesystem, args=(self._root,), name="staging-write-back",
                             daemon=True).start()

    def take(self, sha256: str) -> str | None:
        """The staged copy of this content (then the taker's to rename or remove), or None."""
        with self._lock:
            return self._parts.pop(sha256) if self._parts.get(sha256) else None

    def discard(self) -> None:
        with self._lock:
            parts, self._parts, self._discarded = [p for p in self._parts.values() if p], {}, True
        for part in parts:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(part)


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


def import_audio_file(path: Path, *, name: str | None = None) -> tuple[AudioAsset, bool]:
    """Store a validated file once; returns (asset, created). The same bytes imported again (with or
    without their metadata) return the existing asset."""
    path = Path(path)
    name = name or path.name
    digest = sha256_of(path) if path.is_file() else ""
    existing = AudioAsset.objects.filter(sha256=digest).first() if digest else None
    if existing:
        return existing, False
    return _store_checked(path, inspect_audio(path, name=name), name=name)


def _store_checked(path: Path, info: AudioInfo, *, name: str) -> tuple[AudioAsset, bool]:
    """Store a file inspect_audio accepted (`info` describes its stored form), without looking at it again."""
    with stored_form(path, format=info.format, name=name) as kept:
        return _store(kept, info, name=name)


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
    """Import every audio file under `folder`. All files are validated first (side by side, each looked at
    once: the check's result is what is stored); if any is refused, the AudioRejected problems are raised
    together (one FileRefused) and nothing is stored."""
    files = [(path, str(path.relative_to(folder))) for path in find_audio_files(folder)]
    if not files:
        raise FileRefused(f"no audio files ({', '.join(sorted(AUDIO_EXTENSIONS))})", file=str(folder))
    checked = inspect_many(files)
    refuse([problem for outcome in checked.values() if isinstance(outcome, AudioRejected) for problem in outcome.problems])
    if progress:
        progress.set_total(len(files), "Storing audio")
    assets = []
    with atomic_import():
        for path, name in files:
            asset, _ = _store_checked(path, checked[path.resolve()], name=name)
            assets.append(convert_to_16k_mono(asset) if convert else asset)
            if progress:
                progress.advance(message=name)
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
    info = AudioInfo("wav", round(len(segment) / 1000, 3), 16000, 1, len(data), hashlib.sha256(data).hexdigest())
    stem = Path(asset.original_name or asset.sha256).stem
    return _store_bytes(data, info, name=f"{stem}.16k.wav", converted_from=asset)


def store_generated_wav(data: bytes, *, name: str, duration_seconds: float, sample_rate: int, channels: int) -> AudioAsset:
    """Store a WAV that Sori wrote itself (the speech stage's joined audio): its format and length are known,
    so it skips the ffprobe validation an import needs. The same bytes stored again return the existing asset."""
    info = AudioInfo("wav", round(duration_seconds, 3), sample_rate, channels, len(data), hashlib.sha256(data).hexdigest())
    return _store_bytes(data, info, name=name)


def _store_bytes(data: bytes, info: AudioInfo, *, name: str, converted_from: AudioAsset | None = None) -> AudioAsset:
    existing = AudioAsset.objects.filter(sha256=info.sha256).first()
    if existing:
        return existing
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "audio"
        path.write_bytes(data)
        return _store(path, info, name=name, converted_from=converted_from)[0]


def _store(kept: Path, info: AudioInfo, *, name: str, converted_from: AudioAsset | None = None) -> tuple[AudioAsset, bool]:
    """Store one file (its stored form, `kept`) and its asset row, under the lock of its content (see
    _storing); an asset of the same bytes committed meanwhile (by an import this one waited for) is
    returned instead."""
    with _storing([info.sha256]):
        existing = AudioAsset.objects.filter(sha256=info.sha256).first()
        if existing:
            return existing, False
        asset = _new_asset(info, original_name=name, converted_from=converted_from)
        asset.file.name = _keep_file(kept, _asset_path(asset, name), info, name=name)
        with transaction.atomic():
            asset.save()
        return asset, True


def _new_asset(info: AudioInfo, *, original_name: str, converted_from: AudioAsset | None = None) -> AudioAsset:
    return AudioAsset(
        sha256=info.sha256, original_name=original_name[:300], format=info.format,
        duration_seconds=info.duration_seconds, sample_rate=info.sample_rate, channels=info.channels,
        size_bytes=info.size_bytes, converted_from=converted_from,
    )


def store_validated(files: list[tuple[Path, AudioInfo, str]], *, staged: Staging | None = None) -> dict[str, AudioAsset]:
    """Store files already validated (inspect_many), each distinct content once: one query finds what is
    stored already, the new files are written side by side (or taken from `staged`) and made durable
    together (_keep_files), one bulk insert adds their assets, all under the content locks (see _storing;
    taken in hash order, so two imports of the same files wait for each other and never deadlock).
    `files`: (path, info, name). Returns sha256 -> asset. Inside atomic_import(), a failure later removes
    the files written here."""
    by_digest: dict[str, tuple[Path, AudioInfo, str]] = {}
    for path, info, name in files:
        by_digest.setdefault(info.sha256, (path, info, name))
    with _storing(by_digest):
        assets = AudioAsset.objects.in_bulk(list(by_digest), field_name="sha256")
        new = []
        for digest in sorted(by_digest):
            if digest not in assets:
                path, info, name = by_digest[digest]
                new.append((_new_asset(info, original_name=name), path, info, name))
        if new:
            names = _keep_files([(path, _asset_path(asset, name), info, name) for asset, path, info, name in new],
                                staged=staged)
            for (asset, *_), stored_name in zip(new, names, strict=True):
                asset.file.name = stored_name
            now = timezone.now()
            for asset, *_ in new:
                asset.created_at = now
            with transaction.atomic():  # one statement on PostgreSQL; several elsewhere
                ids = dict(insert_rows(AudioAsset, _ASSET_COLUMNS, [
                    tuple(getattr(asset, c) if c != "file" else asset.file.name for c in _ASSET_COLUMNS)
                    for asset, *_ in new
                ], returning=("sha256", "id")))
            for asset, *_ in new:
                asset.pk = ids[asset.sha256]
                asset._state.adding = False
                assets[asset.sha256] = asset
    return assets


_ASSET_COLUMNS = ("public_id", "file", "sha256", "original_name", "format", "duration_seconds", "sample_rate",
                  "channels", "size_bytes", "converted_from_id", "created_at")
# Files copied side by side, one thread per core: copying into the page cache costs CPU (in the kernel, outside
# the GIL) more than it waits on the disk, and more threads than cores only take turns for the GIL (5,000
# short clips stored in 0.7 s with 2 threads on 2 cores, 1.0 s with 8).
STORE_THREADS = max(2, os.cpu_count() or 2)


def _keep_files(files: list[tuple[Path, str, AudioInfo, str]], *, staged: Staging | None = None) -> list[str]:
    """_keep_file for many files (path, target, info, name) at once; returns their stored names. On a
    filesystem each new file is copied to a `.part` name and checked as _keep_file does, several at a time
    (or taken from `staged`, written from the bytes its check hashed); then all of them are made durable
    together (_make_durable: one flush, not one per file) and only then renamed into place, so a
    content-addressed name still only ever holds the bytes it names. Call under the content locks. A
    failure removes the `.part` files; the files already renamed are the caller's atomic_import()'s to
    discard."""
    try:
        default_storage.path("audio")
    except NotImplementedError:  # object storage: each upload appears whole or not at all
        return [_keep_in_storage(path, target, info, name) for path, target, info, name in files]
    finals = [default_storage.path(target) for _, target, _, _ in files]
    for folder in {os.path.dirname(final) for final in finals}:
        os.makedirs(folder, exist_ok=True)
    parts: list[str] = []
    suffix = f".{uuid.uuid4().hex}.part"  # one run's own temporary names
    mode = default_storage.file_permissions_mode

    def copy(path: Path, part: str, info: AudioInfo, name: str) -> None:
        if info.stored_as_is:  # the file is its own stored form: copied as it is, its hash checked on the way
            _copy_checked(path, Path(part), info, name=name, sync=False, mode=mode)
        else:
            with stored_form(path, format=info.format, name=name) as kept:
                _copy_checked(kept, Path(part), info, name=name, sync=False, mode=mode)

    placed: list[tuple[str, str] | None] = []  # per file: (the part to rename, its final name), or None
    to_copy: list[tuple[Path, str, AudioInfo, str]] = []
    try:
        for (path, target, info, name), final in zip(files, finals, strict=True):
            if _reusable(target, info, exists=os.path.lexists(final)):
                placed.append(None)  # already there, whole (a staged copy is left to its Staging to discard)
                continue
            part = staged.take(info.sha256) if staged is not None else None
            if part is None:
                part = final + suffix
                to_copy.append((path, part, info, name))
            parts.append(part)  # from here on this call's to rename or remove
            placed.append((part, final))
        if to_copy:
            # Slices of files per task: a future per file would cost more than copying a short clip.
            with ThreadPoolExecutor(max_workers=max(1, min(STORE_THREADS, len(to_copy) // _SLICE))) as pool:
                list(pool.map(lambda start: [copy(*args) for args in to_copy[start:start + _SLICE]],
                              range(0, len(to_copy), _SLICE)))
        _make_durable([done[0] for done in placed if done is not None])
        for (_, target, info, _), done in zip(files, placed, strict=True):
            if done is not None:
                os.replace(*done)
                _remember_written(target, info.sha256)
        parts.clear()  # all of them renamed into place
    finally:
        for part in parts:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(part)
    return [target for _, target, _, _ in files]


_SLICE = 32  # files per task of _keep_files and inspect_many


def _make_durable(paths: list[Path]) -> None:
    """Flush these written files to disk before they are renamed into place. On Linux one syncfs of their
    filesystem does it for all of them (one journal commit, where an fsync per file costs a commit each);
    elsewhere, or if it reports an error, each file is fsynced, several at a time."""
    if not paths:
        return
    if _syncfs() is not None:
        devices = {}
        for folder in {os.path.dirname(path) for path in paths}:  # a file is on its folder's filesystem
            devices.setdefault(os.stat(folder).st_dev, folder)
        if all([_sync_filesystem(folder) for folder in devices.values()]):  # a list: every one is flushed
            return

    def fsync(path: Path) -> None:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    with ThreadPoolExecutor(max_workers=min(STORE_THREADS, len(paths))) as pool:
        list(pool.map(fsync, paths))


def _sync_filesystem(folder: str) -> bool:
    """syncfs() of the filesystem holding `folder`: whether it succeeded."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return False
    try:
        return _syncfs()(fd) == 0
    finally:
        os.close(fd)


@functools.cache
def _syncfs():
    """libc's syncfs(fd) (Linux), or None."""
    if sys.platform != "linux":
        return None
    try:
        return getattr(ctypes.CDLL(None, use_errno=True), "syncfs", None)
    except OSError:
        return None


# --- what is stored: the audio without its metadata ---------------------------------------------------

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
        raise AudioRejected(name, f"the WAV has more than {MAX_CHUNKS:,} chunks")
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
    base = [
        AudioSegment.converter, "-nostdin", "-v", "error", "-y", "-i", str(path),
        "-map", "0:a", "-map_metadata", "-1", "-map_chapters", "-1", "-c", "copy",
        "-fflags", "+bitexact", "-flags:a", "+bitexact",
    ]
    attempts = [_MUXERS.get(format, ["-f", format])]
    if format == "matroska":
        attempts.append(["-f", "matroska"])
    error = ""
    for muxer in attempts:
        try:
            run = subprocess.run([*base, *muxer, str(out)], capture_output=True, timeout=600, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            error = str(exc)
            continue
        if run.returncode == 0 and out.is_file() and out.stat().st_size > 0:
            return
        error = run.stderr.decode(errors="replace")
    raise AudioRejected(name, f"its metadata could not be removed ({_first_line(Exception(error))})")


# --- writing to storage -------------------------------------------------------------------------------


def _reusable(target: str, info: AudioInfo, *, exists: bool) -> bool:
    """Whether the file already at `target` (if `exists`) can stand for the asset: only if its bytes hash
    to the asset's sha256 (a killed import of an older Sori could leave a truncated one)."""
    if not exists:
        return False
    if stored_file_problem(target, size_bytes=info.size_bytes, sha256=info.sha256) is None:
        return True
    log.warning("%s does not hold the bytes its name promises; storing them again", target)
    return False


def _keep_file(kept: Path, target: str, info: AudioInfo, *, name: str) -> str:
    """Put the file `kept` (the stored form) at its content-addressed name `target` and return the name.
    Call under the content lock. A file already there is reused only if its bytes hash to the asset's
    sha256 (a killed import of an older Sori could leave a truncated one); otherwise it is replaced. The
    bytes go to a temporary name first and are checked (size and sha256) before an atomic rename, so a
    process killed meanwhile leaves only a `.part` file that no asset names. On object storage (S3) an
    upload appears whole or not at all, so the checked copy is uploaded under its name directly."""
    if _reusable(target, info, exists=default_storage.exists(target)):
        return target
    try:
        final = Path(default_storage.path(target))
    except NotImplementedError:
        final = None
    if final is not None:
        final.parent.mkdir(parents=True, exist_ok=True)
        part = final.with_name(f"{final.name}.{uuid.uuid4().hex}.part")
        try:
            _copy_checked(kept, part, info, name=name, mode=default_storage.file_permissions_mode)
            os.replace(part, final)
        finally:
            part.unlink(missing_ok=True)
        _remember_written(target, info.sha256)
        return target
    return _upload_checked(kept, target, info, name=name)


def _keep_in_storage(path: Path, target: str, info: AudioInfo, *, name: str) -> str:
    """_keep_file on object storage, from the original file (its stored form is made here)."""
    if _reusable(target, info, exists=default_storage.exists(target)):
        return target
    with stored_form(path, format=info.format, name=name) as kept:
        return _upload_checked(kept, target, info, name=name)


def _upload_checked(kept: Path, target: str, info: AudioInfo, *, name: str) -> str:
    with tempfile.TemporaryDirectory(prefix="sori-audio-") as tmp:
        checked = Path(tmp) / "checked"
        _copy_checked(kept, checked, info, name=name)
        if default_storage.exists(target):
            default_storage.delete(target)  # the wrong bytes found above
        with open(checked, "rb") as fh:
            saved = default_storage.save(target, File(fh, name=Path(target).name))
    _remember_written(saved, info.sha256)
    if saved != target:
        raise RuntimeError(f"{target}: the storage saved it as {saved}")
    return saved


def _copy_checked(source: Path, dest: Path, info: AudioInfo, *, name: str, sync: bool = True,
                  mode: int | None = None) -> None:
    """Copy, hashing what is written, give the copy its `mode` (if any), and flush it to disk (unless
    `sync` is False: the caller flushes it, before the rename); refuse bytes that are not the ones inspected."""
    digest, size = hashlib.sha256(), 0
    fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    with open(fd, "wb") as out, open(source, "rb") as src:
        for block in iter(lambda: src.read(1 << 20), b""):
            _write_block(out, block)
            digest.update(block)
            size += len(block)
        out.flush()
        if mode is not None:
            os.fchmod(fd, mode)
        if sync:
            os.fsync(out.fileno())
    if size != info.size_bytes or digest.hexdigest() != info.sha256:
        raise AudioRejected(name, "the file changed after it was checked; import it again")


def _write_block(out, block: bytes) -> None:
    out.write(block)  # its own function: the kill test's process stalls here, mid-file (tests/fakes/audio_import.py)


def _remember_written(name: str, digest: str) -> None:
    written = _written_files.get()
    if written is not None:
        written.append((name, digest))


# --- audit: orphans and damaged files ----------------------------------------------------------------

ORPHAN_MIN_AGE_SECONDS = 3600  # a younger unnamed file may belong to an import still running (SQLite has no locks)


@dataclass
class AudioAudit:
    orphans: list[str]  # files no asset names
    removed: list[str]  # of those, the ones deleted
    problems: list[tuple[AudioAsset, str]]  # assets whose file is missing or wrong

    def lines(self) -> list[str]:
        return [
            *(f"orphan{' (removed)' if name in self.removed else ''}: {name}" for name in self.orphans),
            *(f"asset {asset.public_id} ({asset.original_name or asset.sha256[:12]}, {asset.file.name}): {problem}"
              for asset, problem in self.problems),
        ]


def audit_audio_storage(*, remove_orphans: bool = False, check_hash: bool = True,
                        min_age_seconds: int = ORPHAN_MIN_AGE_SECONDS) -> AudioAudit:
    """List the files no asset names (and with `remove_orphans` delete those older than `min_age_seconds`,
    each under its content lock, so a file an import is storing right now is left alone), and report the
    assets whose file is missing or does not hold the bytes of its sha256. Damaged assets are reported,
    never changed: importing the same audio again does not repair them (it finds the asset by its hash);
    restore the file from a backup."""
    orphans = orphan_files()
    removed = remove_orphan_files(orphans, min_age_seconds=min_age_seconds) if remove_orphans else []
    problems = list(asset_file_problems(check_hash=check_hash))
    for asset, problem in problems:
        log.error("audio asset %s (%s): %s", asset.public_id, asset.file.name, problem)
    return AudioAudit(orphans=orphans, removed=removed, problems=problems)


def remove_orphan_files(names: list[str], *, min_age_seconds: int = ORPHAN_MIN_AGE_SECONDS) -> list[str]:
    now = timezone.now()
    old_enough = []
    for name in names:
        try:
            modified = default_storage.get_modified_time(name)
        except FileNotFoundError:
            continue  # gone meanwhile
        except NotImplementedError:
            modified = None
        if modified is None or (now - modified).total_seconds() >= min_age_seconds:
            # The content hash is the start of the name (a .part file's too); a foreign name locks on itself.
            old_enough.append((name, Path(name).name.split(".")[0]))
    return discard_unnamed_files(old_enough)


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


def _first_line(exc: Exception) -> str:
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return lines[-1][:200] if lines else type(exc).__name__
