"""The sha256 of a file on disk: the one helper every app hashes a file with (audio contents, release
files and archives)."""

from __future__ import annotations

import hashlib
from pathlib import Path


def sha256_of(path: Path | str) -> str:
    """The hex sha256 of the file's bytes, read in blocks by hashlib.file_digest (no whole-file read)."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()
