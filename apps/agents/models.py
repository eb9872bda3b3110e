"""The agent layer's records: which provider and model each role uses, every call made (the call log, with
tokens, cost and latency), and the response cache that makes a repeated input free and reproducible."""

from decimal import Decimal

from django.conf import settings
from django.db import models


class AgentRole(models.TextChoices):
    REVIEWER = "reviewer", "Reviewer"
    META_REVIEWER = "meta_reviewer", "Meta-reviewer"
    ANALYST = "analyst", "Analyst"
    TRANSLATOR = "translator", "Translator"
    NORMALIZER = "normalizer", "Normalizer"
    QUESTION_WRITER = "question_writer", "Question writer"
    JUDGE = "judge", "Judge (scores model answers)"


class Provider(models.TextChoices):
    ANTHROPIC = "anthropic", "Anthropic (Messages API)"
    OPENAI = "openai", "OpenAI or OpenAI-compatible (Chat Completions API)"


class RoleAssignment(models.Model):
    """An admin's choice of provider and model for a role. Without a row, settings.AGENTS_DEFAULT_ROLES holds."""

    role = models.CharField(max_length=32, choices=AgentRole.choices, unique=True)
    provider = models.CharField(max_length=20, choices=Provider.choices)
    model = models.CharField(max_length=200, help_text="the provider's model name, e.g. claude-sonnet-4-5")
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["role"]

    def __str__(self) -> str:
        return f"{self.get_role_display()}: {self.provider}:{self.model}"


class CallStatus(models.TextChoices):
    OK = "ok", "Answered"
    CACHED = "cached", "From cache (no request)"
    INVALID = "invalid", "Answer failed validation"
    FAILED = "failed", "Provider failed"


class AgentCallQuerySet(models.QuerySet):
    def total_cost(self):
        return self.aggregate(total=models.Sum("cost_usd"))["total"] or Decimal("0")


class AgentCall(models.Model):
    """One answer asked of a model (or served from the cache). A validation retry is its own row, so the log
    adds up to what the provider bills."""

    role = models.CharField(max_length=32, choices=AgentRole.choices, db_index=True)
    provider = models.CharField(max_length=20, choices=Provider.choices)
    model = models.CharField(max_length=200)
    prompt_name = models.CharField(max_length=100, db_index=True)
    prompt_version = models.PositiveIntegerField()
    input_hash = models.CharField(max_length=64, db_index=True, help_text="sha256 of the full input")
    attempt = models.PositiveSmallIntegerField(default=1, help_text="1, or 2 for the retry after a validation error")
    http_attempts = models.PositiveSmallIntegerField(default=0, help_text="HTTP requests made, transient retries included")
    status = models.CharField(max_length=20, choices=CallStatus.choices, db_index=True)
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    priced = models.BooleanField(default=True, help_text="false when the model is missing from the price table")
    latency_ms = models.PositiveIntegerField(default=0)
    request = models.JSONField(default=dict, blank=True, help_text="system prompt and messages as sent")
    response_text = models.TextField(blank=True)
    raw_response = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    job = models.ForeignKey("jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="agent_calls")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    objects = AgentCallQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.role} {self.provider}:{self.model} {self.prompt_name} v{self.prompt_version} ({self.status})"

    @property
    def cached(self) -> bool:
        return self.status == CallStatus.CACHED


class CachedResponse(models.Model):
    """A validated answer, keyed by the hash of the full input (provider, model, prompt version, rendered
    text, schema). Only answers that validated are cached, so a bad answer is never replayed."""

    input_hash = models.CharField(max_length=64, unique=True)
    provider = models.CharField(max_length=20, choices=Provider.choices)
    model = models.CharField(max_length=200)
    prompt_name = models.CharField(max_length=100)
    prompt_version = models.PositiveIntegerField()
    response_text = models.TextField()
    data = models.JSONField()
    source_call = models.ForeignKey(AgentCall, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    hits = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.prompt_name} v{self.prompt_version} {self.input_hash[:12]}"
