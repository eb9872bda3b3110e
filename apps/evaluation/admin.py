from django.contrib import admin

from apps.evaluation.models import EvalItem, EvaluatedModel, EvaluationRun, ItemScore, JudgeCall, SubsetScore


@admin.register(EvaluatedModel)
class EvaluatedModelAdmin(admin.ModelAdmin):
    list_display = ("name", "version", "answer_source", "served_model", "created_at")
    search_fields = ("name", "version", "served_model")


@admin.register(EvaluationRun)
class EvaluationRunAdmin(admin.ModelAdmin):
    list_display = ("id", "model", "benchmark_name", "language", "status", "item_count", "created_at")
    list_filter = ("state", "language", "family")
    list_select_related = ("model", "collect_job", "evaluate_job")  # the shown status reads the run's jobs
    raw_id_fields = ("model", "release", "source_benchmark", "collect_job", "evaluate_job")


@admin.register(EvalItem)
class EvalItemAdmin(admin.ModelAdmin):
    list_display = ("item_id", "run", "subset", "metric")
    list_filter = ("metric",)
    search_fields = ("item_id",)
    raw_id_fields = ("run", "release_item", "source_sample")


class JudgeCallInline(admin.TabularInline):
    model = JudgeCall
    extra = 0
    raw_id_fields = ("agent_call",)


@admin.register(ItemScore)
class ItemScoreAdmin(admin.ModelAdmin):
    list_display = ("item", "method", "score", "evaluator", "version")
    list_filter = ("method", "evaluator")
    raw_id_fields = ("item",)
    inlines = [JudgeCallInline]


@admin.register(SubsetScore)
class SubsetScoreAdmin(admin.ModelAdmin):
    list_display = ("run", "subset", "method", "score", "n", "primary")
    list_filter = ("method", "primary")
