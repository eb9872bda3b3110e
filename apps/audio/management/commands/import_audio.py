from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.audio import services
from apps.core.errors import FileRefused


class Command(BaseCommand):
    help = "Import every audio file under a folder. All files are validated first; one bad file stores nothing."

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path)
        parser.add_argument("--convert", action="store_true", help="store 16 kHz mono WAV copies")

    def handle(self, *args, folder, convert, **options):
        if not folder.is_dir():
            raise CommandError(f"{folder}: not a folder")
        try:
            assets = services.import_folder(folder, convert=convert)
        except FileRefused as exc:
            raise CommandError("nothing was imported:\n" + "\n".join(f"  {line}" for line in exc.lines())) from None
        self.stdout.write(f"imported {len(assets)} audio file(s) from {folder}")
