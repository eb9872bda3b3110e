from contextlib import nullcontext

from django.core.management.base import BaseCommand, CommandError

from apps.core.errors import ApplicationError
from apps.jobs.models import Job
from apps.jobs.services import run_here
from apps.transfer import selectors
from apps.transfer.ground_truth.selectors import correction_report
from apps.transfer.ground_truth.services import start_ground_truth_review
from apps.transfer.models import UnresolvedPolicy


class Command(BaseCommand):
    help = ("Start the ground-truth correction stage (reviewer and meta-reviewer agents) as a job. Samples already "
            "reviewed are skipped, so running it again resumes. Blocks until done unless --queue.")

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", required=True)
        parser.add_argument("--subset", default="")
        parser.add_argument("--limit", type=int, help="only the first N multiple-choice and short-answer samples")
        parser.add_argument("--on-unresolved", choices=[p.value for p in UnresolvedPolicy], default="exclude",
                            help="what a rejected or unresolved correction does to its sample")
        parser.add_argument("--budget", type=float, help="stop before the job's cost passes this many US dollars")
        parser.add_argument("--queue", action="store_true", help="hand the job to the configured runner and return")

    def handle(self, *args, **opts):
        if opts["limit"] is not None and opts["limit"] < 1:
            raise CommandError("--limit must be at least 1")
        try:
            with nullcontext() if opts["queue"] else run_here():  # unless --queue, this process runs the job
                run = start_ground_truth_review(
                    benchmark=opts["benchmark"], subset=opts["subset"], limit=opts["limit"],
                    on_unresolved=opts["on_unresolved"], budget_usd=opts["budget"],
                )
        except ApplicationError as exc:
            raise CommandError(str(exc)) from None
        job = Job.objects.get(pk=run.job_id)
        self.stdout.write(f"job #{job.pk}: {job.title}: {job.get_status_display()} {job.done}/{job.total} {job.message}")
        if opts["queue"]:
            return
        self.stdout.write(f"cost: ${selectors.run_cost(run):.4f}")
        header = ["subset", "total", "reviewed", "errors_found", "error_rate", "confirmed", "rejected", "excluded",
                  "needs_expert", "needs_attention"]
        self.stdout.write("\t".join(header))
        for row in correction_report(run.benchmark, subset=run.subset or None):
            self.stdout.write("\t".join(str(row[h]) + ("%" if h == "error_rate" else "") for h in header))
        if job.status == "failed":
            raise CommandError(job.message)
