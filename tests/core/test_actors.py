"""Who a write records as having acted: one rule (apps.core.actors.actor), not one per app."""

import re
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import AnonymousUser

from apps.accounts.models import User
from apps.core.actors import actor

ROOT = Path(settings.BASE_DIR)
# `x if x and x.pk else None` and its spellings: what each app wrote before actor() existed.
RESTATED = re.compile(r"if (\w*user) (?:is not None )?and (?:\1\.pk|getattr\(\1, \"pk\", None\)) else")


def test_a_person_is_recorded_and_nobody_or_an_anonymous_visitor_is_not(make_user):
    alice = make_user("alice_admin", "admin")
    assert actor(alice) is alice
    assert actor(None) is None
    assert actor(AnonymousUser()) is None
    assert actor(User(username="never_saved")) is None


def test_no_app_restates_the_rule():
    for path in (ROOT / "apps").rglob("*.py"):
        if path != ROOT / "apps/core/actors.py":
            assert not RESTATED.search(path.read_text()), path
