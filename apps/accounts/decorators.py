"""Page views that API clients also fetch (the audio_url and visual_url the API hands out) accept the same
token as the API, so a token client is not sent to the login page."""

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.http import HttpResponse
from rest_framework.exceptions import AuthenticationFailed

from apps.accounts.authentication import TokenAuthentication


def login_or_token_required(view):
    """Like login_required, but a request carrying `Authorization: Token <key>` is authenticated by that
    token (a bad token answers 401, never the login page). The view's own permission check still runs."""
    token_auth = TokenAuthentication()

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_authenticated:
            try:
                found = token_auth.authenticate(request)
            except AuthenticationFailed as exc:
                response = HttpResponse(str(exc.detail), status=401, content_type="text/plain; charset=utf-8")
                response["WWW-Authenticate"] = token_auth.authenticate_header(request)
                return response
            if found is None:
                return redirect_to_login(request.get_full_path())
            request.user = found[0]
        return view(request, *args, **kwargs)

    return wrapper
