"""The one pseudonym scheme: a person's stable, random name within a scope, created on first use.

Scopes: LISTENING (a listener across every test, in exports and MOS releases), RELEASES (experts and admins
whose corrections reach a release through a workflow without names of its own) and
`verification_scope(project)` (an annotator within one verification project). Each scope keeps the look
its names have always had, so released files read as before."""

import secrets
from collections.abc import Iterable

from apps.accounts.models import Pseudonym

LISTENING = "listening"
RELEASES = "releases"
VERIFICATION = "verification"

# scope kind (the part before ":") -> (prefix, whether the 8 hex digits are upper case)
_LOOKS = {LISTENING: ("L", True), RELEASES: ("P", True), VERIFICATION: ("annotator-", False)}
ATTEMPTS = 5  # draws per person before giving up: 32 random bits collide only in scopes of many thousands


def verification_scope(project_id: int) -> str:
    return f"{VERIFICATION}:{project_id}"


def pseudonyms_for(user_ids: Iterable[int], scope: str) -> dict[int, str]:
    """user id -> pseudonym in `scope`, creating the missing ones. Safe under concurrency: ON CONFLICT DO
    NOTHING waits for a request that is creating the same person's pseudonym and then keeps its row, and a
    drawn value already taken in the scope is drawn again on the next pass; neither aborts the caller's
    transaction. Sorted inserts, so two requests for overlapping people cannot deadlock."""
    wanted = set(user_ids)
    prefix, upper = _LOOKS[scope.partition(":")[0]]
    found = dict(Pseudonym.objects.filter(scope=scope, user_id__in=wanted).values_list("user_id", "value"))
    for _ in range(ATTEMPTS):
        missing = sorted(wanted - found.keys())
        if not missing:
            return found
        drawn = [secrets.token_hex(4) for _ in missing]
        Pseudonym.objects.bulk_create(
            [Pseudonym(scope=scope, user_id=user_id, value=prefix + (d.upper() if upper else d))
             for user_id, d in zip(missing, drawn, strict=True)],
            ignore_conflicts=True,
        )
        found.update(Pseudonym.objects.filter(scope=scope, user_id__in=missing).values_list("user_id", "value"))
    if wanted - found.keys():
        raise RuntimeError(f"could not draw a unique pseudonym in {scope}")
    return found
