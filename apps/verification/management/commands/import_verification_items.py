from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.core.errors import ApplicationError
from apps.verification.services import import_items


class Command(BaseCommand):
    help = "Import HPSU-format items (JSON array or JSONL) into a verification project; all or nothing."

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True, help="project name (created when new)")
        parser.add_argument("--file", required=True, type=Path)
        parser.add_argument("--media", required=True, type=Path, help="folder that audio_path is relative to")
        parser.add_argument("--settle-on-first-rejection", action="store_true", default=None)

    def handle(self, *args, name, file, media, settle_on_first_rejection, **options):
        if not file.is_file():
            raise CommandError(f"{file}: no such file")
        if not media.is_dir():
            raise CommandError(f"{media}: no such folder")
        try:
            batch = import_items(project_name=name, file_path=file, media_dir=media,
                                 settle_on_first_rejection=settle_on_first_rejection)
        except ApplicationError as exc:
            raise CommandError("nothing imported:\n  " + "\n  ".join(exc.lines())) from None
        self.stdout.write(f"Imported {batch.item_count} items into {batch.project.name!r} (project {batch.project_id}).")
