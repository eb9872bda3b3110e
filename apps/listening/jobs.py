"""Background job: importing an uploaded test bundle (a zip with a manifest and its audio), so the paper's
1,000 clips do not have to fit in one web request."""

import tempfile
from pathlib import Path

from django.core.files.storage import default_storage
from django.utils.translation import gettext

from apps.core.archives import extract_zip
from apps.core.errors import ApplicationError, FileRefused
from apps.jobs.models import Job
from apps.jobs.services import job_handler
from apps.listening.services import import_listening_test

BUNDLE_FOLDER = "listening-imports"


def unpack_bundle(zip_path, folder: Path, *, label: str) -> Path:
    """Unpack a zip holding one manifest (.csv/.jsonl) and the audio it names; returns the manifest path."""
    files = extract_zip(zip_path, folder, name=label)
    manifests = sorted(p for p in files if p.suffix.lower() in (".csv", ".jsonl"))
    if len(manifests) != 1:
        found = ", ".join(str(p.relative_to(folder.resolve())) for p in manifests) or "none"
        raise FileRefused(gettext(
            "expected exactly one .csv or .jsonl manifest, found %(found)s"
        ) % {"found": found}, file=label)
    return manifests[0]


@job_handler("listening.import")
def import_bundle(job, progress):
    """params: bundle (storage name of the uploaded zip), name, label (the upload's file name).
    A refused manifest fails the job with the row errors in result["errors"]; nothing is stored. The
    bundle is kept while the import can be resumed (cancelled, failed, worker lost) and deleted once it
    has finished, was refused, or is discarded (services.discard_import)."""
    bundle, label = job.params["bundle"], job.params.get("label", "bundle.zip")
    # The total stays as it was: a resumed bar keeps its place until the manifest is read again.
    progress.set_total(job.total, message="Checking the manifest and every audio file")
    try:
        if not default_storage.exists(bundle):  # resumed after a refusal: the upload is gone
            raise FileRefused(gettext("the uploaded bundle is no longer stored; upload it again"), file=label)
        with tempfile.TemporaryDirectory() as tmp, default_storage.open(bundle, "rb") as fh:
            manifest = unpack_bundle(fh, Path(tmp), label=label)
            test = import_listening_test(
                name=job.params["name"], manifest=manifest, acting_user=job.created_by, progress=progress
            )
    except ApplicationError as refused:
        Job.objects.filter(pk=job.pk).update(result={"errors": refused.lines()})
        default_storage.delete(bundle)
        raise
    default_storage.delete(bundle)
    return {"test": test.pk, "name": test.name, "clips": test.clips.regular().count(), "gold": test.clips.gold().count()}
