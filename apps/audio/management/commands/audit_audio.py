from django.core.management.base import BaseCommand, CommandError

from apps.audio import audit as audio_audit


class Command(BaseCommand):
    help = (
        "List stored audio files that no asset names (orphans; --remove-orphans deletes them) and report "
        "assets whose file is missing or whose bytes do not match their sha256. Fails when an asset is damaged."
    )

    def add_arguments(self, parser):
        parser.add_argument("--remove-orphans", action="store_true", help="delete the orphans listed")
        parser.add_argument(
            "--min-age", type=int, default=audio_audit.ORPHAN_MIN_AGE_SECONDS, metavar="SECONDS",
            help="remove only orphans at least this old (default %(default)s: an import may be writing a younger one)",
        )
        parser.add_argument("--quick", action="store_true", help="compare sizes only, without reading every file")

    def handle(self, *args, remove_orphans, min_age, quick, **options):
        if min_age < 0:
            raise CommandError("--min-age: must be 0 or more seconds")
        audit = audio_audit.audit_audio_storage(remove_orphans=remove_orphans, check_hash=not quick, min_age_seconds=min_age)
        for line in audit.lines():
            self.stdout.write(line)
        kept = len(audit.orphans) - len(audit.removed)
        self.stdout.write(
            f"{len(audit.orphans)} orphan file(s), {len(audit.removed)} removed"
            + (f", {kept} kept (younger than {min_age} s, or in use)" if remove_orphans and kept else "")
            + f"; {len(audit.problems)} damaged asset(s)"
        )
        if audit.problems:
            raise CommandError(f"{len(audit.problems)} asset(s) have a missing or wrong file (listed above); restore them from a backup")
