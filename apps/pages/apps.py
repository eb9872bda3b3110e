from django.apps import AppConfig


class PagesConfig(AppConfig):
    """What the pages share and no workflow owns: display filters (units, labels, clipped intervals), the
    friendly error pages and the scripted demo provider."""

    name = "apps.pages"
    label = "pages"
