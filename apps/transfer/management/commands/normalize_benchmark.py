from contextlib import nullcontext

from django.core.management.base import BaseCommand, CommandError

from apps.core.errors import ApplicationError
from apps.jobs.models import Job
from apps.jobs.services import run_here
from apps.transfer.normalization.services import normalization_report, start_normalization_run


class Command(BaseCommand):
    help = ("Normalize a benchmark's current translations for speech under a published normalization rulebook "
            "version, as a job (texts already normalized under it are skipped). Blocks until done unless --queue.")

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", required=True)
        parser.add_argument("--subset", default="")
        parser.add_argument("--limit", type=int)
        parser.add_argument("--rulebook-version", type=int, help="default: the latest published version")
        parser.add_argument("--budget", type=float, help="stop before the job's cost passes this many US dollars")
        parser.add_argument("--queue", action="store_true", help="hand the job to the configured runner and return")

    def handle(self, *args, **opts):
        try:
            with nullcontext() if opts["queue"] else run_here():  # unless --queue, this process runs the job
                run = start_normalization_run(benchmark=opts["benchmark"], subset=opts["subset"], limit=opts["limit"],
                                              version_number=opts["rulebook_version"], budget_usd=opts["budget"])
        except ApplicationError as exc:
            raise CommandError(str(exc)) from None
        job = Job.objects.get(pk=run.job_id)
        self.stdout.write(f"run #{run.pk}, job #{job.pk}: {job.title}: {job.get_status_display()} {job.done}/{job.total}")
        if opts["queue"]:
            return
        if job.status == "failed":
            raise CommandError(job.message)
        report = normalization_report(run)
        self.stdout.write(f"normalized {report['normalized']}: {report['ok']} ready for speech, "
                          f"{report['needed_agent']} needed the agent, {report['failed_validation']} failed validation")
        self.stdout.write("most frequent rules: " + ", ".join(f"{r} {n}" for r, n in report["top_rules"]))
