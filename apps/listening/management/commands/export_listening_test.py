from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.listening.exports import write_export
from apps.listening.models import ListeningTest


class Command(BaseCommand):
    help = "Export a listening test: ratings.csv, clips.csv, their Parquet twins, listener_ratings.csv and audio/."

    def add_arguments(self, parser):
        parser.add_argument("test", help="the test's id or name")
        parser.add_argument("--out", required=True, type=Path, help="output folder (created if missing)")
        parser.add_argument("--no-audio", action="store_true", help="write the tables only")

    def handle(self, *args, test, out, no_audio, **options):
        found = ListeningTest.objects.filter(pk=int(test)).first() if test.isdigit() else None
        found = found or ListeningTest.objects.filter(name=test).first()
        if found is None:
            raise CommandError(f"no listening test with id or name {test!r}")
        paths = write_export(found, out, include_audio=not no_audio)
        for path in paths:
            if path.parent == out or path.parent.resolve() == out.resolve():
                self.stdout.write(str(path))
        self.stderr.write(f"Wrote {len(paths)} files for {found.name!r} into {out}.")
