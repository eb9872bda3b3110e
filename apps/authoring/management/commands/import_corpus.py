from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.authoring.corpora import PARSERS
from apps.authoring.services import import_corpus
from apps.core.errors import ApplicationError


class Command(BaseCommand):
    help = ("Import a Korean ASR corpus for KMMAU questions (atomic; every bad row is named by file and line). "
            "FILE: KSS transcript.v.1.4.txt, a Zeroth-Korean folder, a KsponSpeech folder, or a CSV/JSONL manifest.")

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--name", required=True)
        parser.add_argument("--format", required=True, choices=sorted(PARSERS))
        parser.add_argument("--audio", type=Path, default=None, help="audio folder (default: beside FILE)")
        parser.add_argument("--license", default="", help="SPDX identifier (KSS and Zeroth have defaults)")

    def handle(self, *args, file, name, format, audio, license, **options):
        try:
            corpus = import_corpus(name=name, fmt=format, path=file, audio_dir=audio, license=license)
        except ApplicationError as refused:
            problems = [str(p) for p in getattr(refused, "problems", [])] or [refused.message]
            raise CommandError("nothing was imported:\n" + "\n".join(problems)) from None
        self.stderr.write(f"Imported {corpus.clips.count()} utterances into corpus {corpus.name!r} ({corpus.license}).")
        self.stdout.write(str(corpus.pk))
