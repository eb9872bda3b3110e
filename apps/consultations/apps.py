from django.apps import AppConfig


class ConsultationsConfig(AppConfig):
    name = "apps.consultations"
    label = "consultations"
