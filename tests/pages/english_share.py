"""Measures the share of English-only interface strings each participant reads (the note of issue 36):
  DATABASE_URL=... python -m pytest tests/pages/english_share.py -q -s -n 0 -p no:randomly
It seeds the demo and prints one line per role; it asserts nothing (tests/pages/test_korean_interface.py does)."""

import pytest

from apps.accounts.models import User
from tests.pages.korean_pages import PARTICIPANTS, english_share, participant_pages, seed_demo


@pytest.mark.django_db
def test_print_the_english_share_per_role():
    seed_demo()
    names = frozenset(n for u in User.objects.all() for n in (u.username, str(u)))
    for role, username in PARTICIPANTS.items():
        pages = participant_pages(User.objects.get(username=username))
        english, total = english_share(pages, names)
        print(f"\n{role}: {len(pages)} pages, {english} of {total} interface strings English-only ({100 * english / total:.0f} %)")
