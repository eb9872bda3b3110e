from django.core.management.base import BaseCommand, CommandError

from apps.authoring.capabilities import RULE_CAPABILITIES
from apps.authoring.models import Corpus
from apps.authoring.services import get_or_create_question_set
from apps.jobs.models import JobStatus
from apps.jobs.services import run_here, start_job


class Command(BaseCommand):
    help = ("Run the rule-based KMMAU methods (metadata and transcript) over a corpus into a question set, as a "
            "job; prints what each capability got and how many candidates were skipped and why.")

    def add_arguments(self, parser):
        parser.add_argument("--corpus", required=True)
        parser.add_argument("--set", required=True, dest="set_name", help="question set (created when new)")
        parser.add_argument("--capability", action="append", choices=[str(c) for c in RULE_CAPABILITIES])

    def handle(self, *args, corpus, set_name, capability, **options):
        found = Corpus.objects.filter(name=corpus).first()
        if found is None:
            raise CommandError(f"no corpus named {corpus!r}")
        question_set = get_or_create_question_set(name=set_name)
        # The page's job, run here in this process so the command waits for its result.
        with run_here():
            job = start_job(kind="authoring.generate", title=f"Generate {set_name} from {corpus}",
                            params={"set": question_set.pk, "corpus": found.pk, "capabilities": capability or []})
        job.refresh_from_db()
        if job.status != JobStatus.SUCCEEDED:
            raise CommandError(f"job {job.pk} {job.status}: {job.message}")
        for cap, line in job.result.items():
            skipped = ", ".join(f"{reason}: {n}" for reason, n in sorted(line["skipped"].items())) or "none"
            self.stdout.write(f"{cap}: {line['made']} made, {line['already']} already there; "
                              f"skipped {sum(line['skipped'].values())} ({skipped})")
