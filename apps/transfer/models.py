"""The transfer stages over the source benchmarks (apps.sources). The ground-truth correction stage: a reviewer
agent's verdict per sample, correction proposals judged by a meta-reviewer, and every human decision on them. The imported answer is never overwritten; a sample's
effective answer is derived from its confirmed correction (apps.transfer.selectors.effective_answer)."""

from django.conf import settings
from django.db import models


class UnresolvedPolicy(models.TextChoices):
    EXCLUDE = "exclude", "Exclude the sample"
    EXPERT = "expert", "Send to an expert"


class ReviewRun(models.Model):
    """One start of the ground-truth stage over a benchmark (optionally one subset, optionally the first N
    deterministic samples). The job does the work; the models used are recorded here for the audit trail."""

    benchmark = models.ForeignKey("sources.SourceBenchmark", on_delete=models.CASCADE, related_name="review_runs")
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

    sample = models.OneToOneField("sources.SourceSample", on_delete=models.CASCADE, related_name="review")
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
    sample = models.OneToOneField("sources.SourceSample", on_delete=models.CASCADE, related_name="correction")
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


# --- Stage 2: hypertranslation under a pinned rulebook version -----------------------------------------

class TranslationAction(models.TextChoices):
    DIRECT_TRANSLATION = "direct_translation", "Direct translation"
    FORMAT_CONVERSION = "format_conversion", "Format conversion"
    EQUIVALENT_REPLACEMENT = "equivalent_replacement", "Equivalent replacement"
    DELETION = "deletion", "Deletion"
    UNDECIDED = "undecided", "Undecided under this version"
    NEEDS_ATTENTION = "needs_attention", "Needs attention"


class TranslationRun(models.Model):
    """One start of the hypertranslation stage over a benchmark (optionally one subset, the first N
    samples) under one published hypertranslation rulebook version, pinned here and in every output.
    A continued run (`continues`) re-translates only the stale and undecided samples of the earlier one."""

    benchmark = models.ForeignKey("sources.SourceBenchmark", on_delete=models.CASCADE, related_name="translation_runs")
    subset = models.CharField(max_length=100, blank=True)
    limit = models.PositiveIntegerField(null=True, blank=True)
    rulebook_version = models.ForeignKey("consultations.RulebookVersion", on_delete=models.PROTECT, related_name="translation_runs")
    continues = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="continuations")
    translator_model = models.CharField(max_length=250, blank=True)
    job = models.OneToOneField("jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="translation_run")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Translation of {self.benchmark}{'/' + self.subset if self.subset else ''} under {self.rulebook_version}"


class Translation(models.Model):
    """One translation of one sample under one rulebook version. Append-only: a re-translation or a human
    correction is a new row (the correction names its editor and the row it corrects); a sample's current
    translation is its newest row (apps.transfer.selectors.current_translations)."""

    sample = models.ForeignKey("sources.SourceSample", on_delete=models.CASCADE, related_name="translations")
    run = models.ForeignKey(TranslationRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="translations")
    rulebook_version = models.ForeignKey("consultations.RulebookVersion", on_delete=models.PROTECT, related_name="translations")
    action = models.CharField(max_length=30, choices=TranslationAction.choices, db_index=True)
    source_transcription = models.TextField(help_text="the English that was translated")
    source_answer = models.TextField(blank=True, help_text="the effective answer that was translated")
    source_aliases = models.JSONField(default=list, blank=True)
    transcription_ko = models.TextField(blank=True)
    answer_ko = models.TextField(blank=True)
    aliases_ko = models.JSONField(default=list, blank=True, help_text="Korean aliases, deduplicated")
    rule_ids = models.JSONField(default=list, blank=True, help_text="rule ids of the pinned version applied")
    kept_terms = models.JSONField(default=list, blank=True, help_text="English terms kept verbatim (normalization preserves them)")
    checker = models.JSONField(default=dict, blank=True, help_text=(
        "what the Korean item's checker reads besides the answer (apps.transfer.checker_data): IFEval's "
        "instruction_id_list, kwargs and removed_instructions; BBH's task and a redesigned item's choices"))
    reason = models.TextField(blank=True, help_text="why deleted or replaced, or what the version does not settle")
    attention_reason = models.TextField(blank=True)
    agent_call = models.ForeignKey("agents.AgentCall", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    corrects = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="corrections")
    edited_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    edit_note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["sample_id", "id"]
        indexes = [models.Index(fields=["sample", "-id"], name="translation_sample_newest")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(corrects__isnull=True) | models.Q(edited_by__isnull=False),
                name="translation_correction_names_editor",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.sample} under {self.rulebook_version}: {self.action}"

    def save(self, *args, **kwargs):
        if self.pk:
            raise ValueError("translations are never overwritten; record a new one")
        super().save(*args, **kwargs)


# --- Stage 3: speech-friendly normalization --------------------------------------------------------------

class NormalizationStatus(models.TextChoices):
    OK = "ok", "Ready for speech"
    NEEDS_ATTENTION = "needs_attention", "Needs attention"


class NormalizationRun(models.Model):
    """One start of the normalization stage over the current translations of a benchmark (optionally one
    subset, the first N samples) under one published normalization rulebook version."""

    benchmark = models.ForeignKey("sources.SourceBenchmark", on_delete=models.CASCADE, related_name="normalization_runs")
    subset = models.CharField(max_length=100, blank=True)
    limit = models.PositiveIntegerField(null=True, blank=True)
    rulebook_version = models.ForeignKey("consultations.RulebookVersion", on_delete=models.PROTECT, related_name="normalization_runs")
    job = models.OneToOneField("jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="normalization_run")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Normalization of {self.benchmark}{'/' + self.subset if self.subset else ''} under {self.rulebook_version}"


class NormalizedText(models.Model):
    """The speech-ready Korean of one sample's translated question. Append-only: a re-normalization is a
    new row; the current one is the newest (apps.transfer.selectors.ready_for_speech reads it)."""

    sample = models.ForeignKey("sources.SourceSample", on_delete=models.CASCADE, related_name="normalized_texts")
    translation = models.ForeignKey(Translation, null=True, blank=True, on_delete=models.PROTECT, related_name="normalized_texts")
    run = models.ForeignKey(NormalizationRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="outputs")
    rulebook_version = models.ForeignKey("consultations.RulebookVersion", on_delete=models.PROTECT, related_name="normalized_texts")
    source_text = models.TextField(blank=True, help_text="the Korean that was normalized")
    text = models.TextField(help_text="normalized Korean, ready for TTS")
    readings = models.JSONField(default=list, blank=True, help_text='[{"span": "3개", "reading": "세 개", "rule": ...}]')
    rules_fired = models.JSONField(default=list, blank=True, help_text="rule ids of the normalization version")
    status = models.CharField(max_length=20, choices=NormalizationStatus.choices, db_index=True)
    attention_reason = models.TextField(blank=True)
    used_agent = models.BooleanField(default=False)
    agent_call = models.ForeignKey("agents.AgentCall", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["sample_id", "id"]
        indexes = [models.Index(fields=["sample", "-id"], name="normalized_sample_newest")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status="ok") | ~models.Q(attention_reason=""),
                name="normalized_attention_has_reason",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.sample} under {self.rulebook_version}: {self.status}"

    def save(self, *args, **kwargs):
        if self.pk:
            raise ValueError("normalized texts are never overwritten; record a new one")
        super().save(*args, **kwargs)
