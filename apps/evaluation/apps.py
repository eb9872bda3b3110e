from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "apps.evaluation"
    label = "evaluation"
    verbose_name = "Evaluation of SpeechLMs"

    def ready(self):
        from apps.evaluation import rules  # noqa: F401  (register the permission rules)
