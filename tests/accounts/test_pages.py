from io import StringIO

from django.core.management import call_command


def test_the_home_page_shows_a_persons_roles(client_for, make_user):
    person = make_user("duo", "listener", "annotator")
    html = client_for(person).get("/").content.decode()
    assert "annotator" in html and "listener" in html


def test_the_admin_sees_admin_navigation_and_others_do_not(client_for, admin, listener):
    html = client_for(admin).get("/").content.decode()
    assert 'href="/jobs/"' in html and "Background jobs" in html
    assert 'href="/jobs/"' not in client_for(listener).get("/").content.decode()


def test_pages_load_every_asset_locally(client_for, admin):
    for url in ["/", "/api/docs/", "/jobs/"]:
        html = client_for(admin).get(url).content.decode()
        assert "https://" not in html.replace("https://www.w3.org", ""), url


def test_healthz_reports_database_and_broker(client, db):
    body = client.get("/healthz").json()
    assert body["database"] == "ok"
    assert body["broker"] in {"ok", "not configured (jobs run in-process)"}
    assert body["status"] == "ok"


def test_the_openapi_schema_is_served(client_for, admin):
    response = client_for(admin).get("/api/schema/")
    assert response.status_code == 200 and b"/api/auth/token/" in response.content


def test_lists_in_the_api_are_paginated(api_client, admin):
    api_client.force_authenticate(admin)
    assert set(api_client.get("/api/jobs/").json()) == {"count", "next", "previous", "results"}


def test_every_model_change_has_a_migration(db):
    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)
    assert "No changes detected" in out.getvalue()


def test_seed_demo_is_idempotent_and_prints_the_logins(db, settings):
    from apps.accounts.models import User
    from apps.audio.models import AudioAsset

    out = StringIO()
    call_command("seed_demo", stdout=out)
    count, assets = User.objects.count(), AudioAsset.objects.count()
    call_command("seed_demo", stdout=StringIO())
    assert User.objects.count() == count == 12
    assert AudioAsset.objects.count() == assets  # workflow apps add demo audio of their own, once
    assert "admin-sori-demo" in out.getvalue()
    assert User.objects.get(username="listener7").has_role("listener")
    assert AudioAsset.objects.count() >= 3  # the foundation's Korean clips made with espeak-ng, stored once
