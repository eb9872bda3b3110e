"""KMMAU words for templates: `{% load kmmau %}{{ question.capability|capability }}` -> "Fact Extraction",
`{{ row.method|method }}` -> "Rule-based from metadata".
The mapping itself is capabilities.capability_label, so a page and the export never disagree."""

from django import template

from apps.authoring.capabilities import Method, capability_label

register = template.Library()


@register.filter
def capability(code) -> str:
    return capability_label(code)


@register.filter
def method(code) -> str:
    """A construction method as people read it: "agent" -> "Agent-generated with human review"."""
    return str(Method(code).label) if code in Method.values else str(code or "")
