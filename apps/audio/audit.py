"""The audit of stored audio: files no asset names (orphans: what a killed import or a failed discard
leaves), and assets whose file is missing or does not hold the bytes of its sha256. `audit_audio` and
the beat task (workers/audio.py) run it."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from django.core.files.storage import default_storage
from django.utils import timezone

from apps.audio.models import AudioAsset
from apps.audio.selectors import asset_file_problems, orphan_files
from apps.audio.store import discard_unnamed_files

log = logging.getLogger(__name__)

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

