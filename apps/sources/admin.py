from django.contrib import admin

from apps.sources.models import SourceBenchmark, SourceSample


@admin.register(SourceBenchmark)
class SourceBenchmarkAdmin(admin.ModelAdmin):
    list_display = ["name", "format", "created_at"]


@admin.register(SourceSample)
class SourceSampleAdmin(admin.ModelAdmin):
    list_display = ["source_id", "benchmark", "subset", "task_type", "answer", "line_number"]
    list_filter = ["benchmark", "subset", "task_type"]
    search_fields = ["source_id", "transcription", "answer"]
    readonly_fields = ["benchmark", "subset", "source_id", "transcription", "answer", "aliases", "raw", "line_number"]
