from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.authoring.exports import write_export
from apps.authoring.models import QuestionSet


class Command(BaseCommand):
    help = ("Export a KMMAU set's accepted questions: kmmau.json in MMAU's test-mini layout (scored unchanged by "
            "MMAU's evaluation.py once model_output is added), kmmau.csv, LICENSE.md and the audio files.")

    def add_arguments(self, parser):
        parser.add_argument("set_name", metavar="SET")
        parser.add_argument("--out", required=True, type=Path)

    def handle(self, *args, set_name, out, **options):
        question_set = QuestionSet.objects.filter(name=set_name).first()
        if question_set is None:
            raise CommandError(f"no question set named {set_name!r}")
        counts = write_export(question_set, out)
        self.stdout.write(f"{counts['questions']} accepted questions and {counts['audio_files']} audio files in {out}")
