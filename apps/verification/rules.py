"""Who may do what in verification (asked through apps.accounts.permissions.can)."""

from apps.accounts.models import User
from apps.accounts.permissions import role_rule, rule
from apps.accounts.roles import Role
from apps.audio.rules import grants_audio_access
from apps.queues.models import Assignment, AssignmentStatus
from apps.queues.services import register_eligible_workers
from apps.verification.models import BaselineItem, VerificationItem
from apps.verification.selectors import is_reviewer

role_rule("verification.manage")  # projects, imports, baselines, scoring: admins only


@rule("verification.review")
def _may_review(user, project=None):
    return user.has_role(Role.ANNOTATOR)


@rule("verification.view_item")
def _may_view_item(user, item):
    return item is not None and user.has_role(Role.ANNOTATOR) and is_reviewer(user, item)


@rule("verification.baseline")
def _may_answer_baseline(user, session=None):
    return user.has_role(Role.ANNOTATOR)


@grants_audio_access
def _reviewer_hears_item_audio(user, asset) -> bool:
    """A reviewer of an item (holding it now, or having reviewed it) may hear its audio; so may an annotator
    answering a baseline that contains it."""
    if not user.has_role(Role.ANNOTATOR):
        return False
    work_items = VerificationItem.objects.filter(audio=asset).values("work_item_id")
    if Assignment.objects.filter(item_id__in=work_items, worker=user).exclude(
        status__in=[AssignmentStatus.INVALIDATED, AssignmentStatus.RELEASED, AssignmentStatus.DECLINED]
    ).exists():
        return True
    return BaselineItem.objects.filter(item__audio=asset).exists()


@register_eligible_workers("verification")
def _annotators(pool):
    """Every annotator may review every project's items (the engine keeps them to three each)."""
    return User.objects.with_role(Role.ANNOTATOR).filter(is_active=True).values_list("pk", flat=True)
