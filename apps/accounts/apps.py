from django.apps import AppConfig
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from apps.accounts.navigation import NavLink


class AccountsConfig(AppConfig):
    name = "apps.accounts"
    label = "accounts"
    verbose_name = _("Accounts and roles")

    def ready(self):
        from apps.accounts import signals  # noqa: F401  (first sign-in takes the browser's language)

    def nav_links(self, user):
        # Django's admin site is for staff (accounts, roles, raw rows), whatever their Sori roles.
        return [NavLink(_("Admin site"), reverse("admin:index"), group="system", order=90)] if user.is_staff else []
