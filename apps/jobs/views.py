import json

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST
from rest_framework import generics, serializers

from apps.accounts.permissions import Can, fetch, require
from apps.jobs import services
from apps.jobs.models import Job


@login_required
def job_list(request):
    require(request.user, "jobs.list")
    jobs = Job.objects.select_related("created_by")[:200]
    return render(request, "jobs/list.html", {"jobs": jobs})


@login_required
def job_detail(request, pk: int):
    job = fetch(request, Job, pk, "jobs.view")
    return render(request, "jobs/detail.html", {"job": job})


# The event a page's live regions listen for (apps/jobs/templatetags/live.py): a job shown on the page finished.
JOB_FINISHED_EVENT = "job-finished"


def _progress_response(request, job: Job, *, reload: bool = False):
    """The progress component. When an htmx request finds the job finished, the answer also raises
    JOB_FINISHED_EVENT in the page (after the finished bar is in place), so the regions whose content the job
    changed (a stage's report, its cost) fetch themselves again. The finished bar no longer polls, so this
    happens once per job and page. A page that needs all of itself again polls with ?reload=1 instead and is
    reloaded whole (htmx's HX-Refresh)."""
    response = render(request, "jobs/_progress.html", {"job": job, "reload": reload})
    if job.is_finished and request.htmx:
        if reload:
            response["HX-Refresh"] = "true"
        else:
            response["HX-Trigger-After-Settle"] = json.dumps({JOB_FINISHED_EVENT: {"job": job.pk, "status": job.status}})
    return response


@login_required
def job_progress(request, pk: int):
    """The progress component alone; htmx polls it every second until the job has finished."""
    job = fetch(request, Job, pk, "jobs.view")
    return _progress_response(request, job, reload=request.GET.get("reload") == "1")


@login_required
@require_POST
def job_cancel(request, pk: int):
    job = fetch(request, Job, pk, "jobs.control")
    services.request_cancel(job=job)
    return _progress_or_redirect(request, job)


@login_required
@require_POST
def job_resume(request, pk: int):
    job = fetch(request, Job, pk, "jobs.control")
    services.resume_job(job=job)
    return _progress_or_redirect(request, job)


def _progress_or_redirect(request, job):
    if request.htmx:  # a cancelled queued job is finished at once: its page's regions update as for any finish
        return _progress_response(request, job)
    return redirect("jobs:detail", pk=job.pk)


class JobSerializer(serializers.ModelSerializer):
    percent = serializers.IntegerField(read_only=True)

    class Meta:
        model = Job
        fields = [
            "id", "kind", "title", "status", "done", "total", "percent", "message", "error",
            "cancel_requested", "created_at", "started_at", "finished_at", "result",
        ]


class JobListApi(generics.ListAPIView):
    """Every job, newest first (admin only)."""

    permission_classes = [Can("jobs.list")]
    serializer_class = JobSerializer
    queryset = Job.objects.all()


class JobDetailApi(generics.RetrieveAPIView):
    serializer_class = JobSerializer
    queryset = Job.objects.all()

    def get_object(self):
        return fetch(self.request, Job, self.kwargs["pk"], "jobs.view")
