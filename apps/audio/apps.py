from django.apps import AppConfig


class AudioConfig(AppConfig):
    name = "apps.audio"
    label = "audio"
    verbose_name = "Audio assets"

    def ready(self):
        from apps.audio import jobs, rules  # noqa: F401
