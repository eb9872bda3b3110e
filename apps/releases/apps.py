from django.apps import AppConfig
from django.urls import reverse

from apps.accounts.navigation import NavLink, Panel


# The imports left inside the methods wait for the app registry: this module loads before any model does.
class ReleasesConfig(AppConfig):
    name = "apps.releases"
    label = "releases"
    verbose_name = "Dataset releases"

    def ready(self):
        from apps.releases import jobs, rules  # noqa: F401

    def nav_links(self, user):
        if getattr(user, "is_sori_admin", False):
            return [NavLink("Releases", reverse("releases:list"))]
        return []

    def home_panels(self, user):
        if not getattr(user, "is_sori_admin", False):
            return []
        return [Panel("Dataset releases", reverse("releases:list"),
                      description="Build, publish and download versioned releases with card, licences and checksums.",
                      role="admin")]

    def seed_demo(self, stdout):
        from apps.releases.demo import seed

        seed(stdout)
