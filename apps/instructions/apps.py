from django.apps import AppConfig


class InstructionsConfig(AppConfig):
    name = "apps.instructions"
    label = "instructions"
    verbose_name = "Participant instructions"
