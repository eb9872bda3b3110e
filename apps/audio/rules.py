"""Who may hear an asset. Admins always; anyone else only when an app that uses the asset says so (a
listener holding a lease on a clip, a reviewer of an item, ...). Apps register their check with
`grants_audio_access` in their own rules.py."""

from collections.abc import Callable

from apps.accounts.permissions import rule

_access_checks: list[Callable] = []


def grants_audio_access(check: Callable) -> Callable:
    _access_checks.append(check)
    return check


@rule("audio.listen")
def _may_listen(user, asset):
    return asset is not None and any(check(user, asset) for check in _access_checks)
