"""The source benchmarks and their samples, as imported (apps.sources.services). The tables keep the names they
had under apps.transfer (no data moved when the models moved here)."""

from django.db import models

from apps.sources.catalogue import DETERMINISTIC_TASKS, SourceFormat, TaskType


class SourceBenchmark(models.Model):
    name = models.SlugField(max_length=100, unique=True, help_text="e.g. voicebench, openaudiobench")
    format = models.CharField(max_length=20, choices=SourceFormat.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "transfer_sourcebenchmark"
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
    audio = models.ForeignKey("audio.AudioAsset", null=True, blank=True, on_delete=models.PROTECT, related_name="+",
                              help_text="the English audio, checked and stored (apps.sources.source_audio)")
    raw = models.JSONField(help_text="the source record as imported")
    line_number = models.PositiveIntegerField(help_text="line (JSONL, CSV) or row (Parquet) in the imported file")
    imported_at = models.DateTimeField(auto_now_add=True)

    objects = SourceSampleQuerySet.as_manager()

    class Meta:
        db_table = "transfer_sourcesample"
        ordering = ["benchmark", "subset", "id"]
        constraints = [
            models.UniqueConstraint(fields=["benchmark", "subset", "source_id"], name="source_sample_unique_id"),
        ]

    def __str__(self) -> str:
        return f"{self.benchmark}/{self.subset}/{self.source_id}"
