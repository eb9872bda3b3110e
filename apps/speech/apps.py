from django.apps import AppConfig


class SpeechConfig(AppConfig):
    name = "apps.speech"
    label = "speech"
