"""Background job: building a release (copying audio and writing tables can take minutes)."""

from apps.jobs.services import job_handler


@job_handler("releases.build")
def build_release(job, progress):
    from apps.releases.models import Release
    from apps.releases.services import run_build

    return run_build(Release.objects.get(pk=job.params["release"]), progress)
