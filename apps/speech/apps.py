from django.apps import AppConfig
from django.urls import reverse

from apps.accounts.navigation import NavLink, Panel


# The imports left inside the methods wait for the app registry: this module loads before any model does.
class SpeechConfig(AppConfig):
    name = "apps.speech"
    label = "speech"
    verbose_name = "Speech (TTS and ASR check)"

    def ready(self):
        from apps.speech import jobs, rules  # noqa: F401  (register the job handlers and permission rules)

    def nav_links(self, user):
        return [NavLink("Speech", reverse("speech:home"))] if getattr(user, "is_sori_admin", False) else []

    def home_panels(self, user):
        from apps.speech.models import SampleStatus, SampleSynthesis

        if not getattr(user, "is_sori_admin", False):
            return []
        attention = SampleSynthesis.objects.filter(status=SampleStatus.NEEDS_ATTENTION).count()
        return [Panel("Speech synthesis", reverse("speech:home"),
                      description="TTS with Korean reference voices, checked by ASR; samples over the CER "
                                  "threshold after every attempt wait here.", count=attention, role="admin")]

    def seed_demo(self, stdout):
        from apps.speech.demo import seed

        seed(stdout)
