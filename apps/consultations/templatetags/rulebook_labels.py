"""A rulebook diff's words in the reader's language: the kind of a change and the fields it changed."""

from django import template
from django.utils.translation import gettext_lazy as _

register = template.Library()

_KINDS = {"added": _("added"), "changed": _("changed"), "removed": _("removed")}
_FIELDS = {"category": _("category"), "statement": _("statement"), "examples": _("examples"), "scope": _("scope")}


@register.filter
def change_kind(kind) -> str:
    return str(_KINDS.get(kind, kind))


@register.filter
def rule_field(field) -> str:
    return str(_FIELDS.get(field, field))
