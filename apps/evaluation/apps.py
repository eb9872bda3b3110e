from django.apps import AppConfig
from django.urls import reverse

from apps.accounts.navigation import NavLink


class EvaluationConfig(AppConfig):
    name = "apps.evaluation"
    label = "evaluation"
    verbose_name = "Evaluation of SpeechLMs"

    def ready(self):
        # Here, not at the top: they import models, which cannot load before the app registry is ready.
        from apps.evaluation import jobs, rules  # noqa: F401  (register the job handlers and permission rules)

    def nav_links(self, user):
        if getattr(user, "is_sori_admin", False):
            return [NavLink("Evaluation", reverse("evaluation:runs")),
                    NavLink("Leaderboard", reverse("evaluation:leaderboard"))]
        return []

    def seed_demo(self, stdout):
        from apps.evaluation.demo import seed  # imports models: not at the top of apps.py (see ready)

        seed(stdout)
