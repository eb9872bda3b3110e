from datetime import timedelta

import pytest

from apps.audio import playback, services
from apps.audio.rules import _access_checks, grants_audio_access
from apps.core.errors import Conflict


@pytest.fixture
def asset(db, make_wav):
    return services.import_audio_file(make_wav("clip.wav", seconds=1.0))[0]


@pytest.fixture
def body(asset):
    with asset.file.open("rb") as fh:
        return fh.read()


def test_a_whole_file_is_served_with_accept_ranges(client_for, admin, asset, body):
    response = client_for(admin).get(asset.get_absolute_url())
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == body
    assert response["Accept-Ranges"] == "bytes"
    assert response["Content-Type"] == "audio/wav"
    assert int(response["Content-Length"]) == len(body)


@pytest.mark.parametrize(
    ("header", "start", "end"),
    [("bytes=0-99", 0, 99), ("bytes=1000-", 1000, None), ("bytes=-500", -500, None), ("bytes=100-999999", 100, None)],
)
def test_a_range_request_gets_206_with_the_right_bytes(client_for, admin, asset, body, header, start, end):
    response = client_for(admin).get(asset.get_absolute_url(), HTTP_RANGE=header)
    expected = body[start:] if end is None else body[start : end + 1]
    first = start if start >= 0 else len(body) + start
    assert response.status_code == 206
    assert b"".join(response.streaming_content) == expected
    assert response["Content-Range"] == f"bytes {first}-{first + len(expected) - 1}/{len(body)}"
    assert int(response["Content-Length"]) == len(expected)


def test_an_impossible_range_gets_416(client_for, admin, asset, body):
    response = client_for(admin).get(asset.get_absolute_url(), HTTP_RANGE=f"bytes={len(body)}-")
    assert response.status_code == 416
    assert response["Content-Range"] == f"bytes */{len(body)}"


def test_a_malformed_range_is_ignored_and_the_whole_file_served(client_for, admin, asset, body):
    response = client_for(admin).get(asset.get_absolute_url(), HTTP_RANGE="bytes=abc")
    assert response.status_code == 200


def test_a_person_without_access_gets_403(client_for, listener, asset):
    assert client_for(listener).get(asset.get_absolute_url()).status_code == 403


def test_an_app_can_grant_access_to_an_asset(client_for, listener, asset):
    check = grants_audio_access(lambda user, a: user == listener and a == asset)
    try:
        assert client_for(listener).get(asset.get_absolute_url(), HTTP_RANGE="bytes=0-9").status_code == 206
    finally:
        _access_checks.remove(check)


def test_the_first_serving_is_what_the_playback_gate_counts_from(client_for, admin, listener, asset):
    assert client_for(listener).get(asset.get_absolute_url()).status_code == 403
    assert playback.first_served(asset, listener) is None  # refused: nothing was sent
    client = client_for(admin)
    client.get(asset.get_absolute_url())
    first = playback.first_served(asset, admin)
    client.get(asset.get_absolute_url(), HTTP_RANGE="bytes=0-9")  # the player asking again keeps the first time
    assert playback.first_served(asset, admin) == first
    with pytest.raises(Conflict) as early:
        playback.require_played_through(asset, admin, now=first + timedelta(seconds=0.1))
    assert early.value.code == "playback_too_early"
    playback.require_played_through(asset, admin, now=first + timedelta(seconds=asset.duration_seconds))  # no refusal
