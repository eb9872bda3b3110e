"""Who may do what in listening tests. Admins pass every rule (apps.accounts.permissions)."""

from django.utils import timezone

from apps.accounts.permissions import role_rule, rule
from apps.accounts.roles import Role
from apps.audio.rules import grants_audio_access
from apps.queues.models import Assignment

role_rule("listening.rate", Role.LISTENER)


@rule("listening.manage")
def _manage(user, obj=None):
    return False  # admins only (they pass before any rule is asked)


@grants_audio_access
def _listener_holding_a_lease(user, asset) -> bool:
    """A listener may fetch a clip's audio only while they hold a live lease on a clip using that asset."""
    return Assignment.objects.live(timezone.now()).filter(worker=user, item__clip__asset=asset).exists()
