from django.apps import AppConfig
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from apps.accounts.navigation import NavLink, Panel, Stage, Todo
from apps.accounts.permissions import can


# The imports left inside the methods wait for the app registry: this module loads before any model does.
class AuthoringConfig(AppConfig):
    """KMMAU construction: Korean audio-understanding questions from ASR corpora (DESIGN.md 2.3)."""

    name = "apps.authoring"
    label = "authoring"
    verbose_name = "KMMAU authoring"

    def ready(self):
        from apps.authoring import jobs, rules  # noqa: F401  (registers job handlers and permission rules)

    def nav_links(self, user):
        links = []
        if can(user, "authoring.work"):
            links.append(NavLink(_("KMMAU question sets"), reverse("authoring:sets"), group="kmmau", order=10))
        if can(user, "authoring.manage"):
            links.append(NavLink(_("Escalations"), reverse("authoring:escalations"), group="kmmau", order=20))
        return links

    def home_panels(self, user):
        if can(user, "authoring.manage"):
            return [Panel(title=_("KMMAU question sets"), url=reverse("authoring:sets"),
                          description=_("Corpora, generated and authored questions, reviews, exports, scores."),
                          role="admin")]
        if can(user, "authoring.work"):
            return [Panel(title=_("KMMAU questions"), url=reverse("authoring:sets"),
                          description=_("Review generated questions, author questions by listening, answer blind."),
                          role="annotator")]
        return []

    def pipeline_stages(self, user):
        if not can(user, "authoring.manage"):
            return []
        from apps.authoring.selectors import pipeline_counts

        c = pipeline_counts()
        url = reverse("authoring:sets")
        return [
            Stage("kmmau", 10, "Corpus", c["clips"], url, "clips"),
            Stage("kmmau", 20, "Questions", c["questions"], url, "questions",
                  f"rule {c['rule']} · agent {c['agent']} · manual {c['manual']}"),
            Stage("kmmau", 30, "Review / blind answer", c["accepted"], url, "accepted",
                  f"{c['in_review']} in review · {c['awaiting_answer']} awaiting a blind answer · {c['rejected']} rejected"),
        ]

    def todos(self, user):
        if not can(user, "authoring.manage"):
            return []
        from apps.authoring.selectors import waiting_for_admin

        c = waiting_for_admin()
        todos = []
        if c["escalated"]:
            todos.append(Todo(_("KMMAU questions escalated: the blind answer differs from the author's; decide which is right"),
                              reverse("authoring:escalations"), c["escalated"], "kmmau"))
        if c["attention"]:
            todos.append(Todo(_("KMMAU questions needing attention (generation failed or left them incomplete)"),
                              reverse("authoring:sets"), c["attention"], "kmmau"))
        return todos

    def seed_demo(self, stdout):
        from apps.authoring.demo import seed_demo

        seed_demo(stdout)
