from django.apps import AppConfig
from django.urls import reverse

from apps.accounts.navigation import NavLink, Panel
from apps.accounts.roles import Role


# The imports left inside the methods wait for the app registry: this module loads before any model does.
class AuthoringConfig(AppConfig):
    """KMMAU construction: Korean audio-understanding questions from ASR corpora (DESIGN.md 2.3)."""

    name = "apps.authoring"
    label = "authoring"
    verbose_name = "KMMAU authoring"

    def ready(self):
        from apps.authoring import jobs, rules  # noqa: F401  (registers job handlers and permission rules)

    def nav_links(self, user):
        if user.is_sori_admin or user.has_role(Role.ANNOTATOR):
            return [NavLink("KMMAU", reverse("authoring:sets"))]
        return []

    def home_panels(self, user):
        if user.is_sori_admin:
            return [Panel(title="KMMAU question sets", url=reverse("authoring:sets"),
                          description="Corpora, generated and authored questions, reviews, exports, scores.",
                          role="admin")]
        if user.has_role(Role.ANNOTATOR):
            return [Panel(title="KMMAU questions", url=reverse("authoring:sets"),
                          description="Review generated questions, author questions by listening, answer blind.",
                          role="annotator")]
        return []

    def seed_demo(self, stdout):
        from apps.authoring.demo import seed_demo

        seed_demo(stdout)
