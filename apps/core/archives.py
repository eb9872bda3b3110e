"""One safe way to unpack a zip someone uploaded and one way to zip a folder.

- `extract_zip` refuses (FileRefused) an archive that is not a zip, a member that would land outside the
  target folder, and a zip bomb (too many files, too many bytes, too high a ratio), before writing anything.
- `zip_folder` writes the same bytes for the same files wherever and whenever it runs: entries sorted by
  their POSIX path, each with a fixed date, fixed permissions and a fixed creator. Releases need this (their
  archive's sha256 is recorded); the admin downloads get it for free."""

import io
import stat
import zipfile
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from django.conf import settings
from django.utils.translation import gettext

from apps.core.errors import FileRefused

__all__ = ["extract_zip", "zip_folder", "files_under"]

ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # the earliest date a zip can hold: no clock leaks into the bytes
ZIP_FILE_MODE = 0o100644


def files_under(folder: Path) -> list[Path]:
    """Every file under `folder`, sorted by its POSIX relative path."""
    folder = Path(folder)
    return sorted((p for p in folder.rglob("*") if p.is_file()), key=lambda p: p.relative_to(folder).as_posix())


def zip_folder(folder: Path, target: Path | BinaryIO, *, prefix: str = "") -> None:
    """Zip every file under `folder` into `target` (a path or a binary file), under `prefix/` when given,
    the same bytes for the same files whenever and wherever it runs."""
    folder = Path(folder)
    with zipfile.ZipFile(target, "w") as archive:
        for path in files_under(folder):
            relative = path.relative_to(folder).as_posix()
            info = zipfile.ZipInfo(f"{prefix}/{relative}" if prefix else relative, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix, so the permission bits below are read as such everywhere
            info.external_attr = ZIP_FILE_MODE << 16
            with open(path, "rb") as src, archive.open(info, "w") as dst:
                for block in iter(lambda: src.read(1 << 20), b""):
                    dst.write(block)


# --- unpacking ------------------------------------------------------------------------------------------------
RATIO_FLOOR = 1 << 20  # a member (or archive) unpacking to at most 1 MiB is never refused for its ratio


def extract_zip(
    source: Path | str | BinaryIO,
    folder: Path,
    *,
    name: str,
    max_files: int | None = None,
    max_bytes: int | None = None,
    max_ratio: int | None = None,
    prefix: str = "",
    skip: Iterable[str] = ("__MACOSX", ".DS_Store"),
) -> list[Path]:
    """Unpack a zip into `folder` and return the files written. Refused (FileRefused naming the archive and
    the member, nothing unpacked) when it is not a zip, when a member would land outside `folder` (an
    absolute path, "..", a drive letter, a symbolic link, a name outside `prefix`), when it holds more than
    `max_files` files or more than `max_bytes` uncompressed, or when a member, or the archive as a whole,
    unpacks past 1 MiB to more than `max_ratio` times its compressed size: a zip bomb (settings.ZIP_MAX_FILES,
    ZIP_MAX_BYTES and ZIP_MAX_RATIO by default; max_ratio=0 turns the ratio check off, for an archive whose
    exact size is known). The ratio is judged from the headers before anything is written: zipfile stops a
    member at its declared size (a longer one fails its CRC), and sizes are counted as bytes are written too.
    With `prefix`, members must lie under it and unpack without it."""
    max_files = settings.ZIP_MAX_FILES if max_files is None else max_files
    max_bytes = settings.ZIP_MAX_BYTES if max_bytes is None else max_bytes
    max_ratio = settings.ZIP_MAX_RATIO if max_ratio is None else max_ratio
    skipped = set(skip)
    folder = Path(folder)
    root = folder.resolve()
    try:
        archive_size = _size_of(source)
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError):
        raise FileRefused(gettext("not a zip archive"), file=name) from None
    ratio = _RatioCheck(name, max_ratio, archive_size)
    with archive:
        members, declared = [], 0
        for member in archive.infolist():
            parts = PurePosixPath(member.filename.replace("\\", "/")).parts
            if member.is_dir() or skipped & set(parts):
                continue
            if not member.filename.startswith(prefix):
                raise FileRefused(gettext(
                    "%(filename)s is outside %(prefix)s"
                ) % {"filename": member.filename, "prefix": prefix}, file=name)
            relative = member.filename.removeprefix(prefix)
            target = (root / relative).resolve()
            if (
                relative.startswith(("/", "\\")) or ".." in parts or ":" in member.filename
                or not target.is_relative_to(root)
            ):
                raise FileRefused(gettext(
                    "%(filename)s would unpack outside the archive's folder"
                ) % {"filename": member.filename}, file=name)
            if stat.S_ISLNK(member.external_attr >> 16):
                raise FileRefused(gettext("%(filename)s is a symbolic link") % {"filename": member.filename}, file=name)
            declared += member.file_size
            ratio.member(member, member.file_size)
            ratio.total(member, declared)
            members.append((member, target))
        if len(members) > max_files:
            raise FileRefused(gettext(
                "%(members_count)s files, over the limit of %(max_files)s"
            ) % {"members_count": f"{len(members):,}", "max_files": f"{max_files:,}"}, file=name)
        if declared > max_bytes:
            raise FileRefused(gettext(
                "%(declared)s bytes unpacked, over the limit of %(max_bytes)s"
            ) % {"declared": f"{declared:,}", "max_bytes": f"{max_bytes:,}"}, file=name)
        written, total = [], 0
        try:
            for member, target in members:
                target.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(member) as src, open(target, "wb") as dst:
                    while chunk := src.read(1 << 20):
                        total += len(chunk)
                        if total > max_bytes:
                            raise FileRefused(gettext(
                                "over %(max_bytes)s bytes unpacked"
                            ) % {"max_bytes": f"{max_bytes:,}"}, file=name)
                        dst.write(chunk)
                written.append(target)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, NotImplementedError) as exc:
            _remove([*written, target])
            raise FileRefused(gettext(
                "%(filename)s cannot be unpacked (%(exc)s)"
            ) % {"filename": member.filename, "exc": exc}, file=name) from None
        except FileRefused:
            _remove([*written, target])
            raise
    return written


class _RatioCheck:
    """The zip-bomb check of extract_zip: unpacked bytes against compressed bytes, per member (its header's
    compressed size, at most the archive's) and for the whole archive (its real size, which no header can
    overstate, so overlapping members that reuse one compressed stream are caught too)."""

    def __init__(self, name: str, max_ratio: int, archive_size: int):
        self.name, self.max_ratio, self.archive_size = name, max_ratio, archive_size

    def member(self, member: zipfile.ZipInfo, unpacked: int) -> None:
        compressed = max(1, min(member.compress_size, self.archive_size))
        if self.max_ratio and unpacked > RATIO_FLOOR and unpacked > self.max_ratio * compressed:
            raise FileRefused(
                gettext(
                    "%(filename)s unpacks to %(unpacked)s bytes from %(compress_size)s compressed, over the "
                    "limit of %(max_ratio)sx (SORI_ZIP_MAX_RATIO)"
                ) % {
                    "filename": member.filename,
                    "unpacked": f"{unpacked:,}",
                    "compress_size": f"{member.compress_size:,}",
                    "max_ratio": self.max_ratio,
                }, file=self.name,
            )

    def total(self, member: zipfile.ZipInfo, unpacked: int) -> None:
        if self.max_ratio and unpacked > RATIO_FLOOR and unpacked > self.max_ratio * self.archive_size:
            raise FileRefused(
                gettext(
                    "at %(filename)s the archive unpacks to %(unpacked)s bytes from its %(archive_size)s, "
                    "over the limit of %(max_ratio)sx (SORI_ZIP_MAX_RATIO)"
                ) % {
                    "filename": member.filename,
                    "unpacked": f"{unpacked:,}",
                    "archive_size": f"{self.archive_size:,}",
                    "max_ratio": self.max_ratio,
                }, file=self.name,
            )


def _size_of(source: Path | str | BinaryIO) -> int:
    if isinstance(source, (str, Path)):
        return Path(source).stat().st_size
    position = source.tell()
    size = source.seek(0, io.SEEK_END)
    source.seek(position)
    return size


def _remove(paths: list[Path]) -> None:
    for path in paths:
        path.unlink(missing_ok=True)
