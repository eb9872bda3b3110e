"""Background job: importing an uploaded test bundle (a zip with a manifest and its audio), so the paper's
1,000 clips do not have to fit in one web request."""

import tempfile
import zipfile
from pathlib import Path

from django.core.files.storage import default_storage

from apps.jobs.models import Job
from apps.jobs.services import job_handler
from apps.listening.manifest import ManifestRefused

BUNDLE_FOLDER = "listening-imports"


def unpack_bundle(zip_path, folder: Path, *, label: str) -> Path:
    """Unpack a zip holding one manifest (.csv/.jsonl) and the audio it names; returns the manifest path."""
    try:
        with zipfile.ZipFile(zip_path) as zf:
            for member in zf.infolist():
                target = (folder / member.filename).resolve()
                if not target.is_relative_to(folder.resolve()):
                    raise ManifestRefused([f"{label}: {member.filename} would unpack outside the bundle"])
            zf.extractall(folder)
    except zipfile.BadZipFile:
        raise ManifestRefused([f"{label}: not a valid zip file"]) from None
    manifests = sorted(
        p for p in folder.rglob("*") if p.suffix.lower() in (".csv", ".jsonl") and "__MACOSX" not in p.parts
    )
    if len(manifests) != 1:
        found = ", ".join(str(p.relative_to(folder)) for p in manifests) or "none"
        raise ManifestRefused([f"{label}: expected exactly one .csv or .jsonl manifest, found {found}"])
    return manifests[0]


@job_handler("listening.import")
def import_bundle(job, progress):
    """params: bundle (storage name of the uploaded zip), name, label (the upload's file name).
    A refused manifest fails the job with the row errors in result["errors"]; nothing is stored."""
    from apps.listening.services import import_listening_test

    bundle, label = job.params["bundle"], job.params.get("label", "bundle.zip")
    progress.set_total(0, message="Checking the manifest and every audio file")
    try:
        if not default_storage.exists(bundle):  # resumed after a refusal: the upload is gone
            raise ManifestRefused([f"{label}: the uploaded bundle is no longer stored; upload it again"])
        with tempfile.TemporaryDirectory() as tmp, default_storage.open(bundle, "rb") as fh:
            manifest = unpack_bundle(fh, Path(tmp), label=label)
            test = import_listening_test(
                name=job.params["name"], manifest=manifest, user=job.created_by, progress=progress
            )
    except ManifestRefused as refused:
        Job.objects.filter(pk=job.pk).update(result={"errors": refused.errors})
        default_storage.delete(bundle)
        raise
    default_storage.delete(bundle)
    return {"test": test.pk, "name": test.name, "clips": test.clips.regular().count(), "gold": test.clips.gold().count()}
