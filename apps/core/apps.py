from django.apps import AppConfig


class CoreConfig(AppConfig):
    """What every app shares and no app owns: the refusal hierarchy (errors.py), its page rendering
    (middleware.py), the one tabular reader, and the safe zip
    extraction and reproducible zipping (archives.py)."""

    name = "apps.core"
    label = "core"
    verbose_name = "Core"

    def ready(self):
        from apps.core import converters  # noqa: F401 (registers <id:...> before any URLconf is read)
