"""The demo cast (seven listeners fill MOS slots of five; three annotators make a verification panel)."""

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
    for username, roles, display_name in DEMO_CAST:
        user, _ = user_upsert(username=username, roles=roles, password=demo_password(username), display_name=display_name)
        if username == "admin":
            user.is_superuser = user.is_staff = True
            user.save(update_fields=["is_superuser", "is_staff"])
        users[username] = user
    return users
