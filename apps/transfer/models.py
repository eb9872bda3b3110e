"""Source benchmarks (English spoken-QA samples imported from VoiceBench and OpenAudioBench) and the
ground-truth correction stage: a reviewer agent's verdict per sample, correction proposals judged by a
meta-reviewer, and every human decision on them. The imported answer is never overwritten; a sample's
effective answer is derived from its confirmed correction (apps.transfer.selectors.effective_answer)."""

from django.conf import settings
from django.db import models


class SourceFormat(models.TextChoices):
    VOICEBENCH = "voicebench", "VoiceBench (JSONL or Parquet)"
    OPENAUDIOBENCH = "openaudiobench", "OpenAudioBench (CSV)"


class TaskType(models.TextChoices):
    MULTIPLE_CHOICE = "multiple_choice", "Multiple-choice"
    BINARY = "binary", "Binary"
    SHORT_ANSWER = "short_answer", "Short answer"
    OPEN_ENDED = "open_ended", "Open-ended"
    INSTRUCTION_FOLLOWING = "instruction_following", "Instruction-following"
    SAFETY = "safety", "Safety"


# Ground-truth correction runs on samples with a deterministic answer (the paper: multiple-choice and
# short-answer). Binary items (BBH's True/False, Yes/No, valid/invalid) are two-option multiple choice.
DETERMINISTIC_TASKS = (TaskType.MULTIPLE_CHOICE, TaskType.BINARY, TaskType.SHORT_ANSWER)


class SourceBenchmark(models.Model):
    name = models.SlugField(max_length=100, unique=True, help_text="e.g. voicebench, openaudiobench")
    format = models.CharField(max_length=20, choices=SourceFormat.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class SourceSampleQuerySet(models.QuerySet):
    def deterministic(self):
        return self.filter(task_type__in=DETERMINISTIC_TASKS)


class SourceSample(models.Model):
    benchmark = models.ForeignKey(SourceBenchmark, on_delete=models.CASCADE, related_name="samples")
    subset = models.CharField(max_length=100, db_index=True)
    task_type = models.CharField(max_length=30, choices=TaskType.choices, db_index=True)
    source_id = models.CharField(max_length=300, help_text="the source's id, key or audio file name")
    transcription = models.TextField(help_text="what the spoken question says")
    answer = models.TextField(blank=True, help_text="the source's answer, as imported (never changed)")
    aliases = models.JSONField(default=list, blank=True, help_text="other accepted answers, as imported")
    audio_filename = models.CharField(max_length=300, blank=True)
    raw = models.JSONField(help_text="the source record as imported")
    line_number = models.PositiveIntegerField(help_text="line (JSONL, CSV) or row (Parquet) in the imported file")
    imported_at = models.DateTimeField(auto_now_add=True)

    objects = SourceSampleQuerySet.as_manager()

    class Meta:
        ordering = ["benchmark", "subset", "id"]
        constraints = [
            models.UniqueConstraint(fields=["benchmark", "subset", "source_id"], name="source_sample_unique_id"),
        ]

    def __str__(self) -> str:
        return f"{self.benchmark}/{self.subset}/{self.source_id}"


class UnresolvedPolicy(models.TextChoices):
    EXCLUDE = "exclude", "Exclude the sample"
    EXPERT = "expert", "Send to an expert"


class ReviewRun(models.Model):
    """One start of the ground-truth stage over a benchmark (optionally one subset, optionally the first N
    deterministic samples). The job does the work; the models used are recorded here for the audit trail."""

    benchmark = models.ForeignKey(SourceBenchmark, on_delete=models.CASCADE, related_name="review_runs")
    subset = models.CharField(max_length=100, blank=True)
    limit = models.PositiveIntegerField(null=True, blank=True)
    on_unresolved = models.CharField(max_length=20, choices=UnresolvedPolicy.choices, default=UnresolvedPolicy.EXCLUDE)
    reviewer_model = models.CharField(max_length=250)
    meta_reviewer_model = models.CharField(max_length=250)
    job = models.OneToOneField("jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="review_run")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Ground-truth review of {self.benchmark}{'/' + self.subset if self.subset else ''}"


class ReviewOutcome(models.TextChoices):
    ANSWER_CONFIRMED = "answer_confirmed", "Answer follows from the transcription"
    CORRECTION_PROPOSED = "correction_proposed", "Correction proposed"
    NEEDS_ATTENTION = "needs_attention", "Needs attention"


class GroundTruthReview(models.Model):
    """The reviewer agent's verdict on one sample (one per sample: a reviewed sample is done)."""

    sample = models.OneToOneField(SourceSample, on_delete=models.CASCADE, related_name="review")
    run = models.ForeignKey(ReviewRun, on_delete=models.CASCADE, related_name="reviews")
    outcome = models.CharField(max_length=30, choices=ReviewOutcome.choices, db_index=True)
    reviewer_output = models.JSONField(null=True, blank=True)
    reviewer_call = models.ForeignKey("agents.AgentCall", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    attention_reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.sample}: {self.outcome}"


class CorrectionKind(models.TextChoices):
    NEW_ANSWER = "new_answer", "New answer"
    ADD_ALIASES = "add_aliases", "Added aliases"
    UNANSWERABLE = "unanswerable", "Unanswerable as written"


class CorrectionStatus(models.TextChoices):
    PROPOSED = "proposed", "Proposed (waiting for the meta-reviewer)"
    CONFIRMED = "confirmed", "Confirmed (applied)"
    REJECTED = "rejected", "Rejected (sample excluded)"
    UNRESOLVED = "unresolved", "Unresolved (sample excluded)"
    NEEDS_EXPERT = "needs_expert", "Sent to an expert"
    NEEDS_ATTENTION = "needs_attention", "Needs attention"


class MetaVerdict(models.TextChoices):
    CONFIRM = "confirm", "Confirm"
    REJECT = "reject", "Reject"
    UNSURE = "unsure", "Unsure"


class CorrectionQuerySet(models.QuerySet):
    def needing_expert(self):
        return self.filter(status=CorrectionStatus.NEEDS_EXPERT)


class Correction(models.Model):
    """A reviewer's proposed change to a sample's answer and the meta-reviewer's independent judgement.
    Only a confirmed correction changes the effective answer; human decisions are CorrectionDecision rows."""

    review = models.OneToOneField(GroundTruthReview, on_delete=models.CASCADE, related_name="correction")
    sample = models.OneToOneField(SourceSample, on_delete=models.CASCADE, related_name="correction")
    kind = models.CharField(max_length=20, choices=CorrectionKind.choices)
    proposed_answer = models.TextField(blank=True)
    proposed_aliases = models.JSONField(default=list, blank=True)
    reviewer_rationale = models.TextField()
    meta_verdict = models.CharField(max_length=10, choices=MetaVerdict.choices, blank=True)
    meta_rationale = models.TextField(blank=True)
    meta_output = models.JSONField(null=True, blank=True)
    meta_call = models.ForeignKey("agents.AgentCall", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    status = models.CharField(max_length=20, choices=CorrectionStatus.choices, default=CorrectionStatus.PROPOSED, db_index=True)
    attention_reason = models.TextField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = CorrectionQuerySet.as_manager()

    class Meta:
        ordering = ["sample_id"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} for {self.sample} ({self.status})"


class CorrectionDecision(models.Model):
    """A person's decision on a correction (an admin overturning the agents, an expert resolving it).
    Append-only: the history of who decided what stays readable."""

    correction = models.ForeignKey(Correction, on_delete=models.CASCADE, related_name="decisions")
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    decided_as = models.CharField(max_length=20, help_text="admin or expert")
    from_status = models.CharField(max_length=20, choices=CorrectionStatus.choices)
    to_status = models.CharField(max_length=20, choices=CorrectionStatus.choices)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.decided_by} ({self.decided_as}): {self.from_status} -> {self.to_status}"
