"""The listener's cycle over the API as a client drives it: the rating response carries the next clip and
the rating itself meets the playback gate, so a clip costs one call; the gate still counts from when that
clip was handed out; and each call's query count is fixed (token authentication included), whatever the
size of the test."""

from datetime import timedelta
from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.listening import services
from apps.listening.models import ClipServing, Rating

pytestmark = pytest.mark.django_db

# Per call, measured with a token-authenticated client (1 of them: the token with its user and roles).
# Before issue 23: next 16, playback 10, rating 15 (and two more round trips per clip).
# The rating stores itself in one statement (its savepoint here, in the test's transaction, adds two); the
# last rating, with nothing left to hand on, looks further for a clip: two more.
MAX_QUERIES = {"next": 9, "playback": 8, "rating": 13, "last rating": 15}


@pytest.fixture
def rater(make_test, listener, token_client_for):
    def make(clips):
        test = make_test(clips)
        services.record_consent(test=test, acting_user=listener)
        return test, token_client_for(listener)

    return make


class Clock:
    def __init__(self):
        self.now = timezone.now()

    def __call__(self):
        return self.now


def test_the_rating_response_carries_the_next_clip_and_progress_until_nothing_is_left(rater, listener):
    test, client = rater(3)
    clip = client.post(f"/api/listening/tests/{test.pk}/next/").json()["clip"]
    seen = [clip["id"]]
    for number in (1, 2, 3):
        rated = client.post(f"/api/listening/clips/{clip['id']}/ratings/", {"score": 4}, format="json")
        assert rated.status_code == 201
        body = rated.json()
        assert body["progress"] == {"rated": number, "clips": 3}
        if number < 3:
            assert set(body["next"]) == {"clip", "lease_expires_at"} and set(body["next"]["clip"]) == {"id", "audio_url"}
            clip = body["next"]["clip"]
            assert clip["id"] not in seen
            seen.append(clip["id"])
            # The clip handed on is the listener's lease: `next` answers the same one.
            assert client.post(f"/api/listening/tests/{test.pk}/next/").json()["clip"]["id"] == clip["id"]
        else:
            assert body["next"] is None
    assert client.post(f"/api/listening/tests/{test.pk}/next/").status_code == 204
    assert Rating.objects.filter(listener=listener).count() == 3
    # The same score again answers 200 with the stored rating (and nothing new to hand on).
    again = client.post(f"/api/listening/clips/{seen[-1]}/ratings/", {"score": 4}, format="json")
    assert again.status_code == 200 and again.json()["next"] is None


def test_a_rating_needs_no_playback_report_but_still_meets_the_playback_gate(rater, listener, settings):
    """The gate counts from when the clip handed on by the previous rating was served: rated (or reported)
    before its length has passed, it is refused; after, the rating alone is enough."""
    settings.LISTENING_PLAYBACK_TOLERANCE_SECONDS = 0
    test, client = rater(3)
    clock = Clock()
    with mock.patch("django.utils.timezone.now", clock):
        first = client.post(f"/api/listening/tests/{test.pk}/next/").json()["clip"]["id"]
        early = client.post(f"/api/listening/clips/{first}/ratings/", {"score": 3}, format="json")
        assert early.status_code == 409 and early.json()["code"] == "playback_too_early"
        clock.now += timedelta(seconds=0.2)  # the clips are 0.3 s long
        assert client.post(f"/api/listening/clips/{first}/ratings/", {"score": 3}, format="json").status_code == 409
        clock.now += timedelta(seconds=0.1)
        second = client.post(f"/api/listening/clips/{first}/ratings/", {"score": 3}, format="json").json()["next"]["clip"]["id"]
        assert ClipServing.objects.get(clip_id=second, listener=listener).served_at == clock.now
        for path in ("playback/", "ratings/"):
            refused = client.post(f"/api/listening/clips/{second}/{path}", {"score": 3}, format="json")
            assert refused.status_code == 409 and refused.json()["code"] == "playback_too_early"
        clock.now += timedelta(seconds=0.3)
        rated = client.post(f"/api/listening/clips/{second}/ratings/", {"score": 4}, format="json")
        assert rated.status_code == 201
        assert Rating.objects.get(clip_id=second, listener=listener).listening_seconds == pytest.approx(0.3)
        # A reported playback end passed the same gate, so the rating after it is not checked again.
        third = rated.json()["next"]["clip"]["id"]
        clock.now += timedelta(seconds=0.3)
        assert client.post(f"/api/listening/clips/{third}/playback/").status_code == 200
        assert client.post(f"/api/listening/clips/{third}/ratings/", {"score": 2}, format="json").status_code == 201
    assert Rating.objects.filter(listener=listener).count() == 3


def test_a_rating_hands_on_nothing_when_the_listener_has_not_agreed_to_the_test(rater, listener):
    test, client = rater(2)
    clip = client.post(f"/api/listening/tests/{test.pk}/next/").json()["clip"]["id"]
    test.consents.all().delete()  # e.g. an admin reset the agreements: no new clip goes out without one
    body = client.post(f"/api/listening/clips/{clip}/ratings/", {"score": 2}, format="json").json()
    assert body["next"] is None and body["progress"] == {"rated": 1, "clips": 2}


@pytest.mark.postgres  # the counts of production's database, where the rating is one statement
@pytest.mark.parametrize("clips", [2, 12])
def test_each_call_of_the_cycle_runs_a_fixed_number_of_queries(rater, clips):
    test, client = rater(clips)
    counts = {"next": [], "playback": [], "rating": []}

    def call(kind, path, body=None):
        with CaptureQueriesContext(connection) as queries:
            answer = client.post(path, body, format="json") if body else client.post(path)
        counts[kind].append(len(queries))
        return answer

    clip = call("next", f"/api/listening/tests/{test.pk}/next/").json()["clip"]
    while clip is not None:
        assert call("playback", f"/api/listening/clips/{clip['id']}/playback/").status_code == 200
        rated = call("rating", f"/api/listening/clips/{clip['id']}/ratings/", {"score": 5})
        assert rated.status_code == 201
        clip = (rated.json()["next"] or {}).get("clip")
    assert len(counts["rating"]) == clips
    counts["last rating"] = [counts["rating"].pop()]
    for kind, limit in MAX_QUERIES.items():
        assert max(counts[kind]) <= limit, f"{kind}: {counts[kind]} queries, at most {limit}"
