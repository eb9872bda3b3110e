"""Token authentication reads the user and their roles in one query (issue 23): the role checks that follow
cost nothing more, and every refusal stays as DRF's token authentication gives it."""

import pytest
from rest_framework.authtoken.models import Token

pytestmark = pytest.mark.django_db


def _client(api_client, user):
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return api_client


@pytest.mark.parametrize("roles", [(), ("listener",), ("annotator", "expert", "listener")])
def test_the_token_brings_the_users_roles_in_its_one_query(api_client, make_user, roles, django_assert_num_queries):
    client = _client(api_client, make_user("ravi", *roles))
    with django_assert_num_queries(1):
        assert client.get("/api/me/").json()["roles"] == sorted(roles)


def test_the_roles_read_with_the_token_decide_the_role_checks(api_client, make_user):
    # An annotator's token does not open the listening API, and the listener's does past the role check.
    annotator = _client(api_client, make_user("ann", "annotator"))
    assert annotator.post("/api/listening/tests/999/next/").status_code == 403
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=make_user('lis', 'listener')).key}")
    assert api_client.post("/api/listening/tests/999/next/").status_code == 404


def test_a_wrong_or_inactive_users_token_is_refused(api_client, make_user):
    api_client.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    refused = api_client.get("/api/me/")
    # 403, not 401: session authentication comes first in the settings, as before.
    assert refused.status_code == 403 and "Invalid token." in refused.content.decode()
    user = make_user("gone", "listener")
    client = _client(api_client, user)
    user.is_active = False
    user.save(update_fields=["is_active"])
    refused = client.get("/api/me/")
    assert refused.status_code == 403 and "User inactive or deleted." in refused.content.decode()
