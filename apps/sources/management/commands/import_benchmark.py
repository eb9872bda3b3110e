from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.audio.store import atomic_import
from apps.core.errors import ApplicationError
from apps.sources.services import import_benchmark
from apps.sources.source_audio import import_audio_folder


class Command(BaseCommand):
    help = ("Import one subset of an English source benchmark: VoiceBench JSONL or Parquet, or an OpenAudioBench CSV. "
            "All or nothing; bad rows are named by line.")

    def add_arguments(self, parser):
        parser.add_argument("--format", required=True, choices=["voicebench", "openaudiobench"])
        parser.add_argument("--subset", required=True, help="e.g. sd-qa, mmsu, bbh, web_questions, trivia_qa")
        parser.add_argument("--benchmark", help="benchmark name (default: the format name)")
        parser.add_argument("--audio-dir", help="a folder under an import root (SORI_IMPORT_ROOTS) with the samples' audio")
        parser.add_argument("file", type=Path)

    def handle(self, *args, **opts):
        path: Path = opts["file"]
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        try:
            with atomic_import():  # the subset and its audio, all or nothing
                result = import_benchmark(fmt=opts["format"], subset=opts["subset"], path=path, benchmark=opts["benchmark"])
                audio = import_audio_folder(benchmark=result.benchmark, folder=opts["audio_dir"]) if opts["audio_dir"] else None
        except ApplicationError as exc:
            raise CommandError(f"nothing imported from {path.name}:\n" + "\n".join(exc.lines())) from None
        self.stdout.write(self.style.SUCCESS(
            f"{result.benchmark.name}/{result.subset}: {result.created} samples imported, {result.unchanged} already there"
        ))
        if audio is not None:
            self.stdout.write(self.style.SUCCESS(audio.summary()))
