from django.apps import AppConfig
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from apps.accounts.navigation import NavLink, Panel, Stage, Todo
from apps.accounts.permissions import can


# The imports left inside the methods wait for the app registry: this module loads before any model does.
class ReleasesConfig(AppConfig):
    name = "apps.releases"
    label = "releases"
    verbose_name = "Dataset releases"

    def ready(self):
        from apps.releases import jobs, rules  # noqa: F401

    def nav_links(self, user):
        if can(user, "releases.manage"):
            return [NavLink(_("Releases"), reverse("releases:list"), group="spoken_qa", order=70)]
        return []

    def home_panels(self, user):
        if not can(user, "releases.manage"):
            return []
        return [Panel(_("Dataset releases"), reverse("releases:list"),
                      description=_("Build, publish and download versioned releases with card, licences and checksums."),
                      role="admin")]

    # Where a release of each kind stands in its workflow's pipeline on the home page (its last stage but one
    # for spoken QA, which evaluation follows), and what the stage is called there.
    _STAGES = {"spoken-qa": ("spoken_qa", 60, "Release"), "mos": ("mos", 50, "Export"),
               "hpsu": ("hpsu", 40, "Release"), "kmmau": ("kmmau", 40, "Release")}

    def pipeline_stages(self, user):
        if not can(user, "releases.manage"):
            return []
        from apps.releases.selectors import counts_by_kind

        counts = counts_by_kind()
        url = reverse("releases:list")
        stages = []
        for kind, (workflow, order, label) in self._STAGES.items():
            n = counts.get(kind, {"total": 0, "published": 0})
            stages.append(Stage(workflow, order, label, n["total"], url, _("releases"),
                                gettext("%(n)s published") % {"n": n["published"]}))
        return stages

    def todos(self, user):
        if not can(user, "releases.manage"):
            return []
        from apps.releases.selectors import failed_builds

        return [Todo(f"The build of {release} failed: read why, then build it again", reverse("releases:detail", args=[release.pk]),
                     workflow=self._STAGES.get(release.kind, ("system",))[0])
                for release in failed_builds()[:5]]

    def seed_demo(self, stdout):
        from apps.releases.demo import seed

        seed(stdout)
