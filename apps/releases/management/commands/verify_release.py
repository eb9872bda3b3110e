from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.core.errors import ApplicationError
from apps.releases.models import Release
from apps.releases.services import rebuild_differences
from apps.releases.writing import verify_folder


class Command(BaseCommand):
    help = ("Check a release folder against its SHA256SUMS (names every changed, missing or unlisted file), or "
            "with --rebuild NAME VERSION rebuild a stored release into a temporary folder and compare every file.")

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path, nargs="?")
        parser.add_argument("--rebuild", nargs=2, metavar=("NAME", "VERSION"),
                            help="rebuild this stored release from its data and compare its files byte for byte")

    def handle(self, *args, folder, rebuild, **options):
        if rebuild:
            name, version = rebuild
            release = Release.objects.filter(name=name, version=version).first()
            if release is None:
                raise CommandError(f"no release {name} {version}")
            try:
                problems = rebuild_differences(release)
            except ApplicationError as exc:
                raise CommandError(str(exc)) from None
            if problems:
                raise CommandError(f"{release} does not rebuild to the same bytes:\n" + "\n".join(problems))
            self.stdout.write(f"{release}: the rebuild gives the same bytes in all {release.files.count()} files")
            return
        if folder is None:
            raise CommandError("name a release folder, or --rebuild NAME VERSION")
        problems = verify_folder(folder)
        if problems:
            raise CommandError("\n".join(problems))
        self.stdout.write(f"{folder}: every file matches SHA256SUMS")
