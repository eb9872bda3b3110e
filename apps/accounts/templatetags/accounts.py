from django import template

from apps.accounts.roles import ROLE_NAMES

register = template.Library()


@register.filter
def role_label(code) -> str:
    """A role's name in the reader's language; an unknown group name as it is."""
    return str(ROLE_NAMES.get(str(code), code))
