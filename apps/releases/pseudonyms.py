"""Stable pseudonyms for people in releases whose workflow has none of its own."""

from django.db import IntegrityError, transaction

from apps.releases.models import Pseudonym


def for_users(user_ids) -> dict[int, str]:
    """user id -> pseudonym, creating missing ones (retried on the rare collision of random codes)."""
    ids = sorted(set(user_ids))
    found = dict(Pseudonym.objects.filter(user_id__in=ids).values_list("user_id", "code"))
    for user_id in ids:
        if user_id in found:
            continue
        for _ in range(5):
            try:
                with transaction.atomic():
                    found[user_id] = Pseudonym.objects.create(user_id=user_id).code
                break
            except IntegrityError:
                existing = Pseudonym.objects.filter(user_id=user_id).values_list("code", flat=True).first()
                if existing:
                    found[user_id] = existing
                    break
    return found
