from contextlib import nullcontext

from django.core.management.base import BaseCommand, CommandError

from apps.core.errors import ApplicationError
from apps.jobs.models import Job
from apps.jobs.services import run_here
from apps.transfer.hypertranslation.selectors import translation_report
from apps.transfer.hypertranslation.services import continue_translation_run, start_translation_run
from apps.transfer.models import TranslationRun


class Command(BaseCommand):
    help = ("Start a hypertranslation run (translator agent) under a published hypertranslation rulebook version, "
            "as a job; --continue RUN re-translates only that run's stale and undecided samples under the latest "
            "version. Blocks until done unless --queue.")

    def add_arguments(self, parser):
        parser.add_argument("--benchmark")
        parser.add_argument("--subset", default="")
        parser.add_argument("--limit", type=int, help="only the first N included samples")
        parser.add_argument("--rulebook-version", type=int, help="default: the latest published version")
        parser.add_argument("--continue", dest="continue_run", type=int, metavar="RUN", help="continue this run")
        parser.add_argument("--budget", type=float, help="stop before the job's cost passes this many US dollars")
        parser.add_argument("--queue", action="store_true", help="hand the job to the configured runner and return")

    def handle(self, *args, **opts):
        try:
            with nullcontext() if opts["queue"] else run_here():  # unless --queue, this process runs the job
                if opts["continue_run"]:
                    earlier = TranslationRun.objects.filter(pk=opts["continue_run"]).first()
                    if earlier is None:
                        raise CommandError(f"no translation run #{opts['continue_run']}")
                    run = continue_translation_run(run=earlier, version_number=opts["rulebook_version"],
                                                   budget_usd=opts["budget"])
                else:
                    if not opts["benchmark"]:
                        raise CommandError("--benchmark is required (or --continue RUN)")
                    run = start_translation_run(benchmark=opts["benchmark"], subset=opts["subset"],
                                                limit=opts["limit"], version_number=opts["rulebook_version"],
                                                budget_usd=opts["budget"])
        except ApplicationError as exc:
            raise CommandError(str(exc)) from None
        job = Job.objects.get(pk=run.job_id)
        self.stdout.write(f"run #{run.pk}, job #{job.pk}: {job.title}: {job.get_status_display()} {job.done}/{job.total}")
        if opts["queue"]:
            return
        if job.status == "failed":
            raise CommandError(job.message)
        report = translation_report(run)
        self.stdout.write(f"deleted or replaced: {report['flagged']} of {report['translated']} ({report['flagged_percent']} %); "
                          f"the paper: 653 of 10,083 (6.5 %); cost ${report['cost_usd']}")
        for row in report["subsets"]:
            counts = ", ".join(f"{k} {v}" for k, v in row.items() if k not in ("subset", "total") and v)
            self.stdout.write(f"  {row['subset']}: {row['total']} ({counts})")
