from django.apps import AppConfig
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from apps.accounts.navigation import NavLink, Panel, Stage, Todo
from apps.accounts.permissions import can


class EvaluationConfig(AppConfig):
    name = "apps.evaluation"
    label = "evaluation"
    verbose_name = "Evaluation of SpeechLMs"

    def ready(self):
        # Here, not at the top: they import models, which cannot load before the app registry is ready.
        from apps.evaluation import jobs, rules  # noqa: F401  (register the job handlers and permission rules)

    def nav_links(self, user):
        if can(user, "evaluation.manage"):  # every user may read scores; the menu leads those who run them
            return [NavLink(_("Runs"), reverse("evaluation:runs"), group="evaluation", order=10),
                    NavLink(_("Leaderboard"), reverse("evaluation:leaderboard"), group="evaluation", order=20)]
        return []

    def home_panels(self, user):
        if not can(user, "evaluation.manage"):
            return []
        return [
            Panel(_("Evaluation runs"), reverse("evaluation:runs"), role="admin",
                  description=_("Score SpeechLMs on what Sori built: import or collect responses, evaluate, read each item.")),
            Panel(_("Leaderboard"), reverse("evaluation:leaderboard"), role="admin",
                  description=_("The paper's tables: English and Korean side by side, the gap, rank correlations.")),
        ]

    def pipeline_stages(self, user):
        if not can(user, "evaluation.manage"):
            return []
        from apps.evaluation.selectors import run_counts_by_family  # imports models (see ready)

        runs = run_counts_by_family()
        url = reverse("evaluation:runs")
        stages = []
        for family, workflow, order in [("spoken-qa", "spoken_qa", 70), ("kmmau", "kmmau", 50)]:
            n = runs.get(family, {"total": 0, "evaluated": 0})
            stages.append(Stage(workflow, order, _("Evaluation"), n["total"], url, _("runs"),
                                gettext("%(n)s evaluated") % {"n": n["evaluated"]}))
        return stages

    def todos(self, user):
        if not can(user, "evaluation.manage"):
            return []
        from apps.evaluation.selectors import runs_to_look_at

        counts = runs_to_look_at()
        todos = [Todo(f"The run of {run} needs attention: {run.attention_reason or 'see the run'}",
                      reverse("evaluation:run", args=[run.pk]), workflow="evaluation") for run in counts["attention"][:5]]
        todos += [Todo(f"Items of the run of {run} needing review (the judge and the rule disagree, or the answer may "
                       "be talking to the judge)", reverse("evaluation:run", args=[run.pk]), n, "evaluation")
                  for run, n in counts["review"][:5]]
        return todos

    def seed_demo(self, stdout):
        from apps.evaluation.demo import seed  # imports models: not at the top of apps.py (see ready)

        seed(stdout)
