from django.core.management.base import BaseCommand, CommandError

from apps.core.errors import ApplicationError
from apps.sources.models import SourceBenchmark
from apps.sources.source_audio import import_audio_folder


class Command(BaseCommand):
    help = ("Store a source benchmark's audio from a folder under an import root (SORI_IMPORT_ROOTS): each file "
            "checked as audio and stored once. All or nothing.")

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", required=True, help="the source benchmark's name, e.g. voicebench")
        parser.add_argument("folder")

    def handle(self, *args, benchmark, folder, **opts):
        found = SourceBenchmark.objects.filter(name=benchmark).first()
        if found is None:
            raise CommandError(f"no source benchmark {benchmark!r}")
        try:
            result = import_audio_folder(benchmark=found, folder=folder)
        except ApplicationError as exc:
            raise CommandError("no audio imported:\n" + "\n".join(exc.lines())) from None
        self.stdout.write(self.style.SUCCESS(result.summary()))
