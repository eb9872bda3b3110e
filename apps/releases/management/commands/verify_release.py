from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.releases.writing import verify_folder


class Command(BaseCommand):
    help = "Check a release folder against its SHA256SUMS; names every changed, missing or unlisted file."

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path)

    def handle(self, *args, folder, **options):
        problems = verify_folder(folder)
        if problems:
            raise CommandError("\n".join(problems))
        self.stdout.write(f"{folder}: every file matches SHA256SUMS")
