"""The playback rule in its two forms (apps/audio/playback.py): Python for the careful paths, SQL for the
statements that check it inside a write (a listening rating in one statement). Both run on the same cases
and must give the same answer, including at the boundary and without a serving; and the one record of
"played to the end" (AudioPlayback) counts plays and moves its last end."""

import itertools
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection

from apps.audio import playback
from apps.audio.models import AudioAsset, AudioPlayback
from apps.core.errors import Conflict
from apps.queues.sql import Guard

SERVED = datetime(2026, 3, 1, 9, 0, 0, tzinfo=UTC)
DURATIONS = [0.0, 0.3, 1.0, 2.5]
SLACKS = [0.0, 0.5]
ELAPSED = [-1.0, 0.0, 0.2, 0.3, 0.5, 0.7, 0.999999, 1.0, 2.0, 2.5, 3.0]  # seconds from serving to `now`
REPORTED = [None, -10.0, 0.0, 5.0]  # the last reported end, seconds from serving (None: never reported)


@pytest.fixture
def audio(db):
    return AudioAsset.objects.create(file="a.wav", sha256="a" * 64, format="wav", duration_seconds=1.0,
                                     sample_rate=16000, channels=1, size_bytes=44)


def _sql(condition: str, values: dict) -> bool:
    text, params = Guard(condition, values).positional()
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COALESCE(({text}), FALSE)", params)
        return cursor.fetchone()[0]


@pytest.mark.postgres
def test_the_python_and_sql_forms_agree_on_every_case(audio, listener, settings):
    time_sql = playback.had_time_to_play_sql(served_at="%(served)s::timestamptz", duration_seconds="%(duration)s::float8")
    played_sql = playback.played_through_sql(asset_id="%(asset)s", user_id="%(user)s",
                                             served_at="%(served)s::timestamptz", duration_seconds="%(duration)s::float8")
    checked = 0
    for slack, reported in itertools.product(SLACKS, REPORTED):
        settings.LISTENING_PLAYBACK_TOLERANCE_SECONDS = slack
        AudioPlayback.objects.all().delete()
        last_end = None if reported is None else SERVED + timedelta(seconds=reported)
        if last_end is not None:
            AudioPlayback.objects.create(asset=audio, user=listener, first_ended_at=last_end, last_ended_at=last_end)
        for duration, elapsed, served in itertools.product(DURATIONS, ELAPSED, [SERVED, None]):
            now = SERVED + timedelta(seconds=elapsed)
            case = {"duration": duration, "served": served, **playback.rule_params(now)}
            had_time = playback.had_time_to_play(duration_seconds=duration, served_at=served, now=now)
            played = playback.played_through(duration_seconds=duration, served_at=served, now=now,
                                             last_reported_end=last_end)
            where = f"slack {slack}, duration {duration}, {elapsed} s after serving {served}, reported {reported}"
            assert _sql(time_sql, case) is had_time, where
            assert _sql(played_sql, {**case, "asset": audio.pk, "user": listener.pk}) is played, where
            checked += 1
    assert checked == len(SLACKS) * len(REPORTED) * len(DURATIONS) * len(ELAPSED) * 2


def test_the_rule_at_its_edges(settings):
    settings.LISTENING_PLAYBACK_TOLERANCE_SECONDS = 0.5
    rule = playback.had_time_to_play
    assert rule(duration_seconds=2.0, served_at=SERVED, now=SERVED + timedelta(seconds=1.5))  # length less the slack
    assert not rule(duration_seconds=2.0, served_at=SERVED, now=SERVED + timedelta(seconds=1.49))
    assert rule(duration_seconds=0.3, served_at=SERVED, now=SERVED)  # shorter than the slack: at once
    assert not rule(duration_seconds=0.3, served_at=None, now=SERVED)  # never served: never
    # A report before this serving (another test with the same audio) does not count; one since does.
    late = SERVED + timedelta(seconds=0.1)
    assert not playback.played_through(duration_seconds=2.0, served_at=SERVED, now=late,
                                       last_reported_end=SERVED - timedelta(seconds=1))
    assert playback.played_through(duration_seconds=2.0, served_at=SERVED, now=late, last_reported_end=SERVED)


def test_one_record_per_audio_and_person_counts_the_plays(audio, listener, annotator):
    first = SERVED + timedelta(seconds=2)
    record = playback.report_playback(asset=audio, acting_user=listener, now=first, served_at=SERVED)
    assert (record.plays, record.first_ended_at, record.last_ended_at) == (1, first, first)
    again = first + timedelta(minutes=3)
    playback.report_playback(asset=audio, acting_user=listener, now=again, served_at=SERVED)
    stored = AudioPlayback.objects.get(asset=audio, user=listener)
    assert (stored.plays, stored.first_ended_at, stored.last_ended_at) == (2, first, again)
    assert playback.has_played(audio.pk, listener) and not playback.has_played(audio.pk, annotator)
    with pytest.raises(Conflict) as early:  # without a serving given: the audio file's first serving, never
        playback.report_playback(asset=audio, acting_user=annotator, now=again)
    assert early.value.code == "playback_too_early"
    assert AudioPlayback.objects.count() == 1
