"""The accounts API: the token endpoint (throttled, counted by django-axes) and /api/me/."""

from axes.handlers.proxy import AxesProxyHandler
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from redis.exceptions import RedisError
from rest_framework import serializers
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import AuthenticationFailed, Throttled
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle, ScopedRateThrottle
from rest_framework.views import APIView

from apps.accounts.authentication import TokenAuthentication
from apps.core.api import StrictInput, error_responses
from apps.core.errors import InvalidInput, Unavailable


def client_ip(request) -> str:
    """The client's address as the API throttle counts it: X-Forwarded-For is read only behind
    REST_FRAMEWORK["NUM_PROXIES"] proxies (SORI_NUM_PROXIES, default 0: the connecting address). django-axes
    uses it too (AXES_CLIENT_IP_CALLABLE), so a varied header dodges neither the throttle nor the lockout."""
    return BaseThrottle().get_ident(request)


class TokenThrottle(ScopedRateThrottle):
    """The token endpoint's rate limit, failing closed: without its cache (Redis down) no password is
    tried, and the answer is a 503 that says so instead of a 500."""

    def allow_request(self, request, view):
        try:
            return super().allow_request(request, view)
        except (RedisError, OSError) as exc:
            raise Unavailable(
                gettext("Logins are paused: the rate limiter's cache (Redis) cannot be reached. Try again later."),
                code="throttle_unavailable",
            ) from exc


class TokenIn(StrictInput):
    username = serializers.CharField()
    password = serializers.CharField()


class TokenOut(serializers.Serializer):
    token = serializers.CharField()


class TokenView(ObtainAuthToken):
    """POST username and password, receive {"token": ...}. Throttled, and failures count toward the
    login lockout like the login page's. Wrong credentials answer 401 (a well-formed request that does not
    authenticate), a malformed body 400."""

    throttle_classes = [TokenThrottle]
    throttle_scope = "token"
    # With token authentication first, DRF answers a refused login 401 with WWW-Authenticate: Token.
    authentication_classes = [TokenAuthentication]

    @extend_schema(request=TokenIn, responses={
        200: TokenOut,
        **error_responses(400, 401, 429, 503, s400="The body is not a username and a password.",
                          s401="Wrong username or password.",
                          s429="Too many attempts, or this account is locked out after failed logins.",
                          s503="The rate limiter's cache cannot be reached; no login is tried."),
    })
    def post(self, request, *args, **kwargs):
        if not isinstance(request.data, dict):
            raise InvalidInput(gettext("Expected an object with username and password."))
        # Validated first: the lockout lookup below queries with the username, and text the database
        # cannot hold (a NUL character) must be a 400, not a 500.
        given = TokenIn(data=request.data)
        given.is_valid(raise_exception=True)
        # django-axes refuses a locked-out login inside authenticate(), which DRF would report as a plain
        # "wrong credentials"; say what happened instead.
        if AxesProxyHandler.is_locked(request._request, {"username": given.validated_data["username"]}):
            raise Throttled(detail="Too many failed logins for this account from your address; try again later.")
        serializer = self.get_serializer(data=request.data)
        if not serializer.is_valid():
            raise AuthenticationFailed(" ".join(serializer.errors.get("non_field_errors", ["Unable to log in."])))
        token, _ = Token.objects.get_or_create(user=serializer.validated_data["user"])
        return Response({"token": token.key})


class MeSerializer(serializers.Serializer):
    username = serializers.CharField()
    display_name = serializers.CharField()
    roles = serializers.ListField(child=serializers.CharField())


class MeView(APIView):
    @extend_schema(responses=MeSerializer)
    def get(self, request):
        user = request.user
        return Response(
            {"username": user.username, "display_name": str(user), "roles": sorted(user.role_names)}
        )
