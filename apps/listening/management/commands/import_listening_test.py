from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.core.errors import ApplicationError
from apps.listening.services import import_listening_test


class Command(BaseCommand):
    help = "Import a MOS listening test from a CSV or JSONL manifest (atomic; bad rows are named by line)."

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True, help="a unique name for the test")
        parser.add_argument("--manifest", required=True, type=Path, help="manifest file; audio paths are relative to it")

    def handle(self, *args, name, manifest, **options):
        try:
            test = import_listening_test(name=name, manifest=manifest)
        except ApplicationError as refused:
            raise CommandError("nothing was imported:\n" + "\n".join(refused.lines())) from None
        regular = test.clips.regular().count()
        gold = test.clips.gold().count()
        self.stderr.write(f"Imported {regular} clips and {gold} gold clips into {test.name!r}.")
        self.stdout.write(str(test.pk))
