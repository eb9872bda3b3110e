"""HPSU's codes (the release's English task, domain, language and prompt-variant names) as a reviewer reads
them, in the active language."""

from django import template

from apps.verification.taxonomy import (
    DOMAIN_LABELS,
    LANGUAGES,
    PROMPT_VARIANT_LABELS,
    TASK_LABELS,
    TIER_NAMES,
)

register = template.Library()


@register.filter
def task_label(code) -> str:
    return str(TASK_LABELS.get(code, code))


@register.filter
def domain_label(code) -> str:
    return str(DOMAIN_LABELS.get(code, code))


@register.filter
def language_label(code) -> str:
    return str(LANGUAGES.get(code, code))


@register.filter
def tier_label(code) -> str:
    return str(TIER_NAMES.get(code, code))


@register.filter
def prompt_variant(code) -> str:
    return str(PROMPT_VARIANT_LABELS.get(code, code))
