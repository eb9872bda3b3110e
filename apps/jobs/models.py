from django.conf import settings
from django.db import models
from django.utils import timezone


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


UNFINISHED = [JobStatus.QUEUED, JobStatus.RUNNING]  # a job not finished yet (JobQuerySet.active)
ATTENTION_KEY = "attention"  # the result key of the items needing attention (Job.attention)


class JobQuerySet(models.QuerySet):
    def active(self):
        """Jobs not finished yet (queued or running): what "already running" means wherever a start is refused."""
        return self.filter(status__in=UNFINISHED)

    def lease_lost(self, now=None):
        """Running jobs whose worker stopped beating: their lease ran out, so any worker may take them over."""
        return self.filter(status=JobStatus.RUNNING, lease_expires_at__lt=now or timezone.now())


class Job(models.Model):
    """A long piece of work and its visible state. Pages poll it; workers update it through
    apps.jobs.services. Re-running a job that stopped (failed, cancelled, or running with a lost lease)
    resumes it: the work function is expected to skip what is already done.

    A running job is leased: its worker pushes `lease_expires_at` forward (heartbeat) while it works. A job
    whose lease ran out lost its worker and is claimed again by the next worker; `attempts` numbers the
    claims and fences the writes, so a worker that lost its lease can no longer write to the row.

    A job may name its `subject` (e.g. `evaluation.run:42`): the database then holds at most one unfinished
    (queued or running) job per subject, whatever its kind."""

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
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True, help_text="host and process of the current claim")
    subject = models.CharField(
        max_length=100, blank=True,
        help_text="what the job works on when only one unfinished job may (e.g. evaluation.run:42); blank for none",
    )

    objects = JobQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["lease_expires_at"], condition=models.Q(status="running"), name="jobs_running_lease")]
        constraints = [
            models.CheckConstraint(condition=models.Q(total=0) | models.Q(done__lte=models.F("total")), name="job_done_le_total"),
            # At most one unfinished job per subject: the database's half of a starter's lock and check
            # (apps.jobs.services.start_job), so no path that skips them can make a second one.
            models.UniqueConstraint(
                fields=["subject"], condition=models.Q(status__in=UNFINISHED) & ~models.Q(subject=""),
                name="job_one_unfinished_per_subject",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.title} ({self.status})"

    @property
    def percent(self) -> int:
        if not self.total:
            return 100 if self.status == JobStatus.SUCCEEDED else 0
        return min(100, round(100 * self.done / self.total))

    @property
    def attention(self) -> dict | None:
        """The items of a finished job that need attention, when its result says so (apps.jobs.services
        .needing_attention): {"count": n, "url": the page that lists them with a retry}."""
        found = (self.result or {}).get(ATTENTION_KEY) if isinstance(self.result, dict) else None
        if not isinstance(found, dict) or not isinstance(found.get("count"), int) or found["count"] < 1:
            return None
        return found

    @property
    def status_text(self) -> str:
        """The status as a person reads it: "Succeeded, 16 need attention"."""
        attention = self.attention
        if attention is None:
            return self.get_status_display()
        count = attention["count"]
        return f"{self.get_status_display()}, {count} need{'s' if count == 1 else ''} attention"

    @property
    def failure_reason(self) -> str:
        """Why a failed job failed, in words (apps.jobs.services writes it into the message); the traceback
        in `error` is for the technical details only."""
        if self.status != JobStatus.FAILED:
            return ""
        reason = self.message.removeprefix("Failed: ").strip()
        return reason or "it stopped without saying why; the technical details may tell"

    @property
    def is_finished(self) -> bool:
        return self.status in {JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED}

    @property
    def has_lost_lease(self) -> bool:
        return self.status == JobStatus.RUNNING and self.lease_expires_at is not None and self.lease_expires_at < timezone.now()

    @property
    def can_resume(self) -> bool:
        return self.status in {JobStatus.FAILED, JobStatus.CANCELLED} or self.has_lost_lease
