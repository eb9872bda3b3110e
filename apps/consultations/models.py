"""Rulebooks and the consultation loop that grows them.

A rulebook (language + kind) has numbered versions; a version and its rules never change once written
(the database refuses updates to rules, see migration 0002). A new version is new rows: the previous rules
carried over plus the rules approved in a consultation round, each with its provenance.
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from apps.core.errors import Conflict
from apps.sources.models import SourceSample


class RulebookKind(models.TextChoices):
    HYPERTRANSLATION = "hypertranslation", "Hypertranslation"
    NORMALIZATION = "normalization", "Normalization"


class Rulebook(models.Model):
    slug = models.SlugField(max_length=80, unique=True, help_text="e.g. ko-hypertranslation")
    language = models.CharField(max_length=10, help_text="BCP 47 code of the target language, e.g. ko")
    kind = models.CharField(max_length=30, choices=RulebookKind.choices)
    title = models.CharField(max_length=200)

    class Meta:
        ordering = ["language", "kind"]
        constraints = [models.UniqueConstraint(fields=["language", "kind"], name="rulebook_one_per_language_kind")]

    def __str__(self) -> str:
        return self.title or self.slug

    def latest_version(self):
        return self.versions.order_by("-number").first()


class RulebookVersion(models.Model):
    """An immutable, numbered version. Written once, with all its rules, in one transaction."""

    rulebook = models.ForeignKey(Rulebook, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    notes = models.TextField(blank=True)
    source = models.CharField(max_length=200, help_text="where it came from: a seed file or a consultation round")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["rulebook", "number"]
        constraints = [
            models.UniqueConstraint(fields=["rulebook", "number"], name="rulebook_version_number_unique"),
            models.CheckConstraint(condition=models.Q(number__gte=1), name="rulebook_version_number_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.rulebook.slug} v{self.number}"

    def save(self, *args, **kwargs):
        if self.pk:
            raise ImmutableVersion(gettext(
                "%(version)s is published and cannot be changed; publish a new version instead"
            ) % {"version": self})
        super().save(*args, **kwargs)


class ImmutableVersion(Conflict):
    """Raised when code tries to change a published rulebook version or its rules."""


class Rule(models.Model):
    """One rule of one version. `rule_id` is stable across versions: the same id in v1 and v2 is the same
    rule (possibly reworded); the diff between versions is computed on it."""

    version = models.ForeignKey(RulebookVersion, on_delete=models.PROTECT, related_name="rules")
    position = models.PositiveIntegerField()
    rule_id = models.CharField(max_length=80)
    category = models.CharField(max_length=80, db_index=True)
    statement = models.TextField()
    examples = models.JSONField(default=list, blank=True, help_text='[{"input": ..., "output": ...}]')
    scope = models.JSONField(default=dict, blank=True, help_text='{"task_types": [...], "subsets": [...]}')
    provenance = models.JSONField(default=dict, blank=True)
    # Tables a deterministic engine reads (the normalizer's counters, units, letter readings...). Nullable
    # without a default so adding the column keeps SQLite's immutability trigger (no table rebuild).
    data = models.JSONField(null=True, blank=True, help_text="tables the rule's engine reads, e.g. counters")

    class Meta:
        ordering = ["version", "position"]
        constraints = [
            models.UniqueConstraint(fields=["version", "rule_id"], name="rule_id_unique_in_version"),
            models.UniqueConstraint(fields=["version", "position"], name="rule_position_unique_in_version"),
        ]

    def __str__(self) -> str:
        return f"{self.rule_id} ({self.version})"

    def save(self, *args, **kwargs):
        if self.pk:
            raise ImmutableVersion(gettext(
                "rule %(rule_id)s of %(version)s is published and cannot be changed"
            ) % {"rule_id": self.rule_id, "version": self.version})
        super().save(*args, **kwargs)

    def content(self) -> dict:
        """What a rule says, in the order the YAML files use; the diff compares this."""
        content = {
            "id": self.rule_id,
            "category": self.category,
            "statement": self.statement,
            "examples": self.examples,
            "scope": self.scope,
            "provenance": self.provenance,
        }
        if self.data:
            content["data"] = self.data
        return content

    @property
    def applies_everywhere(self) -> bool:
        return not (self.scope.get("task_types") or self.scope.get("subsets"))


# --- The consultation loop ------------------------------------------------------------------------------

HYPERTRANSLATION_ACTIONS = [
    ("direct_translation", "Direct translation"),
    ("format_conversion", "Format conversion"),
    ("equivalent_replacement", "Equivalent replacement"),
    ("deletion", "Deletion"),
    ("error_correction", "Error correction"),
]
UNDECIDED = "undecided"
NEEDS_ATTENTION = "needs_attention"

# The job kinds of a round's agent steps (handlers in agent_steps, registered by jobs.py).
ANALYSIS_JOB = "consultations.analyse"
QUESTIONS_JOB = "consultations.questions"
CODIFY_JOB = "consultations.codify"
# Actions that take a sample away from a plain translation: the paper's "flagged for redesign or deletion".
FLAGGED_ACTIONS = {"equivalent_replacement", "deletion"}


class RoundStatus(models.TextChoices):
    DRAFT = "draft", _("Not started")
    ANALYSING = "analysing", _("Analysing samples")
    ANSWERING = "answering", _("Questions open for experts")
    CODIFYING = "codifying", _("Codifying answers into rules")
    CLOSED = "closed", _("Closed: new version published")


class Round(models.Model):
    """One consultation round on a rulebook: analyse samples under `base_version`, raise at most
    `max_questions` questions, collect answers, codify them into `resulting_version`."""

    rulebook = models.ForeignKey(Rulebook, on_delete=models.PROTECT, related_name="rounds")
    number = models.PositiveIntegerField()
    base_version = models.ForeignKey(RulebookVersion, on_delete=models.PROTECT, related_name="rounds")
    resulting_version = models.OneToOneField(
        RulebookVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="from_round"
    )
    status = models.CharField(max_length=20, choices=RoundStatus.choices, default=RoundStatus.DRAFT)
    scope = models.JSONField(default=dict, blank=True, help_text='{"subsets": [...], "task_types": [...]}')
    max_questions = models.PositiveIntegerField()
    lead_expert = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text="may settle disagreements between experts, besides the admins",
    )
    is_demo = models.BooleanField(default=False, help_text="demo data created by seed_demo, not by an agent")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["rulebook", "number"], name="round_number_unique_per_rulebook"),
            models.CheckConstraint(condition=models.Q(max_questions__gte=1), name="round_max_questions_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.rulebook.slug} round {self.number}"


class RoundEvent(models.Model):
    """The round's audit trail: append-only, one row per thing that happened, with who and when."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="events")
    at = models.DateTimeField(auto_now_add=True)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    kind = models.CharField(max_length=40)
    message = models.TextField()
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["at", "pk"]

    def __str__(self) -> str:
        return f"{self.round}: {self.message}"


class AnalysisResult(models.Model):
    """What the analyst decided for one sample under one rulebook version. Never updated: a later version
    gives a new row, so an old result always shows the version it was made under."""

    sample = models.ForeignKey(SourceSample, on_delete=models.CASCADE, related_name="consultation_analyses")
    version = models.ForeignKey(RulebookVersion, on_delete=models.PROTECT, related_name="analyses")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="analyses")
    action = models.CharField(max_length=40, db_index=True, help_text="an action of the rulebook kind, undecided or needs_attention")
    cited_rule_ids = models.JSONField(default=list, blank=True)
    reason = models.TextField(blank=True, help_text="why undecided (what the rulebook does not settle), or why it needs attention")
    agent_call = models.ForeignKey(
        "agents.AgentCall", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text="the agent call behind it (provider, model, prompt version, cost)",
    )
    job = models.ForeignKey("jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["sample_id", "version__number"]
        constraints = [models.UniqueConstraint(fields=["sample", "version"], name="one_analysis_per_sample_and_version")]

    def __str__(self) -> str:
        return f"sample {self.sample_id} under {self.version}: {self.action}"


class QuestionStatus(models.TextChoices):
    OPEN = "open", _("Open for answers")
    DISPUTED = "disputed", _("Experts disagree: waiting for the admin or lead expert")
    DECIDED = "decided", _("Decided")
    WITHDRAWN = "withdrawn", _("Withdrawn")


class QuestionOrigin(models.TextChoices):
    ANALYSIS = "analysis", "Raised from undecided samples"
    GROUND_TRUTH = "ground_truth", "Ground-truth correction needing an expert"
    DEMO = "demo", "Demo data (seed_demo)"


class DecisionQuestion(models.Model):
    """A decision the rulebook does not settle yet, put to experts. Questions from ground-truth corrections
    have no round: they are about one sample's answer, not about a rule."""

    round = models.ForeignKey(Round, null=True, blank=True, on_delete=models.CASCADE, related_name="questions")
    number = models.PositiveIntegerField()
    origin = models.CharField(max_length=20, choices=QuestionOrigin.choices, default=QuestionOrigin.ANALYSIS)
    title = models.CharField(max_length=300)
    decision_needed = models.TextField()
    recommendation = models.CharField(max_length=10, blank=True, help_text="key of the recommended option")
    recommendation_why = models.TextField(blank=True)
    rules_touched = models.JSONField(default=list, blank=True, help_text="rule ids of the base version")
    affected_samples = models.ManyToManyField(SourceSample, related_name="decision_questions", blank=True)
    example_samples = models.ManyToManyField(SourceSample, related_name="+", blank=True)
    required_experts = models.PositiveSmallIntegerField(default=1)
    status = models.CharField(max_length=20, choices=QuestionStatus.choices, default=QuestionStatus.OPEN, db_index=True)
    # The decision, once taken (by agreeing experts, or by whoever settled a disagreement).
    decided_option = models.ForeignKey("QuestionOption", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    decided_text = models.TextField(blank=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    decided_at = models.DateTimeField(null=True, blank=True)
    settlement_note = models.TextField(blank=True)
    # The ground-truth correction it asks about (transfer pushes it here when it sends one to an expert).
    correction = models.OneToOneField(
        "transfer.Correction", null=True, blank=True, on_delete=models.PROTECT, related_name="expert_question"
    )
    agent_call = models.ForeignKey("agents.AgentCall", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["round", "number"]
        constraints = [
            models.UniqueConstraint(fields=["round", "number"], name="question_number_unique_per_round"),
            models.CheckConstraint(condition=models.Q(required_experts__gte=1), name="question_needs_an_expert"),
        ]

    def __str__(self) -> str:
        return f"Q{self.number}: {self.title}"

    @property
    def decision_label(self) -> str:
        if self.decided_option_id:
            return f"{self.decided_option.key}. {self.decided_option.label}"
        return self.decided_text


class QuestionOption(models.Model):
    question = models.ForeignKey(DecisionQuestion, on_delete=models.CASCADE, related_name="options")
    key = models.CharField(max_length=10)
    label = models.CharField(max_length=300)
    effect = models.TextField(help_text="what choosing it would do to the affected samples")

    class Meta:
        ordering = ["question", "key"]
        constraints = [models.UniqueConstraint(fields=["question", "key"], name="option_key_unique_per_question")]

    def __str__(self) -> str:
        return f"{self.key}. {self.label}"


class ExpertAnswer(models.Model):
    """One expert's answer to one question. Saved while the expert types (draft), then submitted."""

    question = models.ForeignKey(DecisionQuestion, on_delete=models.CASCADE, related_name="answers")
    expert = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="consultation_answers")
    option = models.ForeignKey(QuestionOption, null=True, blank=True, on_delete=models.PROTECT, related_name="answers")
    text = models.TextField(blank=True, help_text="the expert's own answer, instead of an option")
    comment = models.TextField(blank=True)
    confidence = models.PositiveSmallIntegerField(null=True, blank=True, help_text="1 (unsure) to 5 (certain)")
    submitted_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["question", "submitted_at"]
        constraints = [
            models.UniqueConstraint(fields=["question", "expert"], name="one_answer_per_expert_and_question"),
            models.CheckConstraint(
                condition=models.Q(confidence__isnull=True) | models.Q(confidence__gte=1, confidence__lte=5),
                name="answer_confidence_1_to_5",
            ),
            # A submitted answer says something: an option, or the expert's own text (not both).
            models.CheckConstraint(
                condition=models.Q(submitted_at__isnull=True)
                | (models.Q(option__isnull=False) & models.Q(text=""))
                | (models.Q(option__isnull=True) & ~models.Q(text="")),
                name="submitted_answer_has_option_or_text",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.expert} on Q{self.question.number}"

    @property
    def is_submitted(self) -> bool:
        return self.submitted_at is not None

    @property
    def choice_key(self) -> str:
        """What two answers are compared on: the option key, or the normalised own text."""
        return f"option:{self.option.key}" if self.option_id else "text:" + " ".join(self.text.split()).casefold()


class DraftStatus(models.TextChoices):
    DRAFTED = "drafted", _("Drafted, waiting for approval")
    APPROVED = "approved", _("Approved")
    REJECTED = "rejected", _("Rejected")
    NEEDS_ATTENTION = "needs_attention", _("Needs attention")


class RuleDraft(models.Model):
    """The rule the codifier drafted from a decided question; the answering expert or an admin approves it,
    possibly after editing. Approved drafts form the next rulebook version."""

    question = models.OneToOneField(DecisionQuestion, on_delete=models.CASCADE, related_name="rule_draft")
    rule_id = models.CharField(max_length=80, blank=True)
    change = models.CharField(max_length=10, default="add", help_text="add a rule, amend one (same id), or retire one")
    category = models.CharField(max_length=80, blank=True)
    statement = models.TextField(blank=True)
    examples = models.JSONField(default=list, blank=True)
    scope = models.JSONField(default=dict, blank=True)
    drafted_statement = models.TextField(blank=True, help_text="the agent's wording, kept when an approver edits")
    status = models.CharField(max_length=20, choices=DraftStatus.choices, default=DraftStatus.DRAFTED)
    reason = models.TextField(blank=True, help_text="why it needs attention")
    agent_call = models.ForeignKey("agents.AgentCall", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    approved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    approved_at = models.DateTimeField(null=True, blank=True)
    edited = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["question"]

    def __str__(self) -> str:
        return f"{self.rule_id or 'draft'} from {self.question}"
