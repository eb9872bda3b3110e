from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "apps.jobs"
    label = "jobs"
    verbose_name = "Background jobs"

    def ready(self):
        from apps.jobs import rules  # noqa: F401

    def nav_links(self, user):
        from django.urls import reverse

        from apps.accounts.navigation import NavLink

        return [NavLink("Jobs", reverse("jobs:list"))] if user.is_sori_admin else []
