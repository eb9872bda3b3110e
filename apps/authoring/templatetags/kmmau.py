"""KMMAU words for templates: `{% load kmmau %}{{ question.capability|capability }}` -> "Fact Extraction".
The mapping itself is capabilities.capability_label, so a page and the export never disagree."""

from django import template

from apps.authoring.capabilities import capability_label

register = template.Library()


@register.filter
def capability(code) -> str:
    return capability_label(code)
