from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST
from rest_framework import generics, serializers

from apps.accounts.permissions import IsSoriAdmin, require
from apps.jobs import services
from apps.jobs.models import Job


def _get_job_for(user, pk: int, action: str) -> Job:
    job = get_object_or_404(Job, pk=pk)
    require(user, action, job)
    return job


@login_required
def job_list(request):
    require(request.user, "jobs.list")
    jobs = Job.objects.select_related("created_by")[:200]
    return render(request, "jobs/list.html", {"jobs": jobs})


@login_required
def job_detail(request, pk: int):
    job = _get_job_for(request.user, pk, "jobs.view")
    return render(request, "jobs/detail.html", {"job": job})


@login_required
def job_progress(request, pk: int):
    """The progress component alone; htmx polls it until the job has finished. A page whose content depends
    on the job's outcome (a release's Download and Publish) polls with ?reload=1 and is reloaded whole when
    the job has finished (htmx's HX-Refresh)."""
    job = _get_job_for(request.user, pk, "jobs.view")
    response = render(request, "jobs/_progress.html", {"job": job, "reload": request.GET.get("reload") == "1"})
    if job.is_finished and request.GET.get("reload") == "1":
        response["HX-Refresh"] = "true"
    return response


@login_required
@require_POST
def job_cancel(request, pk: int):
    job = _get_job_for(request.user, pk, "jobs.control")
    services.request_cancel(job=job)
    return _progress_or_redirect(request, job)


@login_required
@require_POST
def job_resume(request, pk: int):
    job = _get_job_for(request.user, pk, "jobs.control")
    services.resume_job(job=job)
    return _progress_or_redirect(request, job)


def _progress_or_redirect(request, job):
    if request.htmx:
        return render(request, "jobs/_progress.html", {"job": job})
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

    permission_classes = [IsSoriAdmin]
    serializer_class = JobSerializer
    queryset = Job.objects.all()


class JobDetailApi(generics.RetrieveAPIView):
    serializer_class = JobSerializer
    queryset = Job.objects.all()

    def get_object(self):
        return _get_job_for(self.request.user, self.kwargs["pk"], "jobs.view")
