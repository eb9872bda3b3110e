"""KMMAU construction (DESIGN.md 2.3, issue 9).

A Corpus is an imported Korean ASR corpus (its licence travels with every question made from it); a Clip
is one of its utterances with its audio, transcripts and speaker metadata. A QuestionSet collects
questions towards per-capability targets; it owns two pools of the shared engine (apps/queues): one hands
agent-written questions to K reviewers (default 2), one hands manually authored questions to a blind second
answerer. A Question is multiple-choice with exactly one correct option (stored by index) and records how it
was made. Reviews and blind answers are one row per (question, person)."""

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from apps.authoring.capabilities import AgeGroup, Capability, Gender, Method


class CorpusFormat(models.TextChoices):
    KSS = "kss", "KSS"
    ZEROTH = "zeroth", "Zeroth-Korean"
    KSPON = "kspon", "KsponSpeech"
    MANIFEST = "manifest", "Manifest (CSV or JSONL)"


class Corpus(models.Model):
    name = models.CharField(max_length=100, unique=True)
    format = models.CharField(max_length=20, choices=CorpusFormat.choices)
    license = models.CharField(max_length=100, help_text="SPDX identifier, e.g. CC-BY-NC-SA-4.0")
    source = models.CharField(max_length=500, help_text="the file or folder it was imported from")
    source_sha256 = models.CharField(max_length=64, blank=True)
    imported_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")
    imported_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "corpora"

    def __str__(self) -> str:
        return self.name


class Clip(models.Model):
    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, related_name="clips")
    utterance_id = models.CharField(max_length=200)
    audio = models.ForeignKey("audio.AudioAsset", on_delete=models.PROTECT, related_name="authoring_clips")
    raw_transcript = models.TextField(help_text="as the corpus writes it")
    transcript = models.TextField(help_text="NFC-normalised raw transcript")
    clean_transcript = models.TextField(help_text="written form: one side of each dual spelling, tags removed")
    speaker_id = models.CharField(max_length=100, blank=True)
    gender = models.CharField(max_length=10, choices=Gender.choices, blank=True)
    age_group = models.CharField(max_length=10, choices=AgeGroup.choices, blank=True)
    num_speakers = models.PositiveIntegerField(null=True, blank=True)
    source_file = models.CharField(max_length=500)
    source_line = models.PositiveIntegerField()

    class Meta:
        ordering = ["corpus", "id"]
        constraints = [
            models.UniqueConstraint(fields=["corpus", "utterance_id"], name="authoring_clip_id_once"),
            models.CheckConstraint(condition=Q(num_speakers__isnull=True) | Q(num_speakers__gte=1),
                                   name="authoring_clip_speakers_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.corpus.name}:{self.utterance_id}"


class QuestionSet(models.Model):
    name = models.CharField(max_length=200, unique=True)
    reviewers_per_question = models.PositiveIntegerField(default=2)
    targets = models.JSONField(default=dict, help_text="{capability: target count}")
    seed = models.IntegerField(default=0, help_text="seeds option shuffles and answer-position balance")
    license = models.CharField(max_length=100, default="CC-BY-NC-SA-4.0", help_text="licence of the released set")
    review_pool = models.OneToOneField("queues.WorkPool", on_delete=models.PROTECT, related_name="authoring_review_set")
    answer_pool = models.OneToOneField("queues.WorkPool", on_delete=models.PROTECT, related_name="authoring_answer_set")
    corpora = models.ManyToManyField(Corpus, related_name="question_sets", blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.CheckConstraint(condition=Q(reviewers_per_question__gte=1), name="authoring_set_k_positive")]

    def __str__(self) -> str:
        return self.name


class QuestionStatus(models.TextChoices):
    NEEDS_ATTENTION = "needs_attention", "Needs attention"
    IN_REVIEW = "in_review", "In review"
    AWAITING_ANSWER = "awaiting_answer", "Awaiting blind answer"
    ESCALATED = "escalated", "Escalated (answers differ)"
    ACCEPTED = "accepted", "Accepted"
    REJECTED = "rejected", "Rejected"


class QuestionQuerySet(models.QuerySet):
    def accepted(self):
        return self.filter(status=QuestionStatus.ACCEPTED)


class Question(models.Model):
    Status = QuestionStatus

    question_set = models.ForeignKey(QuestionSet, on_delete=models.CASCADE, related_name="questions")
    capability = models.CharField(max_length=30, choices=Capability.choices)
    method = models.CharField(max_length=20, choices=Method.choices)
    clip = models.ForeignKey(Clip, on_delete=models.PROTECT, related_name="questions")
    start_seconds = models.FloatField(null=True, blank=True, help_text="segment start; empty: the whole clip")
    end_seconds = models.FloatField(null=True, blank=True)
    text = models.TextField(blank=True)
    options = models.JSONField(default=list, help_text="option texts in authoring order")
    correct_index = models.PositiveSmallIntegerField(null=True, blank=True)
    evidence = models.TextField(blank=True, help_text="agent questions: the span of the transcript that answers it")
    original = models.JSONField(null=True, blank=True, help_text="the text, options and answer before the first edit")
    version = models.PositiveIntegerField(default=1, help_text="raised by every reviewer edit")
    provenance = models.JSONField(default=dict, help_text="rule and parameters, agent calls, or author")
    # Rule-based questions: what was asked of the clip, so that generating again adds nothing twice.
    dedup_key = models.CharField(max_length=200)
    status = models.CharField(max_length=20, choices=QuestionStatus.choices, db_index=True)
    attention = models.TextField(blank=True, help_text="why it needs attention")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="authored_questions")
    work_item = models.OneToOneField("queues.WorkItem", null=True, blank=True, on_delete=models.PROTECT,
                                     related_name="authoring_question")
    agent_calls = models.ManyToManyField("agents.AgentCall", blank=True, related_name="authoring_questions")
    created_at = models.DateTimeField(auto_now_add=True)
    settled_at = models.DateTimeField(null=True, blank=True)

    objects = QuestionQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["question_set", "clip", "dedup_key"], name="authoring_question_once"),
            models.CheckConstraint(
                condition=Q(start_seconds__isnull=True, end_seconds__isnull=True)
                | Q(start_seconds__gte=0, end_seconds__gt=F("start_seconds")),
                name="authoring_question_segment_valid",
            ),
            models.CheckConstraint(
                condition=Q(status=QuestionStatus.NEEDS_ATTENTION) | Q(correct_index__isnull=False),
                name="authoring_question_has_answer",
            ),
        ]
        indexes = [models.Index(fields=["question_set", "capability", "status"])]

    def __str__(self) -> str:
        return f"{self.get_capability_display()} question {self.pk}"

    @property
    def answer(self) -> str:
        return self.options[self.correct_index]


class Decision(models.TextChoices):
    APPROVE = "approve", "Approve"
    EDIT = "edit", "Edit"
    REJECT = "reject", "Reject"


class RejectReason(models.TextChoices):
    NOT_ANSWERABLE = "not_answerable", _("Not answerable from the audio")
    OUTSIDE_KNOWLEDGE = "outside_knowledge", _("Needs outside knowledge")
    HALLUCINATED = "hallucinated", _("Hallucinated detail")
    AMBIGUOUS_DISTRACTOR = "ambiguous_distractor", _("Ambiguous distractor")
    UNNATURAL_KOREAN = "unnatural_korean", _("Unnatural Korean")


class Review(models.Model):
    """One reviewer's decision on one question. An edit keeps the version it replaced in `before`."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="reviews")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="authoring_reviews")
    decision = models.CharField(max_length=10, choices=Decision.choices)
    reasons = models.JSONField(default=list, blank=True)
    comment = models.TextField(blank=True)
    version_seen = models.PositiveIntegerField()
    before = models.JSONField(null=True, blank=True, help_text="edits: the question as it was")
    after = models.JSONField(null=True, blank=True, help_text="edits: the question as the reviewer left it")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["question", "reviewer"], name="authoring_review_once"),
            models.CheckConstraint(condition=~Q(decision="edit") | Q(after__isnull=False), name="authoring_edit_has_after"),
        ]

    def __str__(self) -> str:
        return f"{self.reviewer} {self.decision}s question {self.question_id}"


class BlindAnswer(models.Model):
    """A second annotator's answer to a manually authored question, given without seeing the author's."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="blind_answers")
    answerer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    chosen_index = models.PositiveSmallIntegerField(help_text="index into question.options")
    matches = models.BooleanField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["question", "answerer"], name="authoring_blind_answer_once")]

    def __str__(self) -> str:
        return f"{self.answerer} answered question {self.question_id}"


class EscalationResolution(models.Model):
    """An admin's decision on a question whose author and blind answerer disagreed."""

    question = models.OneToOneField(Question, on_delete=models.CASCADE, related_name="resolution")
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    accepted = models.BooleanField()
    correct_index = models.PositiveSmallIntegerField(null=True, blank=True)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"question {self.question_id} {'accepted' if self.accepted else 'rejected'} by {self.resolved_by}"


class ScoreRun(models.Model):
    question_set = models.ForeignKey(QuestionSet, on_delete=models.CASCADE, related_name="score_runs")
    model_name = models.CharField(max_length=200)
    file_name = models.CharField(max_length=500)
    result = models.JSONField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.model_name} on {self.question_set}"
