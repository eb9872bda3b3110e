"""Writes of the releases app: start a build, run it (the job's body), publish, upload to the Hub.

A build writes into a temporary folder, zips it and stores the archive; only then, in one transaction, the
release's files and items are recorded and it becomes `built`. Publishing freezes it for good."""

import hashlib
import logging
import re
import tempfile
from pathlib import Path

from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.db.models import Count, Sum
from django.utils import timezone
from django.utils.translation import gettext

from apps.core import limits
from apps.core.archives import extract_zip, zip_folder
from apps.core.errors import Conflict, InvalidInput, NotFound
from apps.core.hashing import sha256_of
from apps.core.limits import bounded
from apps.jobs.services import start_job
from apps.releases import licences
from apps.releases.building import content_hash, write_release
from apps.releases.kinds import SourceMissing, registry
from apps.releases.models import HubUpload, Release, ReleaseFile, ReleaseItem, ReleaseStatus

log = logging.getLogger(__name__)

# ASCII digits only ([0-9], not \d): the API's schema publishes these patterns.
NAME_PATTERN = r"^[a-z0-9][a-z0-9-]{0,99}$"
VERSION_PATTERN = r"^((0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)|[1-9][0-9]*)$"
_NAME, _VERSION = re.compile(NAME_PATTERN), re.compile(VERSION_PATTERN)


VERSION_MAX_LENGTH = 40  # Release.version's column; also spares int() a 4,400-digit part


def version_key(version: str) -> tuple[int, ...]:
    if len(version or "") <= VERSION_MAX_LENGTH and _VERSION.match(version or ""):
        return tuple(int(part) for part in version.split("."))
    raise InvalidInput(gettext(
        "version %(version)r: use a semantic version (1.0.0) or a whole number (3)"
    ) % {"version": version}, field="version")


def create_release(*, acting_user, kind: str, source_id: int, name: str, version: str, license: str | None = None,
                   sources: list[dict] | None = None, description: str = "") -> Release:
    """Check everything a build needs, record the release as `building` and start its job."""
    bounded(description, field="description", limit=limits.DESCRIPTION)
    kinds = registry()
    if kind not in kinds:
        raise InvalidInput(gettext(
            "kind %(kind)r: choose one of %(kinds)s"
        ) % {"kind": kind, "kinds": ', '.join(sorted(kinds))}, field="kind")
    if not _NAME.match(name or ""):
        raise InvalidInput(gettext("name %(name)r: lower-case letters, digits and hyphens") % {"name": name}, field="name")
    new_key = version_key(version)
    earlier = [r.version for r in Release.objects.filter(name=name).exclude(status=ReleaseStatus.FAILED)]
    if version in earlier:
        raise Conflict(gettext(
            "%(name)s %(version)s exists already; a correction is a new version"
        ) % {"name": name, "version": version})
    if earlier and len({len(version_key(v)) for v in earlier} | {len(new_key)}) > 1:
        raise InvalidInput(gettext(
            "version %(version)r: %(name)s uses %(earlier)r-style versions"
        ) % {"version": version, "name": name, "earlier": earlier[0]}, field="version")
    newest = max(earlier, key=version_key, default=None)
    if newest and version_key(newest) >= new_key:
        raise InvalidInput(gettext(
            "version %(version)r must be greater than %(name)s's latest, %(newest)s"
        ) % {"version": version, "name": name, "newest": newest}, field="version")
    module = kinds[kind]
    try:
        obj = module.source(source_id)
    except SourceMissing as exc:
        raise NotFound(str(exc)) from None
    license = (license or module.default_license(obj) or "").strip()
    if not license:
        raise InvalidInput(gettext("a %(kind)s release needs a licence (an SPDX identifier)") % {"kind": kind}, field="license")
    sources = sources if sources else module.default_sources(obj)
    licences.check(license, sources)  # LicenceRefused is an InvalidInput naming its field
    try:
        # Durable: the build job starts when this commits, so a caller's transaction must not hold it back.
        with transaction.atomic(durable=True):
            Release.objects.filter(name=name, version=version, status=ReleaseStatus.FAILED).delete()
            release = Release.objects.create(
                name=name, version=version, kind=kind, selection=module.selection(obj), license=license,
                sources=sources, description=description.strip(), built_by=acting_user,
            )
            release.job = start_job(kind="releases.build", title=f"Build {release}", params={"release": release.pk},
                                    acting_user=acting_user)
            release.save(update_fields=["job"])
    except IntegrityError:
        raise Conflict(gettext("%(name)s %(version)s exists already") % {"name": name, "version": version}) from None
    release.refresh_from_db()
    return release


def _archive_name(release: Release) -> str:
    return f"releases/{release.name}/{release.version}/{release.folder}.zip"


def run_build(release: Release, progress) -> dict:
    """The build job's body. Safe to run again: an unpublished release's earlier output is replaced."""
    if release.is_published:
        return {"release": release.pk, "status": release.status}
    Release.objects.filter(pk=release.pk).update(status=ReleaseStatus.BUILDING)
    try:
        with tempfile.TemporaryDirectory(prefix="release-") as tmp:
            folder = Path(tmp) / release.folder
            folder.mkdir()
            written = write_release(release, folder, progress)
            progress.check_cancelled()
            zip_path = Path(tmp) / f"{release.folder}.zip"
            zip_folder(folder, zip_path, prefix=release.folder)
            digest, size = sha256_of(zip_path), zip_path.stat().st_size
            name = _archive_name(release)
            if default_storage.exists(name):
                default_storage.delete(name)
            with open(zip_path, "rb") as fh:
                stored = default_storage.save(name, File(fh, name=Path(name).name))
            with transaction.atomic():
                release.files.all().delete()
                release.items.all().delete()
                ReleaseFile.objects.bulk_create(
                    [ReleaseFile(release=release, path=p, sha256=s, size=n) for p, (s, n) in written.sums.items()],
                    batch_size=2000)
                ReleaseItem.objects.bulk_create([
                    ReleaseItem(release=release, item_id=i.item_id, config=i.config, split=i.split, row=i.row,
                                content_sha256=content_hash(i.row, i.audio_sha256), reason=i.reason,
                                provenance=i.provenance, people=i.people)
                    for i in written.built.items], batch_size=2000)
                Release.objects.filter(pk=release.pk).update(
                    status=ReleaseStatus.BUILT, built_at=timezone.now(), archive=stored, archive_sha256=digest,
                    archive_bytes=size, item_count=len(written.built.items), manifest=written.manifest)
    except BaseException:
        Release.objects.filter(pk=release.pk, status=ReleaseStatus.BUILDING).update(status=ReleaseStatus.FAILED)
        raise
    return {"release": release.pk, "items": len(written.built.items), "archive_sha256": digest, "bytes": size}


def archive_problems(release: Release) -> list[str]:
    """What is wrong with the stored archive: missing, or bytes other than those recorded at build time."""
    if not release.archive or not default_storage.exists(release.archive):
        return [f"{release}: the archive is not stored"]
    problems = []
    with default_storage.open(release.archive, "rb") as fh:
        if hashlib.file_digest(fh, "sha256").hexdigest() != release.archive_sha256:
            problems.append(f"{release.folder}.zip: sha256 differs from the one recorded at build time")
    return problems


class _Unfollowed:
    """Progress for a build that no job row follows (a rebuild check)."""

    def set_total(self, *args, **kwargs) -> None:
        pass

    advance = set_done = save_done = set_total

    def check_cancelled(self) -> None:
        pass


def rebuild_differences(release: Release) -> list[str]:
    """Rebuild `release` from the data it was built from, under its own name and version, into a temporary
    folder, and name every file whose bytes differ from those recorded at build time (the card and
    release.json included). Empty when the release is reproducible."""
    recorded = dict(release.files.values_list("path", "sha256"))
    if not recorded:
        raise Conflict(gettext(
            "%(release)s has no recorded files; only a built release can be rebuilt"
        ) % {"release": release})
    with tempfile.TemporaryDirectory(prefix="rebuild-") as tmp:
        folder = Path(tmp) / release.folder
        folder.mkdir()
        rebuilt = {path: digest for path, (digest, _size) in write_release(release, folder, _Unfollowed()).sums.items()}
    problems = []
    for path in sorted(recorded.keys() | rebuilt.keys()):
        if path not in rebuilt:
            problems.append(f"{path}: in the release but not in the rebuild")
        elif path not in recorded:
            problems.append(f"{path}: in the rebuild but not in the release")
        elif recorded[path] != rebuilt[path]:
            problems.append(f"{path}: the rebuild's bytes differ")
    return problems


def publish_release(*, release: Release, acting_user) -> Release:
    with transaction.atomic():
        locked = Release.objects.select_for_update().get(pk=release.pk)
        if locked.status == ReleaseStatus.PUBLISHED:
            raise Conflict(gettext("%(locked)s is published already") % {"locked": locked})
        if locked.status != ReleaseStatus.BUILT:
            raise Conflict(gettext(
                "%(locked)s is %(status)s; only a built release can be published"
            ) % {"locked": locked, "status": locked.get_status_display().lower()})
        problems = archive_problems(locked)
        if problems:
            raise Conflict("; ".join(problems))
        locked.status = ReleaseStatus.PUBLISHED
        locked.published_at = timezone.now()
        locked.published_by = acting_user
        locked.save(update_fields=["status", "published_at", "published_by"])
    _make_read_only(locked.archive)
    return locked


def _make_read_only(name: str) -> None:
    """On local storage, the published archive's file loses its write bits too (a guard, not the proof: the
    proof is SHA256SUMS and the sha256 recorded on the release)."""
    try:
        path = Path(default_storage.path(name))
    except NotImplementedError:  # remote storage: its own object lock policies apply
        return
    path.chmod(0o444)


def extract(release: Release, out: Path) -> Path:
    """Unpack the stored archive into `out` (the release's files directly inside it) with the one safe zip
    extraction. The files recorded at build bound it exactly: their count and sizes, plus SHA256SUMS (not
    recorded; a line of at most 600 bytes per file), so no ratio guess is needed."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    recorded = release.files.aggregate(count=Count("pk"), size=Sum("size"))
    count = recorded["count"] + 1
    with default_storage.open(release.archive, "rb") as fh:
        extract_zip(fh, out, name=f"{release.folder}.zip", prefix=f"{release.folder}/", max_files=count,
                    max_bytes=(recorded["size"] or 0) + 600 * count, max_ratio=0)
    return out


def upload_to_hub(*, release: Release, acting_user, repo_id: str, token: str | None = None) -> HubUpload:
    """Upload a published release to a Hugging Face dataset repository (settings.HF_ENDPOINT, token from the
    argument or HF_TOKEN)."""
    from huggingface_hub import HfApi  # only here: most deployments never upload

    if not release.is_published:
        raise Conflict(gettext(
            "%(release)s is not published; publish it before uploading"
        ) % {"release": release})
    token = token or settings.HF_TOKEN
    if not token or not repo_id:
        raise InvalidInput(gettext("uploading needs a Hugging Face token (HF_TOKEN) and a repository"), field="repo_id")
    api = HfApi(endpoint=settings.HF_ENDPOINT, token=token)
    with tempfile.TemporaryDirectory(prefix="release-upload-") as tmp:
        folder = extract(release, Path(tmp) / release.folder)
        api.create_repo(repo_id, repo_type="dataset", exist_ok=True)
        commit = api.upload_folder(folder_path=str(folder), repo_id=repo_id, repo_type="dataset",
                                   commit_message=f"{release.name} {release.version}")
    return HubUpload.objects.create(release=release, repo_id=repo_id, commit_url=str(getattr(commit, "commit_url", commit)),
                                    uploaded_by=acting_user)
