from django.apps import AppConfig
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from apps.accounts.navigation import NavLink, Panel, Todo
from apps.accounts.permissions import can


# The imports left inside the methods wait for the app registry: this module loads before any model does.
class JobsConfig(AppConfig):
    name = "apps.jobs"
    label = "jobs"
    verbose_name = "Background jobs"

    def ready(self):
        from apps.jobs import rules  # noqa: F401  (registers the permission rules)

    def nav_links(self, user):
        return [NavLink(_("Jobs"), reverse("jobs:list"), group="system", order=10)] if can(user, "jobs.list") else []

    def home_panels(self, user):
        from apps.jobs.models import Job, JobStatus

        if not can(user, "jobs.list"):
            return []
        active = Job.objects.active().count()
        failed = Job.objects.filter(status=JobStatus.FAILED).count()
        return [Panel(_("Background jobs"), reverse("jobs:list"), f"{failed} failed", count=active, role="admin")]

    def todos(self, user):
        from apps.jobs.models import Job, JobStatus

        if not can(user, "jobs.list"):
            return []
        failed = Job.objects.filter(status=JobStatus.FAILED).count()
        return [Todo(_("Failed background jobs: read why, then resume or start again"), reverse("jobs:list"), failed)] if failed else []
