from django.apps import AppConfig
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from apps.accounts.navigation import NavLink, Panel, Todo
from apps.accounts.permissions import can


# The imports left inside the methods wait for the app registry: this module loads before any model does.
class ConsultationsConfig(AppConfig):
    name = "apps.consultations"
    label = "consultations"
    verbose_name = "Rulebook consultations"

    def ready(self):
        # Transfer pushes each correction it sends to an expert into services.raise_ground_truth_question and
        # connects the hooks (apps.consultations.hooks) through which a decided question reaches back up.
        from apps.consultations import jobs, rules  # noqa: F401  (register job handlers and permission rules)

    def nav_links(self, user):
        links = []
        if can(user, "consultations.manage"):
            links.append(NavLink(_("Consultations"), reverse("consultations:rounds"), group="spoken_qa", order=45))
        elif can(user, "consultations.answer"):
            links.append(NavLink(_("Questions"), reverse("consultations:inbox"), group="spoken_qa", order=5))
        if can(user, "consultations.read_rulebooks"):
            links.append(NavLink(_("Rulebooks"), reverse("consultations:rulebooks"), group="spoken_qa", order=50))
        return links

    def home_panels(self, user):
        from apps.consultations import selectors

        panels = []
        if can(user, "consultations.answer") and not can(user, "consultations.manage"):
            panels.append(Panel(
                title=_("Decision questions"), url=reverse("consultations:inbox"), role="expert",
                description=_("Questions agents raised while building a rulebook, waiting for your answer."),
                count=selectors.open_questions_for(user).count(),
            ))
            disputed = selectors.disputed_questions_for(user).count()
            if disputed:
                panels.append(Panel(title=_("Disagreements to settle"), url=reverse("consultations:inbox"), role="expert",
                                    description=_("Questions of rounds you lead where the experts disagree."), count=disputed))
            drafts = selectors.drafts_for(user).count()
            if drafts:
                panels.append(Panel(title=_("Rules to approve"), url=reverse("consultations:inbox"), role="expert",
                                    description=_("Rules drafted from your answers."), count=drafts))
        if can(user, "consultations.manage"):
            from apps.consultations.models import QuestionStatus

            panels.append(Panel(
                title=_("Rulebook consultations"), url=reverse("consultations:rounds"), role="admin",
                description=_("Rounds, disagreements to settle, statistics and history."),
                count=selectors.disputed_questions_for(user).filter(status=QuestionStatus.DISPUTED).count(),
            ))
        return panels

    def todos(self, user):
        if not can(user, "consultations.manage"):
            return []
        from apps.consultations import selectors

        todos = [Todo(f"{round} has every question decided: close it and codify the answers into rules",
                      reverse("consultations:round", args=[round.pk]), workflow="spoken_qa")
                 for round in selectors.rounds_ready_to_codify()[:5]]
        if disputed := selectors.disputed_questions_for(user).count():
            todos.append(Todo(_("Decision questions where the experts disagree: settle them"), reverse("consultations:rounds"),
                              disputed, "spoken_qa"))
        return todos

    def seed_demo(self, stdout):
        from apps.consultations.demo import seed_demo

        seed_demo(stdout)
