from django.conf import settings
from django.contrib.auth.models import Group
from django.db import transaction

from apps.accounts.models import User
from apps.accounts.roles import PARTICIPANT_ROLES, Role


def ensure_role_groups() -> None:
    for role in Role:
        Group.objects.get_or_create(name=role.value)


@transaction.atomic
def user_upsert(
    *, username: str, roles: list[str], password: str | None = None, display_name: str = ""
) -> tuple[User, bool]:
    """Create the user or bring an existing one up to date; returns (user, created). Running it twice with
    the same arguments changes nothing the second time, so scripts and demos may call it freely."""
    unknown = set(roles) - set(Role.values)
    if unknown:
        raise ValueError(f"unknown role(s): {', '.join(sorted(unknown))}; known: {', '.join(Role.values)}")
    ensure_role_groups()
    user, created = User.objects.get_or_create(username=username)
    if display_name:
        user.display_name = display_name
    if not user.language:
        user.language = default_language(roles)
    if password is not None and not user.check_password(password):
        user.set_password(password)
    # Django admin access follows the admin role.
    user.is_staff = Role.ADMIN in roles or user.is_superuser
    user.save()
    user.groups.add(*Group.objects.filter(name__in=roles))
    user.__dict__.pop("role_names", None)
    return user, created


def default_language(roles) -> str:
    """Where a new account starts: a participant (listener, annotator, expert) in Korean, the language they
    work in; an admin in no language yet, so their first sign-in takes the browser's (apps.accounts.signals)."""
    if Role.ADMIN in roles or not PARTICIPANT_ROLES & set(roles):
        return ""
    return "ko"


def user_set_language(user: User, language: str) -> None:
    if language not in dict(settings.LANGUAGES):
        raise ValueError(f"unknown language {language!r}")
    user.language = language
    user.save(update_fields=["language"])
