from django.core.management.base import BaseCommand, CommandError

from apps.evaluation import services
from apps.evaluation.management.commands._common import acting_user, add_run_arguments, run_inline, the_run


class Command(BaseCommand):
    help = ("Collect a model's responses from its OpenAI-compatible endpoint (each item's stored audio as input_audio, "
            "the run's decoding settings), waiting for the job. Running it again resumes with the items left.")

    def add_arguments(self, parser):
        add_run_arguments(parser)
        parser.add_argument("--limit", type=int, help="ask for at most this many items")

    def handle(self, *args, limit, **options):
        user = acting_user(options.get("user"))
        run = the_run(options, user)
        job = run_inline(lambda: services.start_collection(run=run, acting_user=user, limit=limit))
        if job.status != "succeeded":
            raise CommandError(f"run {run.pk}: {job.message}")
        result = job.result
        self.stdout.write(f"Run {run.pk} ({run}): {result['asked']} asked, {result['from_cache']} from cache, "
                          f"{result['without_response']} without a response, in {result['seconds']} s.")
        for item_id, reason in {**result["missing_audio"], **result["failed"]}.items():
            self.stderr.write(f"  {item_id}: {reason}")
