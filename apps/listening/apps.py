from django.apps import AppConfig
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from apps.accounts.navigation import NavLink, Panel, Stage, Todo
from apps.accounts.permissions import can


# The imports left inside the methods wait for the app registry: this module loads before any model does.
class ListeningConfig(AppConfig):
    name = "apps.listening"
    label = "listening"
    verbose_name = "MOS listening tests"

    def ready(self):
        from apps.listening import jobs, rules, services  # noqa: F401  (services registers who may rate)

    def nav_links(self, user):
        if can(user, "listening.manage"):
            return [NavLink(_("MOS listening tests"), reverse("listening:manage"), group="mos", order=10)]
        if can(user, "listening.rate"):
            return [NavLink(_("Listening"), reverse("listening:index"), group="mos", order=10)]
        return []

    def home_panels(self, user):
        panels = []
        if can(user, "listening.rate") and not can(user, "listening.manage"):  # a listener's own queue
            from apps.listening.selectors import tests_for_listener

            for test, left, _done in tests_for_listener(user):
                if left:
                    panels.append(Panel(
                        title=gettext("Listening test: %(name)s") % {"name": test.name}, url=reverse("listening:start", args=[test.pk]),
                        description=_("Rate the overall quality of short clips, 1 to 5."), count=left, role="listener",
                    ))
        if can(user, "listening.manage"):
            panels.append(Panel(
                title=_("MOS listening tests"), url=reverse("listening:manage"),
                description=_("Import tests, watch completion and quality, export ratings, evaluate predictors."),
                role="admin",
            ))
        return panels

    def pipeline_stages(self, user):
        if not can(user, "listening.manage"):
            return []
        from apps.listening.selectors import pipeline_counts

        counts = pipeline_counts()
        url = reverse("listening:manage")
        excluded = f"{counts['excluded']} listeners excluded" if counts["excluded"] else "no listener excluded"
        return [
            Stage("mos", 10, _("Import"), counts["imported"], url, _("clips")),
            Stage("mos", 20, _("Publish"), counts["published"], url, _("clips published")),
            Stage("mos", 30, _("Ratings"), counts["ratings"], url, _("ratings")),
            Stage("mos", 40, _("QC"), counts["complete"], url, _("clips fully rated"), excluded),
        ]

    def todos(self, user):
        if not can(user, "listening.manage"):
            return []
        from apps.listening.selectors import unreachable_by_test

        return [Todo(f"Clips of “{test}” that cannot get {test.pool.required_per_item} distinct listeners with the "
                     "listeners it has: add listeners or open the test to everyone",
                     reverse("listening:dashboard", args=[test.pk]), n, "mos")
                for test, n in unreachable_by_test()]

    def seed_demo(self, stdout):
        from apps.listening.demo import seed_listening_demo

        seed_listening_demo(stdout)
