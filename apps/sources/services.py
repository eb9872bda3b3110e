"""Importing a source benchmark (VoiceBench, OpenAudioBench) subset by subset, all or nothing: the samples every
transfer stage (apps.transfer) and the consultation loop (apps.consultations) read."""

from dataclasses import dataclass
from pathlib import Path

from django.db import transaction
from django.utils.translation import gettext

from apps.core.errors import Conflict, FileProblem
from apps.core.tabular import refuse
from apps.sources import formats
from apps.sources.catalogue import SourceFormat
from apps.sources.models import SourceBenchmark, SourceSample

MAX_REPORTED_ERRORS = 50


@dataclass
class ImportResult:
    benchmark: SourceBenchmark
    subset: str
    created: int
    unchanged: int


def import_benchmark(*, fmt: str, subset: str, path: Path, data: bytes | None = None, benchmark: str | None = None) -> ImportResult:
    """Import one subset file. All or nothing: any bad row rejects the file with every error named.
    Importing the same file again changes nothing; a row whose id exists with a different record is an error
    (the imported answer is never overwritten)."""
    fmt = SourceFormat(fmt)
    subset = formats.canonical_subset(fmt, subset)
    rows, problems = formats.parse_file(fmt, subset, Path(path), data)
    name = benchmark or fmt.value
    with transaction.atomic():
        bench, _ = SourceBenchmark.objects.get_or_create(name=name, defaults={"format": fmt})
        if bench.format != fmt:
            raise Conflict(gettext(
                "benchmark %(name)r holds %(format)s data, not %(value)s"
            ) % {"name": name, "format": bench.format, "value": fmt.value}, code="other_format")
        existing = {
            s.source_id: s for s in SourceSample.objects.filter(benchmark=bench, subset=subset, source_id__in=[r.source_id for r in rows])
        }
        new, unchanged = [], 0
        for row in rows:
            old = existing.get(row.source_id)
            if old is None:
                new.append(SourceSample(
                    benchmark=bench, subset=subset, task_type=row.task_type, source_id=row.source_id,
                    transcription=row.transcription, answer=row.answer, aliases=row.aliases,
                    audio_filename=row.audio_filename, raw=row.raw, line_number=row.line,
                ))
            elif (old.transcription, old.answer, old.aliases) == (row.transcription, row.answer, row.aliases):
                unchanged += 1
            else:
                problems.append(FileProblem(
                    file=Path(path).name, line=row.line, reason=f"sample {row.source_id!r} was imported before with "
                    "a different question or answer; the imported answer is never overwritten",
                ))
        refuse(problems, limit=MAX_REPORTED_ERRORS)
        SourceSample.objects.bulk_create(new, batch_size=500)
    return ImportResult(benchmark=bench, subset=subset, created=len(new), unchanged=unchanged)


