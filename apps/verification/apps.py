from django.apps import AppConfig
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from apps.accounts.navigation import NavLink, Panel, Stage, Todo
from apps.accounts.permissions import can


# The imports left inside the methods wait for the app registry: this module loads before any model does.
class VerificationConfig(AppConfig):
    """Three-annotator verification of benchmark items (HPSU): blind reviews, kept on unanimous approval."""

    name = "apps.verification"
    label = "verification"
    verbose_name = "Benchmark verification"

    def ready(self):
        from apps.verification import rules  # noqa: F401

    def nav_links(self, user):
        if can(user, "verification.review"):
            return [NavLink(_("HPSU verification"), reverse("verification:projects"), group="hpsu", order=10)]
        return []

    def home_panels(self, user):
        from apps.verification.models import VerificationProject
        from apps.verification.selectors import waiting_for

        panels = []
        if can(user, "verification.review") and not can(user, "verification.manage"):
            for project in VerificationProject.objects.all()[:10]:
                waiting = waiting_for(project, user)
                if waiting:
                    panels.append(Panel(
                        title=gettext("Verify: %(name)s") % {"name": project.name}, url=reverse("verification:review", args=[project.pk]),
                        description=_("Approve or reject benchmark items (keys A, R, 1-6)."), count=waiting,
                        role="annotator",
                    ))
        if can(user, "verification.manage"):
            panels.append(Panel(title=_("Verification projects"), url=reverse("verification:projects"),
                                description=_("Acceptance, agreement, exports, human baselines."), role="admin"))
        return panels

    def pipeline_stages(self, user):
        if not can(user, "verification.manage"):
            return []
        from apps.verification.selectors import pipeline_counts

        counts = pipeline_counts()
        url = reverse("verification:projects")
        return [
            Stage("hpsu", 10, "Import", counts["items"], url, "items"),
            Stage("hpsu", 20, "Three reviews", counts["reviews"], url, "reviews", f"{counts['reviewed']} items fully reviewed"),
            Stage("hpsu", 30, "Accepted / rejected", counts["accepted"], url, "accepted", f"{counts['rejected']} rejected"),
        ]

    def todos(self, user):
        if not can(user, "verification.manage"):
            return []
        from apps.verification.selectors import unreachable_by_project

        return [Todo(f"Items of “{project}” that cannot get {project.pool.required_per_item} reviews from the annotators "
                     "who may still give one: add annotators", reverse("verification:dashboard", args=[project.pk]), n, "hpsu")
                for project, n in unreachable_by_project()]

    def seed_demo(self, stdout):
        from apps.verification.demo import seed_demo

        seed_demo(stdout)
