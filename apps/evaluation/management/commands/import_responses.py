from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.core.errors import ApplicationError
from apps.evaluation import responses
from apps.evaluation.management.commands._common import acting_user, add_run_arguments, the_run


class Command(BaseCommand):
    help = ("Import a model's responses (CSV, JSONL or Parquet with id and response) into a run: --run ID, or "
            "--model NAME --benchmark release:NAME@VERSION|source:NAME for a new run. All or nothing: every bad "
            "row is named and nothing is written.")

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        add_run_arguments(parser)

    def handle(self, *args, file, **options):
        user = acting_user(options.get("user"))
        run = the_run(options, user)
        try:
            count = responses.import_responses(run=run, source=file, acting_user=user)
        except ApplicationError as exc:
            raise CommandError("\n".join(exc.lines())) from None
        self.stdout.write(f"Imported {count} responses into run {run.pk} ({run}). "
                          f"Score them: manage.py evaluate_responses --run {run.pk}")
