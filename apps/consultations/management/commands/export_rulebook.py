from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.consultations.models import RulebookVersion
from apps.consultations.rulebooks import export_version, get_version


class Command(BaseCommand):
    help = "Write a rulebook version back as rulebooks/<language>/<kind>/v<N>.yaml and v<N>.md."

    def add_base_argument(self, parser, *args, **kwargs):
        # The command line is `export_rulebook SLUG --version N`, so Django's own --version goes.
        if "--version" not in args:
            super().add_base_argument(parser, *args, **kwargs)

    def add_arguments(self, parser):
        parser.add_argument("slug", help="rulebook slug, e.g. ko-hypertranslation")
        parser.add_argument("--version", dest="number", type=int, required=True, help="version number")
        parser.add_argument("--dir", type=Path, default=None, help="folder to write (default settings.RULEBOOKS_DIR)")

    def handle(self, *args, slug, number, **options):
        try:
            version = get_version(slug, number)
        except RulebookVersion.DoesNotExist:
            raise CommandError(f"rulebook {slug!r} has no version {number}") from None
        for path in export_version(version, options["dir"]):
            self.stdout.write(f"wrote {path}")
