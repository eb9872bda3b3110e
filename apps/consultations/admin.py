"""Django admin for consultations: rulebooks and their versions are read-only here (a new version comes from
a consultation round or a file; published versions never change)."""

from django.contrib import admin

from apps.consultations.models import (
    AnalysisResult,
    DecisionQuestion,
    ExpertAnswer,
    QuestionOption,
    Round,
    RoundEvent,
    Rule,
    Rulebook,
    RulebookVersion,
    RuleDraft,
)
from apps.core.admin import ReadOnlyAdmin


class RuleInline(admin.TabularInline):
    model = Rule
    fields = ["rule_id", "category", "statement"]
    readonly_fields = fields
    can_delete = False
    extra = 0

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Rulebook)
class RulebookAdmin(ReadOnlyAdmin):
    list_display = ["slug", "language", "kind", "title"]


@admin.register(RulebookVersion)
class RulebookVersionAdmin(ReadOnlyAdmin):
    list_display = ["rulebook", "number", "source", "created_by", "created_at"]
    list_filter = ["rulebook"]
    inlines = [RuleInline]


@admin.register(Rule)
class RuleAdmin(ReadOnlyAdmin):
    list_display = ["rule_id", "version", "category"]
    list_filter = ["version__rulebook", "category"]
    search_fields = ["rule_id", "statement"]


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
    list_display = ["__str__", "status", "base_version", "resulting_version", "max_questions", "is_demo", "created_at"]


@admin.register(RoundEvent)
class RoundEventAdmin(ReadOnlyAdmin):
    list_display = ["round", "at", "actor", "kind", "message"]
    list_filter = ["round", "kind"]


class OptionInline(admin.TabularInline):
    model = QuestionOption
    extra = 0


@admin.register(DecisionQuestion)
class DecisionQuestionAdmin(admin.ModelAdmin):
    """Admins may reword a question or change how many experts it needs; answers are the experts' own."""

    list_display = ["__str__", "round", "origin", "status", "required_experts", "created_at"]
    list_filter = ["status", "origin", "round"]
    fields = ["title", "decision_needed", "recommendation", "recommendation_why", "required_experts", "status"]
    readonly_fields = ["status"]
    inlines = [OptionInline]


@admin.register(ExpertAnswer)
class ExpertAnswerAdmin(ReadOnlyAdmin):
    list_display = ["question", "expert", "option", "confidence", "submitted_at"]


@admin.register(RuleDraft)
class RuleDraftAdmin(ReadOnlyAdmin):
    list_display = ["__str__", "status", "change", "approved_by", "approved_at"]


@admin.register(AnalysisResult)
class AnalysisResultAdmin(ReadOnlyAdmin):
    list_display = ["sample", "version", "action", "created_at"]
    list_filter = ["version", "action"]
