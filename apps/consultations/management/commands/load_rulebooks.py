from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.consultations.rulebooks import load_rulebooks
from apps.core.errors import ApplicationError


class Command(BaseCommand):
    help = "Load every rulebook version file (rulebooks/<language>/<kind>/v<N>.yaml). Idempotent."

    def add_arguments(self, parser):
        parser.add_argument("--dir", type=Path, default=None, help="folder to read (default settings.RULEBOOKS_DIR)")

    def handle(self, *args, **options):
        try:
            outcomes = load_rulebooks(options["dir"])
        except ApplicationError as exc:
            raise CommandError(str(exc)) from None
        for outcome in outcomes:
            state = "loaded" if outcome.created else "unchanged"
            self.stdout.write(f"{outcome.version}: {state} ({outcome.version.rules.count()} rules)")
