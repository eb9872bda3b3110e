"""Token authentication that also reads the user's roles, so the role checks that follow (`Can`, `can`)
cost no query of their own: one prepared query per API call (issue 23)."""

from django.contrib.auth.models import Group
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions

from apps.accounts.models import User
from apps.core.prepared import columns, load, prepared_cursor


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's TokenAuthentication (same header, same refusals), with the user and the names of their groups
    read in the same statement: a row per group (at most the four roles), one with no name for none."""

    def authenticate_credentials(self, key):
        token_model, through = self.get_model(), User.groups.through
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
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        width = len(token_model._meta.concrete_fields)
        token = load(token_model, rows[0][:width])
        token.user = load(User, rows[0][width:-1])
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        # What User.role_names (a cached_property) would have queried on the first role check.
        token.user.__dict__["role_names"] = frozenset(row[-1] for row in rows if row[-1] is not None)
        return (token.user, token)
