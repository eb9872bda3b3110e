from django.conf import settings
from django.db import models


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class Job(models.Model):
    """A long piece of work and its visible state. Pages poll it; workers update it through
    apps.jobs.services. Re-running a job that stopped (failed or cancelled) resumes it: the work function
    is expected to skip what is already done."""

    kind = models.CharField(max_length=100, help_text="the task that runs it, e.g. listening.import")
    title = models.CharField(max_length=200)
    status = models.CharField(max_length=20, choices=JobStatus.choices, default=JobStatus.QUEUED, db_index=True)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    message = models.CharField(max_length=500, blank=True)
    error = models.TextField(blank=True)
    params = models.JSONField(default=dict, blank=True)
    result = models.JSONField(default=dict, blank=True)
    cancel_requested = models.BooleanField(default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=models.Q(total=0) | models.Q(done__lte=models.F("total")), name="job_done_le_total"),
        ]

    def __str__(self) -> str:
        return f"{self.title} ({self.status})"

    @property
    def percent(self) -> int:
        if not self.total:
            return 100 if self.status == JobStatus.SUCCEEDED else 0
        return min(100, round(100 * self.done / self.total))

    @property
    def is_finished(self) -> bool:
        return self.status in {JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED}

    @property
    def can_resume(self) -> bool:
        return self.status in {JobStatus.FAILED, JobStatus.CANCELLED}
