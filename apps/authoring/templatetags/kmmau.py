"""KMMAU words for templates: `{% load kmmau %}{{ question.capability|capability }}` -> "Fact Extraction",
`{{ row.method|method }}` -> "Rule-based from metadata".
The mapping itself is capabilities.capability_label, so a page and the export never disagree."""

from django import template
from django.utils.translation import gettext_lazy as _

from apps.authoring.capabilities import Method, capability_label

register = template.Library()

# The capabilities' names on pages, in the reader's language; the export and the agents' prompts keep the
# English labels of capabilities.Capability.
_ON_PAGES = {
    "age": _("Age"), "gender": _("Gender"), "num_speakers": _("Number of Speakers"), "word_order": _("Word Order"),
    "word_frequency": _("Word Frequency"), "fact_extraction": _("Fact Extraction"), "topic_summary": _("Topic Summary"),
    "role_profession": _("Role/Profession"), "general_counting": _("General Counting"),
}


@register.filter
def capability(code) -> str:
    return str(_ON_PAGES.get(str(code), capability_label(code)))


@register.filter
def capabilities(codes) -> str:
    """Capabilities as a list a person reads: "Fact Extraction, Topic Summary"."""
    return ", ".join(capability(code) for code in codes)


@register.filter
def method(code) -> str:
    """A construction method as people read it: "agent" -> "Agent-generated with human review"."""
    return str(Method(code).label) if code in Method.values else str(code or "")
