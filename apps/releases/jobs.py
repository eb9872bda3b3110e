"""Background job: building a release (copying audio and writing tables can take minutes)."""

from apps.jobs.services import job_handler
from apps.releases.models import Release
from apps.releases.services import run_build


@job_handler("releases.build")
def build_release(job, progress):

    return run_build(Release.objects.get(pk=job.params["release"]), progress)
