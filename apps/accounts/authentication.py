"""Token authentication that also reads the user's roles, so the role checks that follow (`Can`, `can`)
cost no query of their own: one prepared query per API call (issue 23)."""

from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions

from apps.accounts import sql


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's TokenAuthentication (same header, same refusals), with the user and the names of their groups
    read in the same statement (apps.accounts.sql.token_with_user)."""

    def authenticate_credentials(self, key):
        token = sql.token_with_user(self.get_model(), key)
        if token is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return (token.user, token)
