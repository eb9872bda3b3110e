"""Reads over stored audio: which files in storage no asset names (orphans), and which assets' files are
missing or do not hold the bytes their sha256 names. `audit_audio` and the beat task report them."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

from django.core.files.storage import default_storage

from apps.audio.models import AudioAsset

AUDIO_FOLDER = "audio"  # where _asset_path puts every asset's file


def stored_file_problem(name: str, *, size_bytes: int, sha256: str, check_hash: bool = True) -> str | None:
    """What is wrong with a stored file, measured against what its asset says (None: nothing)."""
    if not name or not default_storage.exists(name):
        return "the file is missing"
    size = default_storage.size(name)
    if size != size_bytes:
        return f"the file has {size:,} bytes, not {size_bytes:,}"
    if check_hash:
        with default_storage.open(name, "rb") as fh:
            digest = hashlib.file_digest(fh, "sha256")
        if digest.hexdigest() != sha256:
            return "its bytes do not match its sha256"
    return None


def stored_audio_files(folder: str = AUDIO_FOLDER) -> Iterator[str]:
    """Every file's storage name under the audio folder (filesystem or object storage)."""
    try:
        folders, files = default_storage.listdir(folder)
    except FileNotFoundError:
        return
    for name in sorted(files):
        yield f"{folder}/{name}"
    for sub in sorted(folders):
        yield from stored_audio_files(f"{folder}/{sub}")


def orphan_files() -> list[str]:
    """Files under the audio folder that no asset names: left by an import that was killed or whose
    rollback could not delete them, and `.part` files of a write that never finished."""
    named = set(AudioAsset.objects.values_list("file", flat=True))
    return [name for name in stored_audio_files() if name not in named]


def asset_file_problems(*, check_hash: bool = True) -> Iterator[tuple[AudioAsset, str]]:
    """(asset, what is wrong) for each asset whose file is missing, of the wrong size or (with
    `check_hash`, which reads every file) whose bytes do not hash to its sha256."""
    for asset in AudioAsset.objects.order_by("pk").iterator(chunk_size=500):
        problem = stored_file_problem(
            asset.file.name, size_bytes=asset.size_bytes, sha256=asset.sha256, check_hash=check_hash
        )
        if problem is not None:
            yield asset, problem
