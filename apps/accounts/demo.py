"""The demo cast (seven listeners fill MOS slots of five; three annotators make a verification panel)."""

from apps.accounts.models import User
from apps.accounts.services import user_upsert

DEMO_CAST = [
    ("admin", ["admin"], "Admin"),
    ("expert", ["expert"], "Expert 전문가"),
    *[(f"listener{i}", ["listener"], f"Listener {i}") for i in range(1, 8)],
    *[(f"annotator{i}", ["annotator"], f"Annotator {i}") for i in range(1, 4)],
]


def demo_password(username: str) -> str:
    return f"{username}-sori-demo"


def seed_demo_accounts():
    users = {}
    # A demo restart sets no password it set before: checking one costs a full hash, about a quarter second each.
    existing = set(User.objects.filter(username__in=[c[0] for c in DEMO_CAST]).values_list("username", flat=True))
    for username, roles, display_name in DEMO_CAST:
        password = None if username in existing else demo_password(username)
        user, _ = user_upsert(username=username, roles=roles, password=password, display_name=display_name)
        if username == "admin":
            user.is_superuser = user.is_staff = True
            user.save(update_fields=["is_superuser", "is_staff"])
        users[username] = user
    return users
