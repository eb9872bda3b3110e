from django.apps import AppConfig


class SourcesConfig(AppConfig):
    name = "apps.sources"
    label = "sources"
    verbose_name = "Source benchmarks"
