"""Who may do what with releases: admins only (they pass every rule before it is asked)."""

from apps.accounts.permissions import rule


@rule("releases.manage")
def _manage(user, obj=None):
    return False
