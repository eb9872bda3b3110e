"""The accounts app's hand-written SQL: the API token's user and role names in one prepared statement, read on
every API call (apps/accounts/authentication.py)."""

from django.contrib.auth.models import Group

from apps.accounts.models import User
from apps.core.prepared import columns, load, prepared_cursor


def token_with_user(token_model, key: str):
    """The token of `key` with its user loaded on it and the names of the user's groups in
    `user.role_names` (what that cached property would have queried); None for an unknown key. A row per
    group (at most the four roles), one with no name for none."""
    through = User.groups.through
    sql = f"""
        SELECT {columns("t", token_model)}, {columns("u", User)}, g.name
        FROM {token_model._meta.db_table} t JOIN {User._meta.db_table} u ON u.id = t.user_id
        LEFT JOIN {through._meta.db_table} ug ON ug.user_id = u.id
        LEFT JOIN {Group._meta.db_table} g ON g.id = ug.group_id
        WHERE t.key = %s
    """
    with prepared_cursor() as cursor:
        cursor.execute(sql, [key])
        rows = cursor.fetchall()
    if not rows:
        return None
    width = len(token_model._meta.concrete_fields)
    token = load(token_model, rows[0][:width])
    token.user = load(User, rows[0][width:-1])
    token.user.__dict__["role_names"] = frozenset(row[-1] for row in rows if row[-1] is not None)
    return token
