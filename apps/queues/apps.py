from django.apps import AppConfig


class QueuesConfig(AppConfig):
    """The shared assignment engine: pools of items handed to K distinct workers each (see services.py)."""

    name = "apps.queues"
    label = "queues"
    verbose_name = "Work queues"
