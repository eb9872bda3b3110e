from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "apps.evaluation"
    label = "evaluation"
    verbose_name = "Evaluation of SpeechLMs"

    def ready(self):
        from apps.evaluation import jobs, rules  # noqa: F401  (register the job handlers and permission rules)

    def nav_links(self, user):
        from django.urls import reverse

        from apps.accounts.navigation import NavLink

        if getattr(user, "is_sori_admin", False):
            return [NavLink("Evaluation", reverse("evaluation:runs")),
                    NavLink("Leaderboard", reverse("evaluation:leaderboard"))]
        return []

    def seed_demo(self, stdout):
        from apps.evaluation.demo import seed

        seed(stdout)
