from django.apps import AppConfig


class ListeningConfig(AppConfig):
    name = "apps.listening"
    label = "listening"
