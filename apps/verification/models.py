"""Verification of benchmark items by three independent annotators (DESIGN.md 2.2, issue 4).

A project is one WorkPool of the shared assignment engine (K = 3); each item points at its WorkItem. A review
is one annotator's current decision on one item (unique per item and annotator); every submission and every
change is also written to ReviewEvent, which is append-only. An item settles once: accepted on three
approvals, rejected on a rejection (at once, or after all three reviews, as the project says)."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from apps.accounts.pseudonyms import verification_scope
from apps.verification.taxonomy import DOMAIN_CHOICES, FORMAT_CHOICES, TASK_CHOICES


class VerificationProject(models.Model):
    name = models.CharField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    pool = models.OneToOneField("queues.WorkPool", on_delete=models.PROTECT, related_name="verification_project")
    settle_on_first_rejection = models.BooleanField(
        default=False,
        help_text="Settle an item as rejected at its first rejection (saves work). Off: all three reviews are "
        "still collected, which agreement statistics need.",
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name

    @property
    def pseudonym_scope(self) -> str:
        """Annotators appear in exports and releases under a pseudonym of this project's own
        (apps.accounts.pseudonyms), so two projects' exports cannot be joined on a person."""
        return verification_scope(self.pk)


class ItemImport(models.Model):
    """Provenance of an import: which file, with which checksum, by whom, when."""

    project = models.ForeignKey(VerificationProject, on_delete=models.CASCADE, related_name="imports")
    file_name = models.CharField(max_length=500)
    file_sha256 = models.CharField(max_length=64)
    media_dir = models.CharField(max_length=500, blank=True)
    item_count = models.PositiveIntegerField(default=0)
    imported_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    imported_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.file_name} ({self.item_count} items)"


class ItemStatus(models.TextChoices):
    PENDING = "pending", _("Pending")
    ACCEPTED = "accepted", _("Accepted")
    REJECTED = "rejected", _("Rejected")


class VerificationItem(models.Model):
    Status = ItemStatus

    project = models.ForeignKey(VerificationProject, on_delete=models.CASCADE, related_name="items")
    work_item = models.OneToOneField("queues.WorkItem", on_delete=models.PROTECT, related_name="verification_item")
    external_id = models.CharField(max_length=200, help_text="the item's id in the source file")
    position = models.PositiveIntegerField(help_text="order in the imported file")
    audio = models.ForeignKey("audio.AudioAsset", on_delete=models.PROTECT, related_name="verification_items")
    audio_path = models.CharField(max_length=500)
    visual = models.FileField(upload_to="verification/visual/", blank=True, max_length=300)
    visual_kind = models.CharField(max_length=10, blank=True, choices=[("video", "Video"), ("image", "Image")])
    transcript = models.TextField(blank=True)
    task = models.CharField(max_length=40, choices=TASK_CHOICES)
    domain = models.CharField(max_length=40, choices=DOMAIN_CHOICES)
    format = models.CharField(max_length=10, choices=FORMAT_CHOICES)
    language = models.CharField(max_length=10)
    question = models.TextField()
    options = models.JSONField(help_text="option texts in the order of the source")
    answers = models.JSONField(help_text="the correct option texts")
    tiers = models.JSONField(default=dict, blank=True, help_text="{option text: similar|middle|opposite}")
    statement = models.TextField(blank=True, help_text="yes/no over two statements: the one put to the listener")
    expected_yes = models.BooleanField(null=True, blank=True, help_text="yes/no items: whether yes is correct")
    prompts = models.JSONField(default=dict, blank=True, help_text="{standard|positive|negative: text or [texts]}")
    source = models.CharField(max_length=200, blank=True)
    metric = models.CharField(max_length=30, blank=True)
    record = models.TextField(help_text="the source record as JSON text, key order kept, for exact export")
    item_import = models.ForeignKey(ItemImport, on_delete=models.PROTECT, related_name="items")
    status = models.CharField(max_length=10, choices=ItemStatus.choices, default=ItemStatus.PENDING, db_index=True)
    settled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["project", "position"]
        constraints = [
            models.UniqueConstraint(fields=["project", "external_id"], name="verification_item_id_once"),
            models.CheckConstraint(
                condition=Q(status=ItemStatus.PENDING, settled_at__isnull=True)
                | (~Q(status=ItemStatus.PENDING) & Q(settled_at__isnull=False)),
                name="verification_item_settled_has_time",
            ),
        ]
        indexes = [models.Index(fields=["project", "task"])]

    def __str__(self) -> str:
        return f"{self.external_id} ({self.task})"

    @property
    def is_settled(self) -> bool:
        return self.status != ItemStatus.PENDING

    def tier_of(self, option: str) -> str:
        if option in self.answers:
            return "true"
        return self.tiers.get(option, "")


class Decision(models.TextChoices):
    APPROVE = "approve", _("Approve")
    REJECT = "reject", _("Reject")


class Reason(models.TextChoices):
    """Why an annotator rejects; the order is the keyboard order (1-6)."""

    WRONG_ANSWER = "wrong_answer", _("Wrong answer")
    AMBIGUOUS_QUESTION = "ambiguous_question", _("Ambiguous question")
    DISTRACTOR_CORRECT = "distractor_correct", _("Distractor also correct")
    MEDIA_UNCLEAR = "media_unclear", _("Media unclear or broken")
    OFFENSIVE = "offensive_personal", _("Offensive or personal content")
    OTHER = "other", _("Other (say what in the comment)")


class Review(models.Model):
    """One annotator's current decision on one item. Changes before settlement update this row and append
    a ReviewEvent; the row itself is the latest state."""

    item = models.ForeignKey(VerificationItem, on_delete=models.CASCADE, related_name="reviews")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="verification_reviews")
    decision = models.CharField(max_length=10, choices=Decision.choices)
    reasons = models.JSONField(default=list, blank=True)
    comment = models.TextField(blank=True)
    seconds_spent = models.FloatField(default=0, help_text="total time on the item, over every submission")
    changes = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["item", "created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator"], name="verification_review_once_per_annotator"),
            models.CheckConstraint(condition=Q(decision__in=["approve", "reject"]), name="verification_review_decision"),
            models.CheckConstraint(condition=Q(seconds_spent__gte=0), name="verification_review_time_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.annotator} {self.decision}s {self.item}"


class AppendOnlyQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise TypeError("review history is append-only")

    def delete(self):
        raise TypeError("review history is append-only")


class ReviewEvent(models.Model):
    """The item's history: every submission and every change of a review, never edited or deleted."""

    item = models.ForeignKey(VerificationItem, on_delete=models.CASCADE, related_name="history")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=10, choices=[("submitted", "Submitted"), ("changed", "Changed")])
    decision = models.CharField(max_length=10, choices=Decision.choices)
    reasons = models.JSONField(default=list, blank=True)
    comment = models.TextField(blank=True)
    seconds = models.FloatField(default=0, help_text="time spent on this submission")
    at = models.DateTimeField(auto_now_add=True)

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        ordering = ["item", "at", "id"]

    def __str__(self) -> str:
        return f"{self.annotator_id} {self.kind} {self.decision} on {self.item_id}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise TypeError("review history is append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise TypeError("review history is append-only")


class BaselineSession(models.Model):
    """A human baseline: a stratified sample of accepted items that annotators answer blind."""

    project = models.ForeignKey(VerificationProject, on_delete=models.CASCADE, related_name="baselines")
    name = models.CharField(max_length=200)
    requested_size = models.PositiveIntegerField(default=300)
    seed = models.BigIntegerField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    items = models.ManyToManyField(VerificationItem, through="BaselineItem", related_name="baselines")

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name


class BaselineItem(models.Model):
    session = models.ForeignKey(BaselineSession, on_delete=models.CASCADE, related_name="sample")
    item = models.ForeignKey(VerificationItem, on_delete=models.PROTECT, related_name="+")
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["session", "position"]
        constraints = [models.UniqueConstraint(fields=["session", "item"], name="verification_baseline_item_once")]

    def __str__(self) -> str:
        return f"{self.session_id}#{self.position}"


class BaselineAnswer(models.Model):
    session = models.ForeignKey(BaselineSession, on_delete=models.CASCADE, related_name="answers")
    item = models.ForeignKey(VerificationItem, on_delete=models.PROTECT, related_name="+")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    prediction = models.TextField(help_text="the chosen option texts, comma-joined, or yes/no")
    option_order = models.JSONField(default=list, help_text="the order the options were shown in")
    seconds_spent = models.FloatField(default=0)
    answered_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["session", "answered_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["session", "item", "annotator"], name="verification_baseline_answer_once")
        ]

    def __str__(self) -> str:
        return f"{self.annotator_id} on {self.item_id}: {self.prediction}"


class ScoringRun(models.Model):
    """A model's predictions file, scored. The report is kept so the dashboard can compare runs."""

    project = models.ForeignKey(VerificationProject, on_delete=models.CASCADE, related_name="scoring_runs")
    name = models.CharField(max_length=200, help_text="the model (or system) that answered")
    file_name = models.CharField(max_length=500, blank=True)
    report = models.JSONField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name
