"""The API contract for automated listeners, and what a listener may hear and see."""

import pytest
from django.test import Client
from rest_framework.test import APIClient

from apps.listening import services
from apps.listening.models import Rating

from .conftest import SECRET_TEXT

pytestmark = pytest.mark.django_db


@pytest.fixture
def make_test(make_test, listeners):
    """A published test whose instructions every listener of the cast agreed to on its page
    (unless consented=False)."""

    def make(*args, consented=True, **kwargs):
        test = make_test(*args, **kwargs)
        for listener in listeners if consented else ():
            services.record_consent(test=test, acting_user=listener)
        return test

    return make


def _next(api_client, test):
    return api_client.post(f"/api/listening/tests/{test.pk}/next/")


def test_next_returns_a_clip_with_an_opaque_audio_url_and_204_when_nothing_is_left(make_test, api_client, listener):
    test = make_test(2)
    api_client.force_authenticate(listener)
    first = _next(api_client, test)
    assert first.status_code == 200
    body = first.json()
    assert set(body) == {"clip", "lease_expires_at"} and set(body["clip"]) == {"id", "audio_url"}
    assert body["clip"]["audio_url"].startswith("/audio/")
    # Asking again returns the same clip: the lease is held, not a second one.
    assert _next(api_client, test).json()["clip"]["id"] == body["clip"]["id"]
    for _ in range(2):
        clip_id = _next(api_client, test).json()["clip"]["id"]
        assert api_client.post(f"/api/listening/clips/{clip_id}/playback/").status_code == 200
        assert api_client.post(f"/api/listening/clips/{clip_id}/ratings/", {"score": 4}, format="json").status_code == 201
    assert _next(api_client, test).status_code == 204


def test_ratings_201_then_200_for_the_same_score_and_409_for_another(make_test, api_client, listener):
    test = make_test(1)
    api_client.force_authenticate(listener)
    clip_id = _next(api_client, test).json()["clip"]["id"]
    url = f"/api/listening/clips/{clip_id}/ratings/"
    # The clips are 0.3 s long, within the playback gate's slack: no wait and no playback report is needed
    # (tests/listening/test_rating_cycle.py has the gate on the rating itself).
    assert api_client.post(url, {"score": 3}, format="json").status_code == 201
    assert api_client.post(url, {"score": 3}, format="json").status_code == 200
    conflict = api_client.post(url, {"score": 5}, format="json")
    assert conflict.status_code == 409 and conflict.json()["code"] == "score_conflict"
    assert list(Rating.objects.values_list("score", flat=True)) == [3]
    bad = api_client.post(url, {"score": 6}, format="json")
    assert bad.status_code == 400 and "score" in bad.json()["fields"]


def test_a_rating_without_a_lease_is_refused_with_a_reason(make_test, api_client, listeners):
    test = make_test(1)
    api_client.force_authenticate(listeners[0])
    clip_id = _next(api_client, test).json()["clip"]["id"]
    api_client.force_authenticate(listeners[1])
    playback = api_client.post(f"/api/listening/clips/{clip_id}/playback/")
    assert playback.status_code == 409 and playback.json()["code"] == "no_lease"
    rating = api_client.post(f"/api/listening/clips/{clip_id}/ratings/", {"score": 2}, format="json")
    assert rating.status_code == 409 and rating.json()["code"] == "no_lease" and rating.json()["detail"]


def test_only_listeners_use_the_listener_api_and_only_admins_the_summary(make_test, api_client, annotator, listener, admin):
    test = make_test(1)
    api_client.force_authenticate(annotator)
    assert _next(api_client, test).status_code == 403
    api_client.force_authenticate(listener)
    assert api_client.get(f"/api/listening/tests/{test.pk}/summary/").status_code == 403
    api_client.force_authenticate(admin)
    summary = api_client.get(f"/api/listening/tests/{test.pk}/summary/").json()
    assert summary["clips"] == 1 and summary["ratings"] == 0 and summary["complete_clips"] == 0
    assert summary["alpha_ordinal"] is None and summary["flagged_listeners"] == []


def test_audio_is_served_only_to_the_listener_holding_the_lease(make_test, client_for, listeners, admin):
    test = make_test(1)
    holder, other = client_for(listeners[0]), client_for(listeners[1])
    body = holder.post(f"/api/listening/tests/{test.pk}/next/").json()
    url = body["clip"]["audio_url"]
    assert holder.get(url).status_code == 200
    assert other.get(url).status_code == 403
    assert client_for(admin).get(url).status_code == 200
    assert Client().get(url).status_code == 302  # anonymous: to the login page
    # After rating, the lease is settled and the audio is closed to them too.
    holder.post(f"/api/listening/clips/{body['clip']['id']}/playback/")
    holder.post(f"/api/listening/clips/{body['clip']['id']}/ratings/", {"score": 4}, content_type="application/json")
    assert holder.get(url).status_code == 403


def test_the_transcript_and_clip_metadata_never_reach_a_listener(make_test, client_for, listener):
    test = make_test(3, gold=1)
    client = client_for(listener)
    leaks = [SECRET_TEXT, "TRANSCRIPT", "spk", "sys0", "sys1", "degraded", "spontaneous", "t1c", "gold", "c000"]
    seen = []

    def check(response):
        content = response.content.decode("utf-8", errors="replace") if not response.streaming else ""
        seen.append(response.status_code)
        for word in leaks:
            assert word not in content, f"{word!r} leaked in {response.request['PATH_INFO']}"
        return response

    check(client.get("/"))
    check(client.get("/listening/"))
    check(client.get(f"/listening/tests/{test.pk}/"))
    check(client.post(f"/listening/tests/{test.pk}/", {"agree": "yes"}))
    for _ in range(4):
        page = check(client.get(f"/listening/tests/{test.pk}/rate/"))
        body = check(client.post(f"/api/listening/tests/{test.pk}/next/"))
        data = body.json()
        for word in leaks:
            assert word not in data["clip"]["audio_url"]
        audio = client.get(data["clip"]["audio_url"])
        assert audio.status_code == 200
        assert SECRET_TEXT.encode() not in b"".join(audio.streaming_content)
        clip_id = data["clip"]["id"]
        check(client.post(f"/api/listening/clips/{clip_id}/playback/"))
        check(client.post(f"/listening/tests/{test.pk}/clips/{clip_id}/rate/", {"score": "4"}, follow=True))
        check(client.post(f"/api/listening/clips/{clip_id}/ratings/", {"score": 4}, content_type="application/json"))
        assert page.status_code == 200
    done = check(client.get(f"/listening/tests/{test.pk}/rate/"))
    assert "Nothing left to rate" in done.content.decode()
    assert check(client.post(f"/api/listening/tests/{test.pk}/next/")).status_code == 204
    assert Rating.objects.filter(listener=listener).count() == 4


def test_the_rate_page_needs_consent_first_and_keeps_buttons_disabled_until_playback(make_test, client_for, listener):
    test = make_test(1, consented=False, seconds=5)
    client = client_for(listener)
    assert client.get(f"/listening/tests/{test.pk}/rate/").url == f"/listening/tests/{test.pk}/"
    instructions = client.get(f"/listening/tests/{test.pk}/").content.decode()
    assert "formal or informal" in instructions and "headphones" in instructions
    client.post(f"/listening/tests/{test.pk}/", {"agree": "yes"})
    page = client.get(f"/listening/tests/{test.pk}/rate/").content.decode()
    for label in ("Excellent", "Good", "Fair", "Poor", "Bad"):
        assert label in page
    # In Korean the scale reads as KOMOS's listeners saw it (from the catalogue, no longer inlined beside English).
    listener.language = "ko"
    listener.save(update_fields=["language"])
    korean = client.get(f"/listening/tests/{test.pk}/rate/").content.decode()
    for label in ("아주 좋음", "좋음", "보통", "나쁨", "아주 나쁨"):
        assert label in korean
    listener.language = "en"
    listener.save(update_fields=["language"])
    assert page.count('" disabled>') == 5
    # A form post before the clip could have played is refused by the server too.
    clip = test.clips.get()
    refused = client.post(f"/listening/tests/{test.pk}/clips/{clip.pk}/rate/", {"score": "5"}, follow=True)
    assert "has not had time to play to its end" in refused.content.decode()
    assert not Rating.objects.exists()


def test_the_home_page_shows_a_listener_their_test_and_how_many_clips_are_left(make_test, client_for, listener, admin):
    test = make_test(3, gold=1)
    home = client_for(listener).get("/").content.decode()
    assert f"Listening test: {test.name}" in home and 'aria-label="4 waiting"' in home
    admin_home = client_for(admin).get("/").content.decode()
    assert "/listening/manage/" in admin_home


def test_the_api_gives_no_clip_to_a_listener_who_has_not_agreed_to_the_instructions(make_test, api_client, make_user):
    test = make_test(1)
    newcomer = make_user("newcomer", "listener")
    api_client.force_authenticate(newcomer)
    refused = _next(api_client, test)
    assert refused.status_code == 403
    assert refused.json()["code"] == "consent_required"
    assert f"/listening/tests/{test.pk}/" in refused.json()["detail"]
    assert not services.Assignment.objects.filter(worker=newcomer).exists()
    services.record_consent(test=test, acting_user=newcomer)
    assert _next(api_client, test).status_code == 200


def test_a_token_client_fetches_the_audio_url_the_api_gave_it(make_test, listeners, token_client_for):
    test = make_test(1)
    holder, other = token_client_for(listeners[0]), token_client_for(listeners[1])
    url = holder.post(f"/api/listening/tests/{test.pk}/next/").json()["clip"]["audio_url"]
    audio = holder.get(url)
    assert audio.status_code == 200 and audio["Content-Type"].startswith("audio/")
    assert b"".join(audio.streaming_content)[:4] == b"RIFF"
    assert other.get(url).status_code == 403  # the same permission check as for a page's session
    forged = APIClient()
    forged.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert forged.get(url).status_code == 401
    assert APIClient().get(url).status_code == 302  # no credentials: the login page, as before
