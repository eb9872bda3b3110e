from django.core.management.base import BaseCommand, CommandError

from apps.evaluation import selectors, services
from apps.evaluation.management.commands._common import acting_user, run_inline
from apps.evaluation.models import EvaluationRun


class Command(BaseCommand):
    help = ("Score a run's responses (rule-based evaluators, then the LLM judge through the agents' judge role), "
            "waiting for the job, and print its subset scores. Running it again scores only what is left.")

    def add_arguments(self, parser):
        parser.add_argument("--run", type=int, required=True)
        parser.add_argument("--budget-usd", type=float, help="the judge's budget cap for this job")
        parser.add_argument("--user", help="username of the admin acting (default: the first admin)")

    def handle(self, *args, run, budget_usd, user, **options):
        acting = acting_user(user)
        found = EvaluationRun.objects.filter(pk=run).first()
        if found is None:
            raise CommandError(f"no run {run}")
        job = run_inline(lambda: services.start_evaluation(run=found, acting_user=acting, budget_usd=budget_usd))
        if job.status != "succeeded":
            raise CommandError(f"run {run}: {job.message}")
        found.refresh_from_db()
        self.stdout.write(f"Run {run} ({found}): {found.get_status_display()}")
        for score in selectors.subset_scores(found):
            mark = "*" if score.primary else " "
            self.stdout.write(f" {mark} {score.profile:<10} {score.subset:<16} {score.method:<8} {score.score:6.1f}  n={score.n}"
                              + (f"  unscored={score.unscored}" if score.unscored else ""))
        if found.attention_reason:
            self.stderr.write(found.attention_reason)
