from django.apps import AppConfig
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from apps.accounts.navigation import NavLink, Panel, Stage, Todo
from apps.accounts.permissions import can


# The imports left inside the methods wait for the app registry: this module loads before any model does.
class SpeechConfig(AppConfig):
    name = "apps.speech"
    label = "speech"
    verbose_name = "Speech (TTS and ASR check)"

    def ready(self):
        from apps.speech import jobs, rules  # noqa: F401  (register the job handlers and permission rules)

    def nav_links(self, user):
        if can(user, "speech.manage"):
            return [NavLink(_("Speech"), reverse("speech:home"), group="spoken_qa", order=60)]
        return []

    def home_panels(self, user):
        if not can(user, "speech.manage"):
            return []
        return [Panel(_("Speech synthesis"), reverse("speech:home"),
                      description=_("TTS with Korean reference voices, checked by ASR; samples over the CER "
                                    "threshold after every attempt wait here."), role="admin")]

    def pipeline_stages(self, user):
        if not can(user, "speech.manage"):
            return []
        from apps.speech.selectors import samples_spoken

        return [Stage("spoken_qa", 50, _("Speech"), samples_spoken(), reverse("speech:home"), _("samples spoken"))]

    def todos(self, user):
        if not can(user, "speech.manage"):
            return []
        from apps.speech.selectors import samples_needing_attention

        attention = samples_needing_attention()
        if not attention:
            return []
        return [Todo(_("Samples that missed the ASR check on every attempt: listen, then accept, or edit and re-run"),
                     reverse("speech:home"), attention, "spoken_qa")]

    def seed_demo(self, stdout):
        from apps.speech.demo import seed

        seed(stdout)
