"""Filters available in prompt files (apps/agents/prompts/*/v*.md)."""

import json

from django import template

register = template.Library()


@register.filter(name="json")
def json_filter(value) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)
