from django.apps import AppConfig
from django.urls import reverse

from apps.accounts.navigation import NavLink


class AccountsConfig(AppConfig):
    name = "apps.accounts"
    label = "accounts"
    verbose_name = "Accounts and roles"

    def nav_links(self, user):
        # Django's admin site is for staff (accounts, roles, raw rows), whatever their Sori roles.
        return [NavLink("Admin site", reverse("admin:index"), group="system", order=90)] if user.is_staff else []
