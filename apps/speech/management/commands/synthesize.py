from contextlib import nullcontext

from django.core.management.base import BaseCommand, CommandError

from apps.core.errors import ApplicationError
from apps.jobs.services import run_here
from apps.sources.models import SourceBenchmark
from apps.speech import selectors, services


class Command(BaseCommand):
    help = ("Start a synthesis run (TTS, ASR check, re-synthesis) over a benchmark's ready normalized texts, like "
            "the speech page. Blocks until done unless --queue.")

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", required=True)
        parser.add_argument("--subset", default="")
        parser.add_argument("--limit", type=int)
        parser.add_argument("--threshold", type=float, help="CER threshold (default SORI_SPEECH_CER_THRESHOLD, 0.1)")
        parser.add_argument("--attempts", type=int, help="attempts per sample (default 3)")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--queue", action="store_true", help="hand the job to the configured runner and return")

    def handle(self, *args, **opts):
        benchmark = SourceBenchmark.objects.filter(name=opts["benchmark"]).first()
        if benchmark is None:
            raise CommandError(f"no benchmark named {opts['benchmark']!r}")
        try:
            # Unless --queue, this process runs the job (or waits for the speech workers) and reports.
            with nullcontext() if opts["queue"] else run_here():
                run = services.start_run(acting_user=None, benchmark=benchmark, subset=opts["subset"],
                                         limit=opts["limit"], cer_threshold=opts["threshold"],
                                         max_attempts=opts["attempts"], seed=opts["seed"])
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        run.job.refresh_from_db()
        summary = selectors.run_summary(run)
        counts = ", ".join(f"{label.lower()} {n}" for label, n, _ in summary["by_status"] if n)
        self.stdout.write(f"{run}: job {run.job.pk} {run.job.status}; {summary['total']} samples ({counts})")
        if run.job.status == "failed":
            raise CommandError(run.job.message)
