import socket

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings
from rest_framework.authtoken.models import Token

from apps.accounts.models import User
from apps.accounts.permissions import can, require, rule
from apps.core.errors import Forbidden


def test_a_person_may_hold_several_roles(make_user):
    both = make_user("sam", "listener", "annotator")
    assert both.has_role("listener") and both.has_role("annotator")
    assert not both.has_role("expert")
    assert set(User.objects.with_role("annotator")) == {both}


def test_an_action_without_a_rule_is_refused_except_for_admins(admin, listener):
    assert can(admin, "nobody.registered.this")
    assert not can(listener, "nobody.registered.this")


def test_a_registered_rule_decides_per_object(listener, listeners):
    rule("tests.own_thing")(lambda user, obj: obj == user.pk)
    assert can(listener, "tests.own_thing", listener.pk)
    assert not can(listener, "tests.own_thing", listeners[1].pk)


def test_require_refuses_with_forbidden_naming_the_action_when_can_says_no(admin, listener):
    require(admin, "nobody.registered.this")  # admins pass, as with can()
    with pytest.raises(Forbidden, match=r"nobody\.registered\.this") as refused:
        require(listener, "nobody.registered.this")
    assert refused.value.status == 403


def test_an_admin_only_page_answers_a_listener_with_the_refusal_page(client_for, listener):
    response = client_for(listener).get("/speech/")
    assert response.status_code == 403
    assert "Not allowed" in response.content.decode() and "speech.manage" in response.content.decode()


def test_an_inactive_user_may_do_nothing(admin):
    admin.is_active = False
    assert not can(admin, "jobs.view")


def test_add_user_is_idempotent(db, capsys):
    call_command("add_user", "mina", "--role", "listener", "--role", "annotator", "--password", "pw-mina-123")
    first = User.objects.get(username="mina")
    call_command("add_user", "mina", "--role", "listener", "--role", "annotator", "--password", "pw-mina-123")
    again = User.objects.get(username="mina")
    assert User.objects.filter(username="mina").count() == 1
    assert again.password == first.password  # unchanged: the same password is not re-hashed
    assert again.role_names == {"listener", "annotator"}
    assert "created mina" in capsys.readouterr().out


def test_add_user_reads_the_password_from_the_environment(db, monkeypatch):
    monkeypatch.setenv("SORI_PASSWORD", "from-env-pw-1")
    call_command("add_user", "jun", "--role", "expert")
    assert User.objects.get(username="jun").check_password("from-env-pw-1")


def test_add_user_without_a_password_source_says_how_to_give_one(db, monkeypatch):
    monkeypatch.delenv("SORI_PASSWORD", raising=False)
    monkeypatch.setattr("os.isatty", lambda fd: False)
    with pytest.raises(CommandError, match="no password"):
        call_command("add_user", "jun", "--role", "expert")


def test_the_admin_role_grants_django_admin_access(make_user):
    assert make_user("boss", "admin").is_staff
    assert not make_user("ear", "listener").is_staff


def test_a_listener_gets_403_on_an_admin_page_and_api(client_for, api_client, listener):
    assert client_for(listener).get("/jobs/").status_code == 403
    api_client.force_authenticate(listener)
    response = api_client.get("/api/jobs/")
    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"


def test_an_admin_reaches_the_same_page_and_api(client_for, api_client, admin):
    assert client_for(admin).get("/jobs/").status_code == 200
    api_client.force_authenticate(admin)
    assert api_client.get("/api/jobs/").json()["count"] == 0


def test_anonymous_people_are_sent_to_log_in(client):
    response = client.get("/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_the_token_endpoint_returns_a_token_for_good_credentials(api_client, listener):
    response = api_client.post("/api/auth/token/", {"username": listener.username, "password": "pw-for-tests-1"})
    assert response.status_code == 200
    token = response.json()["token"]
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert api_client.get("/api/me/").json()["roles"] == ["listener"]


def test_an_api_error_names_the_field_that_was_wrong(api_client, listener):
    response = api_client.post("/api/auth/token/", {"username": listener.username})
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert "password" in body["fields"]
    assert body["detail"].startswith("password:")


def test_a_username_with_a_nul_character_is_refused_not_a_server_error(api_client, client):
    # PostgreSQL cannot store NUL; the lockout lookup used to send the raw username to the database.
    response = api_client.post("/api/auth/token/", {"username": "ali\x00ce", "password": "x"}, format="json")
    assert response.status_code == 400
    assert "username" in response.json()["fields"]
    assert client.post("/login/", {"username": "ali\x00ce", "password": "x"}).status_code == 200


def test_repeated_failed_logins_are_throttled(client, listener):
    for _ in range(5):
        client.post("/login/", {"username": listener.username, "password": "wrong"})
    locked = client.post("/login/", {"username": listener.username, "password": "pw-for-tests-1"})
    assert locked.status_code == 429
    assert b"Too many failed logins" in locked.content


def test_a_good_login_before_the_limit_resets_the_count(client, listener):
    for _ in range(4):
        client.post("/login/", {"username": listener.username, "password": "wrong"})
    assert client.post("/login/", {"username": listener.username, "password": "pw-for-tests-1"}).status_code == 302


def test_failed_token_requests_count_toward_the_same_lockout(api_client, listener):
    for _ in range(5):
        assert api_client.post("/api/auth/token/", {"username": listener.username, "password": "wrong"}).status_code == 401
    locked = api_client.post("/api/auth/token/", {"username": listener.username, "password": "pw-for-tests-1"})
    assert locked.status_code == 429
    assert locked.json()["detail"].startswith("Too many failed logins")


def _ask_for_tokens(api_client, count: int, forwarded_for=lambda n: f"203.0.113.{n}") -> list[int]:
    """POST the token endpoint `count` times, each with a different unknown username (so the per-username
    lockout never starts) and the X-Forwarded-For header `forwarded_for(n)`."""
    return [
        api_client.post("/api/auth/token/", {"username": f"nobody{n}", "password": "wrong"},
                        HTTP_X_FORWARDED_FOR=forwarded_for(n)).status_code
        for n in range(count)
    ]


def test_the_token_throttle_is_not_dodged_by_a_varied_forwarded_for_header(api_client, db):
    answers = _ask_for_tokens(api_client, 30)
    assert answers[:20] == [401] * 20
    assert set(answers[20:]) == {429}


def test_behind_a_configured_proxy_the_throttle_counts_the_address_the_proxy_saw(api_client, db, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    # The proxy appends the client it saw; whatever the client wrote before it is not trusted.
    assert set(_ask_for_tokens(api_client, 20, lambda n: f"10.9.9.{n}, 198.51.100.7")) == {401}
    assert _ask_for_tokens(api_client, 1, lambda n: "198.51.100.7") == [429]
    assert _ask_for_tokens(api_client, 1, lambda n: "10.9.9.1, 198.51.100.8") == [401]


def test_the_login_lockout_is_not_dodged_by_a_varied_forwarded_for_header(api_client, listener):
    for n in range(5):
        api_client.post("/api/auth/token/", {"username": listener.username, "password": "wrong"},
                        HTTP_X_FORWARDED_FOR=f"203.0.113.{n}")
    locked = api_client.post("/api/auth/token/", {"username": listener.username, "password": "pw-for-tests-1"},
                             HTTP_X_FORWARDED_FOR="203.0.113.99")
    assert locked.status_code == 429


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_with_redis_unreachable_the_token_endpoint_fails_closed_with_503(api_client, listener):
    token = Token.objects.create(user=listener)
    unreachable = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                               "LOCATION": f"redis://127.0.0.1:{_closed_port()}/0"}}
    with override_settings(CACHES=unreachable):
        response = api_client.post("/api/auth/token/", {"username": listener.username, "password": "pw-for-tests-1"})
        assert response.status_code == 503
        assert response.json()["code"] == "throttle_unavailable"
        assert "Redis" in response.json()["detail"]
        # An existing token still works on the rest of the API.
        api_client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        assert api_client.get("/api/me/").status_code == 200
