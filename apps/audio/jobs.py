from pathlib import Path

from apps.audio import services
from apps.jobs.services import job_handler


@job_handler("audio.import_folder")
def import_folder(job, progress):
    assets = services.import_folder(Path(job.params["folder"]), convert=job.params.get("convert", False), progress=progress)
    return {"assets": len(assets)}
