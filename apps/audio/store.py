"""The content-addressed store of audio files: each distinct content once, under a name made of its
sha256 (apps.audio.models._asset_path), holding only the bytes it names.

Stored files are written to a temporary name, checked (size and sha256), then renamed into place, so a
content-addressed name only ever holds the bytes it names; a file already there is reused only if its hash
matches. Storing a file, and deciding to delete one, happen under a lock on its content hash (a PostgreSQL
advisory lock, held until the storing transaction ends: the SQL is in apps.audio.sql), so a file that a
committed asset names is never deleted. Many new files are flushed to disk together before their renames
(one syncfs, not an fsync each), and a big import's checked WAVs are staged while their bytes are still in
memory from the check (Staging), so storing them is a rename.

Every import runs inside `atomic_import()`: database rows roll back with the transaction and files written
to storage during it are deleted (unless another import's asset names them meanwhile), so a failed import
leaves nothing behind. A process killed mid-import leaves at most unnamed files: `audit_audio` (and beat)
removes them (apps.audio.audit)."""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
import functools
import glob
import hashlib
import logging
import os
import sys
import tempfile
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from django.core.files.base import File
from django.core.files.storage import default_storage
from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext

from apps.audio import sql, wavcheck
from apps.audio.info import AudioInfo, AudioRejected
from apps.audio.models import AudioAsset, _asset_path
from apps.audio.selectors import stored_file_problem
from apps.audio.strip import stored_form
from apps.core.bulk import insert_rows

log = logging.getLogger(__name__)

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


_LOCK_CLASS = 0x534F5249  # "SORI"
_BUCKET_CLASS = 0x534F5242  # "SORB"
CONTENT_LOCKS_MAX = 1000  # more contents than this in one store: bucket locks (at most 1,024)


def _lock_key(digest: str) -> int:
    value = int(digest[:8], 16) if len(digest) >= 8 and all(c in "0123456789abcdef" for c in digest[:8]) else (
        int(hashlib.sha256(digest.encode()).hexdigest()[:8], 16))
    return value - (1 << 32) if value >= 1 << 31 else value


def _bucket(key: int) -> int:
    return (key % (1 << 32)) >> 22


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
    if len(keys) > CONTENT_LOCKS_MAX:
        sql.lock_exclusive_in_key_order(_BUCKET_CLASS, buckets)
        return
    sql.lock_in_list_order([(_BUCKET_CLASS, bucket, True) for bucket in buckets]
                           + [(_LOCK_CLASS, key, False) for key in keys])


def _try_lock_content(digest: str) -> bool:
    """The content's lock, if nobody storing it holds it: its own and (shared) its bucket's."""
    if connection.vendor != "postgresql":
        return True
    key = _lock_key(digest)
    return sql.try_lock_exclusive_and_shared((_LOCK_CLASS, key), (_BUCKET_CLASS, _bucket(key)))


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



def store_file(kept: Path, info: AudioInfo, *, name: str, converted_from: AudioAsset | None = None) -> tuple[AudioAsset, bool]:
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


def store_bytes(data: bytes, info: AudioInfo, *, name: str, converted_from: AudioAsset | None = None) -> AudioAsset:
    existing = AudioAsset.objects.filter(sha256=info.sha256).first()
    if existing:
        return existing
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "audio"
        path.write_bytes(data)
        return store_file(path, info, name=name, converted_from=converted_from)[0]


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
        raise AudioRejected(name, gettext("the file changed after it was checked; import it again"))


def _write_block(out, block: bytes) -> None:
    out.write(block)  # its own function: the kill test's process stalls here, mid-file (tests/fakes/audio_import.py)


def _remember_written(name: str, digest: str) -> None:
    written = _written_files.get()
    if written is not None:
        written.append((name, digest))

