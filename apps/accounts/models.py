from functools import cached_property

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.contrib.auth.models import UserManager as DjangoUserManager
from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.accounts.roles import Role


class UserQuerySet(models.QuerySet):
    def with_role(self, role: Role | str):
        return self.filter(groups__name=str(role), is_active=True)


class UserManager(DjangoUserManager.from_queryset(UserQuerySet)):
    pass


class User(AbstractUser):
    """A person who works in Sori. Roles are group memberships (see apps.accounts.roles)."""

    display_name = models.CharField(max_length=150, blank=True)
    # The language of Sori's pages for this person (apps.accounts.middleware). Blank until known: a participant
    # starts in Korean (apps.accounts.services.user_upsert); anyone else takes the browser's language at their
    # first sign-in (apps.accounts.signals). The database default lets a row from code that predates the column (an
    # older process during a deploy, a migration's historical model) in.
    language = models.CharField(_("language"), max_length=8, choices=settings.LANGUAGES, blank=True, db_default="")

    objects = UserManager()

    @cached_property
    def role_names(self) -> frozenset[str]:
        return frozenset(self.groups.values_list("name", flat=True))

    def has_role(self, role: Role | str) -> bool:
        if not self.is_active:
            return False
        if str(role) == Role.ADMIN and self.is_superuser:
            return True
        return str(role) in self.role_names

    def has_perm(self, perm, obj=None) -> bool:
        # Sori admins manage everything in the Django admin, however the role was granted.
        return self.has_role(Role.ADMIN) or super().has_perm(perm, obj)

    def has_module_perms(self, app_label) -> bool:
        return self.has_role(Role.ADMIN) or super().has_module_perms(app_label)

    @property
    def is_sori_admin(self) -> bool:
        return self.has_role(Role.ADMIN)

    def __str__(self) -> str:
        return self.display_name or self.username


class Pseudonym(models.Model):
    """A person's name within one scope (apps.accounts.pseudonyms): random, so it tells nothing about the
    person; stored, so every export and every rebuild of a release names them alike. One per person and
    scope, and no two people share one within a scope."""

    scope = models.CharField(max_length=64)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pseudonyms")
    value = models.CharField(max_length=32)

    class Meta:
        ordering = ["scope", "value"]
        constraints = [
            models.UniqueConstraint(fields=["scope", "user"], name="accounts_pseudonym_once_per_scope"),
            models.UniqueConstraint(fields=["scope", "value"], name="accounts_pseudonym_unique_in_scope"),
        ]

    def __str__(self) -> str:
        return f"{self.value} ({self.scope})"
