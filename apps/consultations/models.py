"""Rulebooks and the consultation loop that grows them.

A rulebook (language + kind) has numbered versions; a version and its rules never change once written
(the database refuses updates to rules, see migration 0002). A new version is new rows: the previous rules
carried over plus the rules approved in a consultation round, each with its provenance.
"""

from django.conf import settings
from django.db import models


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
            raise ImmutableVersion(f"{self} is published and cannot be changed; publish a new version instead")
        super().save(*args, **kwargs)


class ImmutableVersion(Exception):
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
            raise ImmutableVersion(f"rule {self.rule_id} of {self.version} is published and cannot be changed")
        super().save(*args, **kwargs)

    def content(self) -> dict:
        """What a rule says, in the order the YAML files use; the diff compares this."""
        return {
            "id": self.rule_id,
            "category": self.category,
            "statement": self.statement,
            "examples": self.examples,
            "scope": self.scope,
            "provenance": self.provenance,
        }

    @property
    def applies_everywhere(self) -> bool:
        return not (self.scope.get("task_types") or self.scope.get("subsets"))
