"""Words for the evaluation pages' codes: a stored subset as the paper names it, a scoring method by its label."""

from django import template

from apps.evaluation.leaderboard.selectors import subset_name as _subset_name
from apps.evaluation.models import ScoreMethod

register = template.Library()


@register.filter
def subset_name(stored: str) -> str:
    return _subset_name(stored)


@register.filter
def method_name(method: str) -> str:
    return ScoreMethod(method).label if method in ScoreMethod.values else method
